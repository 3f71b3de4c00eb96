"""torch.linalg: the decompositions, solvers and norms (engine/ops/decomp.py)."""

from __future__ import annotations

from detachviz.engine import namespace as _ns
from detachviz.engine import signatures as _sig
from detachviz.engine.ops import decomp as _d
from detachviz.engine.ops import linalg as _linalg
from detachviz.engine.ops import matnorm as _mn
from detachviz.engine.ops import stats as _stats

cholesky = _d.cholesky
det = _d.det
eigh = _d.eigh
eigvalsh = _d.eigvalsh
inv = _d.inv
matmul = _linalg.matmul
matrix_norm = _mn.matrix_norm
norm = _mn.norm
pinv = _d.pinv
qr = _d.qr
slogdet = _d.linalg_slogdet
LinAlgError = _d.LinAlgError
solve = _d.solve
svd = _d.svd
svdvals = _d.svdvals
vector_norm = _stats.vector_norm

_sig.bind_linalg(globals())  # out= (a tuple of tensors), keywords

__getattr__ = _ns.module_getattr(globals(), "torch.linalg", {}, methods=False)
