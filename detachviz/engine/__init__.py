"""The autograd engine: tensors, storage, ops, autograd, forward AD, tracing (numpy only)."""
