# named_modules/children/parameters/buffers with prefix, recurse, remove_duplicate; get_submodule.
import torch
import torch.nn as nn

torch.manual_seed(0)
shared = nn.Linear(2, 2)
model = nn.Sequential(shared, nn.ReLU(), shared, nn.Sequential(nn.Linear(2, 1)))
print([n for n, _ in model.named_modules()])
print([n for n, _ in model.named_modules(prefix="net", remove_duplicate=False)])
print([n for n, _ in model.named_children()])
print([n for n, _ in model.named_parameters()])
print([n for n, _ in model.named_parameters(prefix="m", remove_duplicate=False)])
print([n for n, _ in model[3].named_parameters(recurse=False)], len(list(model.parameters())))
print(model.get_submodule("3.0"), model.get_parameter("3.0.bias").shape)
for bad in ("4", "0.weight.x"):
    try:
        model.get_submodule(bad)
    except AttributeError as e:
        print("AttributeError: " + str(e))
names = []
model.apply(lambda m: names.append(type(m).__name__))
print(names)
model.requires_grad_(False)
print([p.requires_grad for p in model.parameters()])
model.eval()
print([m.training for m in model.modules()])
model.half()
print(shared.weight.dtype)
model.add_module("extra", nn.Tanh())
model.register_module("extra2", None)
print(list(model._modules), model.extra)
del model.extra
print(hasattr(model, "extra"))
