"""`Dropout`: zero elements with probability p in training, scale the rest by 1/(1-p)."""

from __future__ import annotations

from typing import Any

from detachviz.nn import functional as F
from detachviz.nn.module import Module


class Dropout(Module):
    """torch.nn.Dropout: F.dropout with the module's training flag; identity in eval()."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        F.check_dropout_p(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input: Any) -> Any:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
