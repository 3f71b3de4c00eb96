"""`Module`: the base class that registers parameters and submodules by attribute assignment."""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from detachviz import torch as T
from detachviz.engine.unsupported import refuse
from detachviz.nn.hooks import BackwardHook, RemovableHandle, add_hook
from detachviz.nn.module_api import TORCH_MODULE_API
from detachviz.nn.parameter import Parameter

# torch's per-module hook dicts (hook id -> hook; the *_with_kwargs / *_always_called ones
# mark ids), created by Module.__init__
_HOOK_TABLES = (
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_backward_hooks",
    "_backward_pre_hooks",
    "_state_dict_hooks",
    "_load_state_dict_pre_hooks",
)
_CALL_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_MIXED_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (blank lines stay empty), as torch's nested repr does."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    rest = [" " * spaces + line if line.strip() else "" for line in lines[1:]]
    return "\n".join([lines[0], *rest])


class Module:
    """torch.nn.Module: parameters, buffers and submodules in registration order.

    Assigning a Parameter or a Module to an attribute registers it; the dotted names that
    `named_parameters()` yields (`0.weight`, `encoder.fc.bias`) follow torch's pre-order walk.
    """

    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dicts to exist already
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        for table in _HOOK_TABLES:
            object.__setattr__(self, table, OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)

    # ------------------------------------------------------------ calling

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        if not any(d.get(table) for table in _CALL_HOOKS):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """torch's Module._call_impl order: forward pre hooks, the backward-hook wrapping of
        the inputs, forward, forward hooks, the wrapping of the outputs, legacy backward
        hooks on the output's grad_fn. always_call forward hooks also run if forward raises."""
        called: set[int] = set()
        try:
            for hook_id, pre in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = pre(self, args, kwargs)
                    if res is not None:
                        if not (isinstance(res, tuple) and len(res) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {res}."
                            )
                        args, kwargs = res
                else:
                    res = pre(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            full = [h for h in self._backward_hooks.values() if self._is_full_backward_hook]
            legacy = [h for h in self._backward_hooks.values() if not self._is_full_backward_hook]
            pre_bw = list(self._backward_pre_hooks.values())
            bw_hook = None
            if full or pre_bw:
                bw_hook = BackwardHook(self, full, pre_bw)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook is not None:
                result = bw_hook.setup_output_hook(result)
            if legacy:
                _attach_legacy_backward_hooks(self, result, legacy)
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception as e:
                        warnings.warn(
                            "forward hook with ``always_call=True`` raised an exception that "
                            f"was silenced as another error was raised in forward: {e}",
                            stacklevel=2,
                        )
            raise

    # ------------------------------------------------------------ hooks

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        marks = (self._forward_pre_hooks_with_kwargs,) if with_kwargs else ()
        return add_hook(self._forward_pre_hooks, hook, prepend, *marks)

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        marks = []
        if with_kwargs:
            marks.append(self._forward_hooks_with_kwargs)
        if always_call:
            marks.append(self._forward_hooks_always_called)
        # NOTE: the handle removes the id from both marker dicts, as torch's does
        handle = add_hook(self._forward_hooks, hook, prepend, *marks)
        handle._dicts = (
            self._forward_hooks,
            self._forward_hooks_with_kwargs,
            self._forward_hooks_always_called,
        )
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        if self._is_full_backward_hook is False:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """The deprecated form: a post hook on the output's grad_fn (torch's semantics: the
        grads of that one node's inputs, not of the module's)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(_MIXED_BACKWARD_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return add_hook(self._backward_hooks, hook, False)

    # ------------------------------------------------------------ registration

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
        """A tensor saved with the module (state_dict, to()) but not a parameter;
        persistent=False keeps it out of state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, T.Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            self._modules[name] = value
        elif name in self.__dict__.get("_modules", {}):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", {}):
            if value is not None and not isinstance(value, T.Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Drop `name` from every place but the one it is about to be registered in."""
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            self.__dict__[table].pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: look in the registries
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        if name in TORCH_MODULE_API:
            raise refuse(f"torch.nn.Module.{name}")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        extra = [*self._parameters, *self._buffers, *self._modules]
        return sorted(set(super().__dir__()) | set(extra))

    # ------------------------------------------------------------ walking the tree

    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """Every module in pre-order (self first), each once, named by its dotted path."""
        seen = memo if memo is not None else set()
        # NOTE: an explicit stack, not recursion; children pushed reversed keep torch's order
        stack: list[tuple[str, Module]] = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in seen:
                    continue
                seen.add(id(module))
            yield name, module
            children = [
                (name + ("." if name else "") + key, child)
                for key, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, table: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        walk = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else iter([(prefix, self)])
        )
        seen: set[int] = set()
        for module_prefix, module in walk:
            for key, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + key, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs: a module's own first, then each child's in order;
        a parameter shared by two modules appears once, under its first name."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Any]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Any]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call fn on every submodule, each child's subtree before its parent (torch's
        post-order)."""
        # (module, children already pushed?) pairs: a module runs when met the second time
        stack: list[tuple[Module, bool]] = [(self, False)]
        while stack:
            module, expanded = stack.pop()
            if expanded:
                fn(module)
                continue
            stack.append((module, True))
            stack.extend((child, False) for child in reversed(list(module.children())))
        return self

    # ------------------------------------------------------------ state

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """to(device), to(dtype), to(device, dtype), to(tensor), with non_blocking= and
        memory_format= accepted. Only the CPU exists: another device raises (CPU-only torch's
        AssertionError for cuda). A floating dtype converts floating parameters and buffers
        in place (the same Parameter objects, as torch)."""
        allowed = {"device", "dtype", "non_blocking", "memory_format", "tensor", "copy"}
        for key in kwargs:
            if key not in allowed:
                raise TypeError(f"to() received an invalid combination of arguments - got {key}=")
        dtype = kwargs.get("dtype")
        refuse_non_cpu(kwargs.get("device"))
        for a in (*args, kwargs.get("tensor")):
            if isinstance(a, T.dtype):
                dtype = a
            elif isinstance(a, T.Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, T.device)):
                refuse_non_cpu(a)
            elif a is not None and not isinstance(a, bool):
                raise TypeError(
                    f"to() received an invalid combination of arguments - got ({type(a).__name__})"
                )
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for value in table.values():
                    if value is not None and value.dtype.is_floating_point:
                        # NOTE: set through the .data setter from a fresh copy of the values:
                        # reading `.data` would record a cut in the trace
                        value.data = T.tensor(value.tolist(), dtype=dtype)
        return self

    def cuda(self, device: Any = None) -> Module:
        refuse_non_cpu("cuda")
        return self

    def float(self) -> Module:
        return self.to(T.float32)

    def double(self) -> Module:
        return self.to(T.float64)

    def half(self) -> Module:
        return self.to(T.float16)

    def type(self, dst_type: Any) -> Module:
        """Every parameter and buffer (floating or not) to `dst_type`, as torch's type()."""
        if isinstance(dst_type, str):
            raise NotImplementedError(
                "Module.type with a type string is not supported by detachviz"
            )
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for value in table.values():
                    if value is not None:
                        value.data = T.tensor(value.tolist(), dtype=dst_type)
        return self

    def cpu(self) -> Module:
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def state_dict(
        self,
        *args: Any,
        destination: dict[str, Any] | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """Parameters and persistent buffers by dotted name (each module's own parameters,
        then its buffers, then its children's), detached unless keep_vars, with torch's
        `_metadata` (each module's version) on the OrderedDict."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        out: Any = OrderedDict() if destination is None else destination
        metadata: Any = OrderedDict()
        # NOTE: no de-duplication here: a module registered twice is saved under both names
        walk = self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False)
        for module_prefix, module in walk:
            metadata[module_prefix] = {"version": getattr(type(module), "_version", 1)}
            dot = module_prefix + ("." if module_prefix else "")
            for key, value in module._parameters.items():
                if value is not None:
                    out[dot + key] = value if keep_vars else value.detach()
            skip = module.__dict__.get("_non_persistent_buffers_set", ())
            for key, value in module._buffers.items():
                if value is not None and key not in skip:
                    out[dot + key] = value if keep_vars else value.detach()
        if destination is None:
            out._metadata = metadata
        return out

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        """Copy (or with assign, take) every tensor of `state_dict` into the parameter or
        buffer of the same name; torch's missing / unexpected / size-mismatch errors."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, T.Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
            elif tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        for key, target in own.items():
            if key in state_dict:
                _load_one(self, key, target, state_dict[key], assign)
        return _IncompatibleKeys(missing, unexpected)

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Any:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # ------------------------------------------------------------ repr

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"


class _IncompatibleKeys:
    """What load_state_dict returns; prints like torch's `<All keys matched successfully>`."""

    def __init__(self, missing_keys: list[str], unexpected_keys: list[str]) -> None:
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
            f"unexpected_keys={self.unexpected_keys})"
        )


def refuse_non_cpu(device: Any) -> None:
    """Devices other than the CPU do not exist here: cuda raises what CPU-only torch raises,
    any other device is refused in one line."""
    if device is None or isinstance(device, int):
        if isinstance(device, int):
            raise AssertionError("Torch not compiled with CUDA enabled")
        return
    kind = str(device).split(":")[0]
    if kind == "cpu":
        return
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise NotImplementedError(f"device '{kind}' is not supported by detachviz (only the CPU)")


def _load_one(module: Module, key: str, target: Any, value: Any, assign: bool) -> None:
    """One state_dict entry into its parameter or buffer: copied in place without history,
    or with assign the given tensor itself (a Parameter keeps the old requires_grad)."""
    if not assign:
        with T.no_grad():
            target.copy_(value)
        return
    path, _, name = key.rpartition(".")
    owner = module.get_submodule(path)
    if name in owner._parameters:
        new = value if isinstance(value, Parameter) else Parameter(value, target.requires_grad)
        owner._parameters[name] = new
    else:
        owner._buffers[name] = value


def _attach_legacy_backward_hooks(module: Module, result: Any, hooks: list[Any]) -> None:
    """register_backward_hook's hooks go on the grad_fn of the first tensor of the result."""
    var = result
    while not isinstance(var, T.Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, T.Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(_bind_module(hook, module))


def _bind_module(hook: Callable[..., Any], module: Module) -> Callable[..., Any]:
    def wrapped(grad_input: Any, grad_output: Any) -> Any:
        return hook(module, grad_input, grad_output)

    return wrapped


def _zero_grad(p: Any, set_to_none: bool) -> None:
    """torch's per-parameter zero_grad: drop the grad, or zero it in place without history."""
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
        return
    if p.grad.grad_fn is not None:
        p.grad.detach_()
    else:
        p.grad.requires_grad_(False)
    p.grad.zero_()


def _check_name(name: Any, kind: str) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _typename(value: Any) -> str:
    if isinstance(value, T.Tensor):
        return "torch." + value.dtype.legacy
    cls = type(value)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
