"""The dtype objects (`torch.float32`, ...) and their numpy counterparts."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - torch spells it in lower case
    """A tensor element type that prints like torch's (`torch.float32`)."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "legacy")

    def __init__(self, name: str, np_dtype: type, floating: bool, legacy: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = floating
        self.is_complex = False
        self.is_signed = name != "bool" and name != "uint8"
        self.itemsize = self.np.itemsize
        self.legacy = legacy  # the legacy type name torch prints in errors: torch.FloatTensor

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float32 = dtype("float32", np.float32, True, "FloatTensor")
float64 = dtype("float64", np.float64, True, "DoubleTensor")
float16 = dtype("float16", np.float16, True, "HalfTensor")
int64 = dtype("int64", np.int64, False, "LongTensor")
int32 = dtype("int32", np.int32, False, "IntTensor")
int16 = dtype("int16", np.int16, False, "ShortTensor")
int8 = dtype("int8", np.int8, False, "CharTensor")
uint8 = dtype("uint8", np.uint8, False, "ByteTensor")
bool_ = dtype("bool", np.bool_, False, "BoolTensor")

ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool_)

# torch's aliases: torch.float is torch.float32, torch.long is torch.int64, ...
ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "bool": bool_,
}

# numpy dtype -> our dtype
BY_NP = {d.np: d for d in ALL}

# the default dtype (torch.get_default_dtype) is a setting: engine/state.py `default_dtype`


def from_numpy(np_dtype: np.dtype) -> dtype:
    """The torch dtype for a numpy dtype (float64 stays float64, as torch.from_numpy does)."""
    try:
        return BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported "
            "types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


# torch's two spellings of dtypes in messages: c10 type names and ScalarType names
C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}
SCALAR_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}
