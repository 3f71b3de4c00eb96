"""One round of graph message passing: gather source features along edges, sum them into
destination nodes with index_add, normalise by in-degree, train a tiny GNN layer."""

import torch
import torch.nn as nn

torch.manual_seed(9)
num_nodes, feat = 5, 4
edges = torch.tensor([[0, 1], [1, 2], [2, 0], [3, 2], [4, 3], [1, 4], [0, 3]]).T
src, dst = edges[0], edges[1]
x = torch.randn(num_nodes, feat)
labels = torch.tensor([0, 1, 0, 1, 1])


class GraphLayer(nn.Module):
    def __init__(self, d_in: int, d_out: int) -> None:
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        messages = self.lin(h).index_select(0, src)
        agg = torch.zeros(num_nodes, messages.shape[1]).index_add(0, dst, messages)
        deg = torch.zeros(num_nodes).scatter_add(0, dst, torch.ones(dst.shape[0]))
        return agg / deg.clamp(min=1).unsqueeze(1)


layer = GraphLayer(feat, 2)
opt = torch.optim.SGD(layer.parameters(), lr=0.5)
for step in range(5):
    logits = layer(x)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
out = layer(x)
print(type(out.grad_fn).__name__, type(out.grad_fn.next_functions[0][0]).__name__)
agg_fn = out.grad_fn.next_functions[0][0]
print("saved dim:", agg_fn._saved_dim, "index:", agg_fn._saved_index.tolist())
print("in-degree:", torch.zeros(num_nodes).scatter_add(0, dst, torch.ones(7)).tolist())
