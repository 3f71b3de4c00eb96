"""torch.device: only the CPU exists here."""

from __future__ import annotations


class device:  # noqa: N801 - torch's name
    """torch.device: only the CPU exists here."""

    __slots__ = ("type", "index")

    def __init__(self, type: str = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        self.type = str(type).split(":")[0]
        self.index = index

    def __repr__(self) -> str:
        return f"device(type='{self.type}')"

    def __str__(self) -> str:
        return self.type

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.type == other
        return isinstance(other, device) and other.type == self.type

    def __hash__(self) -> int:
        return hash(self.type)


CPU = device("cpu")
