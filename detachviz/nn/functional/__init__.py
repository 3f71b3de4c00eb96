"""torch.nn.functional for detachviz scripts, one module per family: `core` (linear,
activations, softmax, dropout, the classic losses), `losses` (robust, divergence and distance
losses), `attention` (layer_norm, scaled_dot_product_attention, multi-head attention) and
`spatial` (convolution, pooling, batch/group norm, padding, embedding).

Each function calls the engine op torch itself dispatches to (`torch.addmm`,
`Tensor.log_softmax`, `torch._C._nn.mse_loss`, ...), so grad_fn names match torch's
(`AddmmBackward0`, `LogSoftmaxBackward0`, `MseLossBackward0`); where torch's own function is a
composite (cross_entropy, l1_loss, a weighted mse_loss), so is ours. A torch name detachviz
lacks is refused in one line (engine/unsupported.py).
"""

from __future__ import annotations

from detachviz.engine.namespace import module_getattr as _refusing_getattr
from detachviz.nn.functional.attention import (
    layer_norm,
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from detachviz.nn.functional.core import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    check_dropout_p,
    cross_entropy,
    dropout,
    elu,
    elu_,
    gelu,
    hardtanh,
    hardtanh_,
    l1_loss,
    leaky_relu,
    leaky_relu_,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    relu6,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from detachviz.nn.functional.losses import (
    cosine_similarity,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    normalize,
    pairwise_distance,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from detachviz.nn.functional.spatial import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    batch_norm,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    embedding,
    group_norm,
    max_pool1d,
    max_pool2d,
    max_pool2d_with_indices,
    one_hot,
    pad,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "check_dropout_p",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_similarity",
    "cross_entropy",
    "dropout",
    "elu",
    "elu_",
    "embedding",
    "gelu",
    "group_norm",
    "hardtanh",
    "hardtanh_",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool2d_with_indices",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "relu",
    "relu6",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softplus",
    "tanh",
    "triplet_margin_loss",
]

# a name torch has and detachviz lacks is refused clearly (engine/unsupported.py)
__getattr__ = _refusing_getattr(globals(), "torch.nn.functional", {}, methods=False)
