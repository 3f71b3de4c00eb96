"""REINFORCE on a toy bandit-chain: discounted returns via reversed cumulative sums,
normalised advantages, log-probs picked with gather."""

import torch
import torch.nn as nn

torch.manual_seed(4)
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
opt = torch.optim.Adam(policy.parameters(), lr=0.02)
gamma = 0.9


def discounted_returns(rewards: torch.Tensor, gamma: float) -> torch.Tensor:
    # G_t = sum_k gamma^k r_{t+k}: scale, reverse cumsum, unscale
    T = rewards.shape[0]
    powers = gamma ** torch.arange(T, dtype=rewards.dtype)
    return (rewards * powers).flip(0).cumsum(0).flip(0) / powers


for episode in range(5):
    states = torch.randn(6, 4)
    logits = policy(states)
    probs = torch.softmax(logits, dim=-1)
    actions = torch.multinomial(probs, 1).squeeze(1)
    rewards = (actions == (states[:, 0] > 0).long()).float()
    returns = discounted_returns(rewards, gamma)
    adv = (returns - returns.mean()) / (returns.std() + 1e-8)
    logp = torch.log_softmax(logits, dim=-1).gather(1, actions.unsqueeze(1)).squeeze(1)
    loss = -(logp * adv).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"episode {episode} reward {rewards.sum().item():.0f} "
        f"return0 {returns[0].item():.4f} loss {loss.item():.4f}"
    )
print("returns:", [f"{v:.4f}" for v in returns.tolist()])
print(type(returns.grad_fn), type(logp.grad_fn).__name__)
