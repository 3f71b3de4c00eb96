"""`torch.special`: the special functions under their torch.special names (the engine's ops
of ops/special.py and friends; `gammaln` is lgamma, `psi` digamma, `expit` sigmoid, ...)."""

from __future__ import annotations

from detachviz.engine import deferred as _deferred
from detachviz.engine import namespace as _ns
from detachviz.engine import signatures as _sig
from detachviz.engine.ops import arith as _arith
from detachviz.engine.ops import reduce as _red
from detachviz.engine.ops import unary as _unary

_special = _deferred.family("special")
_pw = _deferred.family("pointwise")

erf = _special.erf
erfc = _special.erfc
erfinv = _special.erfinv
gammaln = _special.lgamma
digamma = _special.digamma
psi = _special.digamma
polygamma = _special.polygamma
multigammaln = _special.mvlgamma
i0 = _special.i0
i1 = _special.special_i1
sinc = _special.sinc
logit = _special.logit
expit = _unary.sigmoid
xlogy = _arith.xlogy
exp2 = _unary.exp2
expm1 = _unary.expm1
log1p = _unary.log1p
round = _pw.round  # noqa: A001 - torch's name
softmax = _red.softmax
log_softmax = _red.log_softmax
logsumexp = _red.logsumexp

__getattr__ = _ns.module_getattr(globals(), "torch.special", {}, methods=False)
__dir__ = _ns.module_dir(globals(), {})
_sig.bind_namespace(globals())  # torch's call forms: keywords for positionals, out=
_deferred.site(globals(), lambda: _sig.bind_namespace(globals()))
