# Views, detach and .data share the untyped storage; clone/contiguous copies do not.
import torch

a = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
ptr = a.untyped_storage().data_ptr()
cands = {
    "view": a.view(6),
    "slice": a[1:],
    "t": a.t(),
    "detach": a.detach(),
    "data": a.data,
    "clone": a.clone(),
    "t_contig": a.t().contiguous(),
    "contig": a.contiguous(),
    "reshape": a.reshape(3, 2),
    "float": a.float(),
    "double": a.double(),
}
for name, t in cands.items():
    print(name, t.untyped_storage().data_ptr() == ptr)
print(a[1:].storage_offset(), a.untyped_storage().nbytes(), a[1:].data_ptr() == ptr)
