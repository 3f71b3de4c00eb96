"""The op families: one file per family (arith, unary, reduce, linalg, view, index, inplace,
compare, join, loss, stats, activation), each holding its backward-rule rows, forwards and
JVP rules side by side. The package itself imports nothing: engine/__init__.py loads every
family and then engine/methods.py installs the Tensor methods.

Contributor recipe
==================

Add an op (to an existing family):

1. The row: `NAME = node_class("TorchNameBackward0", vjps, saved=..., attrs=..., jvp=...)`.
   Each vjp is `lambda k, g, s, a: ...` and returns the gradient for one input, written with
   Python operators and the kernels `k.*` (engine/rules.py), so the same rule runs on numpy
   arrays (`k = NP`, plain backward) and on Tensors (`k = TT`, create_graph). `s` holds the
   saved values in `saved` order, `a` the attributes in `attrs` order. Never unbroadcast or
   cast inside a rule: the engine sums a gradient to its input's shape and casts it, once.
   `saved` rows are `Saved(torch_name, src, for_)`: `src` the input index or `RESULT`, `for_`
   the inputs whose vjp reads it (torch saves only what a grad-requiring input needs).
   Rules read attributes by name (`a.dim`: the class's `Attrs` namedtuple, made once) and
   saved values by position in row order (`s[0]`: naming them per node cost 0.25 µs).
   Torch-style `_saved_<name>` attributes are generated from `saved` and `attrs`. A backward
   that is not one vjp per input (several outputs, cat) passes `custom=fn(node, g, mode)`.
   `jvp`: one forward-mode rule per input, `lambda t, p, o, a: ...` on numpy arrays (see
   engine/forward_ad.py), `None` for an input with no tangent contribution; `jvp_view=True`
   for a view op (its tangent stays a view of the input's). An op torch has no forward AD for
   goes on `NO_FORWARD_AD` in tests/engine/test_jvp_coverage.py instead.
2. The forward, with the op kit (engine/function.py): `unary(cls, np_fn, "name", x, attrs)`,
   `binary(cls, np_fn, "name", x, y, attrs)`, `apply(cls, "name", inputs, data, dtype,
   attrs)` for anything else, `kit.view(...)` / `multi_view(...)` for views,
   `inplace(x, "name_", cls, new_values, others, attrs)` for in-place ops, `finish(...)` for a
   result built another way. They attach the node, run the forward-AD hook and record the
   trace; never do those by hand. `cls=None` marks a non-differentiable op.
3. Install it: one row in engine/methods.py (`TENSOR_METHODS`, `OPERATORS`, `PROPERTIES`)
   and, if torch has it as a function, a re-export in detachviz/torch/__init__.py.
4. Test it against finite differences and real torch (tests/engine, tests/oracle).

Add an op family: a new `ops/<family>.py` importing only lower layers (the op kit, rules,
arrays, promote, tensor, node, state) and families it builds on; add it to the imports in
engine/__init__.py and its methods to engine/methods.py. No family may import a module above
it (autograd, factory, forward_ad, methods): tests/test_import_structure.py checks it.

Add a Tensor method: write the function where its family lives, add a row to the table in
engine/methods.py. Never assign `Tensor.x = ...` anywhere else.

Add a process-wide setting: a module attribute in engine/state.py with its fresh value in
`state.reset()`; read it as `state.name` at call time (never copy it into a module global).
tests/engine/test_state.py compares a reset process with a fresh one.
"""
