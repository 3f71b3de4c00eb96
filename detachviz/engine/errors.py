"""torch's autograd error and warning texts, and the in-place error that carries its cause."""

from __future__ import annotations

import re
from typing import Any

from detachviz.engine import state

# NOTE: wordings are copied from PyTorch 2.13 (the oracle installed here). Where older
# releases worded a message differently, the older text is kept beside it for tests.
BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
BACKWARD_TWICE_OLD = (
    "Trying to backward through the graph a second time, but the buffers have already been "
    "freed. Specify retain_graph=True when calling backward the first time."
)
DETACHED_INPLACE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead"
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
VIEW_OF_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked)."
)
NO_GRAD_VIEW_REBASED = (
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
    "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) "
    "or both outside (if you want the inplace to be tracked)."
)
MULTI_VIEW_REBASED = (
    "Output {} of {} is a view and its base or another view of its base has been modified "
    "inplace. This view is the output of a function that returns multiple views. Such functions "
    "do not allow the output views to be modified inplace. You should replace the inplace "
    "operation by an out-of-place one."
)
DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
    "at the moment.  If you were attempting to deepcopy a module, this may be because of a "
    "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
)
NUMPY_REQUIRES_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
NON_LEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables."
NON_LEAF_REQUIRES_GRAD_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)
# the Python setter / requires_grad_() say "floating point dtype", factories the C++ wording
INT_REQUIRES_GRAD_SETTER = "only Tensors of floating point dtype can require gradients"
INT_REQUIRES_GRAD_SETATTR = "only Tensors of floating point and complex dtype can require gradients"
INT_REQUIRES_GRAD_FACTORY = "Only Tensors of floating point and complex dtype can require gradients"
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
IMPLICIT_SCALAR = "grad can be implicitly created only for scalar outputs"
RETAIN_GRAD_NO_RG = "can't retain_grad on Tensor that has requires_grad=False"
HOOK_NO_RG = "cannot register a hook on a tensor that doesn't require gradient"
UNUSED_INPUT = (
    "The differentiated Tensor at index {} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
UNUSED_INPUT_OLD = (
    "One of the differentiated Tensors appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INPUT_NO_RG = "One of the differentiated Tensors does not require grad"
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)
TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"
)
INFERENCE_VERSION = "Inference tensors do not track version counter."
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
ANOMALY_HINT = (
    " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
ANOMALY_HINT_OLD = (
    " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True)."
)

ANOMALY_ON_HINT = (
    " Hint: the backtrace further above shows the operation that failed to compute its "
    "gradient. The variable in question was changed in there or anywhere later. Good luck!"
)
ANOMALY_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should only "
    "be enabled for debugging."
)


def no_grad_view_message(view: Any, message: str) -> str:
    """A no_grad-view error for `view`: a view of such a view (it has a grad_fn) is named."""
    fn = view._grad_fn
    if fn is None:
        return message
    head = f"Output {view._output_nr} of {short_node_name(fn._name)} is a view of a view which"
    return message.replace("A view", head, 1)


def short_node_name(name: str) -> str:
    """The node name torch 2.13 prints inside the in-place error: `PowBackward0` -> `Pow`,
    `ClampBackward1` -> `Clamp1`; names without that suffix (`CopySlices`) stay whole."""
    # NOTE: measured on torch 2.13; older releases printed the full name (`PowBackward0`).
    return re.sub(r"Backward(\d+)$", lambda m: "" if m.group(1) == "0" else m.group(1), name)


def inplace_message(tensor: Any, grad_fn_name: str | None, current: int, expected: int) -> str:
    """torch's saved-tensor version-check message (SavedVariable::unpack)."""
    sizes = ", ".join(str(d) for d in tensor._data.shape)
    what = f"[torch.{tensor._dtype.legacy} [{sizes}]]"
    if grad_fn_name is not None:
        what += f", which is output 0 of {short_node_name(grad_fn_name)},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {what} is at version {current}; expected version {expected} instead."
        + (ANOMALY_ON_HINT if state.anomaly["enabled"] else ANOMALY_HINT)
    )


class InplaceModifiedError(RuntimeError):
    """torch's "modified by an inplace operation" RuntimeError, carrying its cause:
    `.saved_variable` (the SavedVariable whose version moved) and `.node` (the grad_fn that
    saved it). Its class prints as `RuntimeError`, as torch's traceback shows it."""

    def __init__(self, message: str, saved_variable: Any = None, node: Any = None) -> None:
        super().__init__(message)
        self.saved_variable = saved_variable
        self.node = node


InplaceModifiedError.__name__ = "RuntimeError"
InplaceModifiedError.__qualname__ = "RuntimeError"
InplaceModifiedError.__module__ = "builtins"
