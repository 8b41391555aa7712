"""PPO with action masking over ``wsite.vector``, in one file, CleanRL style.

    python python/examples/cleanrl_ppo.py [--site SITE] [--task NAME]
        [--num-envs 16] [--num-steps 64] [--total-timesteps 65536]

The policy embeds the page's tokens (instruction, page label, each element's
text and context, each action's text) with one shared table, pools them, and
scores every row of the action table against the page; rows the page does
not offer are masked out. Observations come straight from the vector env's
buffers (read in place) into torch. Prints the success rate as it trains.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

import wsite

ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--site", default=str(ROOT / "stdlib" / "sites" / "cart.wsite"))
    p.add_argument("--task", default="two_different_items")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--num-steps", type=int, default=64)
    p.add_argument("--total-timesteps", type=int, default=65536)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args(argv)


class Agent(nn.Module):
    def __init__(self, vocab: int, dim: int = 64):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim, mode="mean", padding_idx=0)
        self.page = nn.Sequential(nn.Linear(3 * dim, dim), nn.Tanh())
        self.action = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
        self.value = nn.Linear(dim, 1)

    def bag(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean embedding of each row of token ids (any leading shape)."""
        lead = tokens.shape[:-1]
        flat = tokens.reshape(-1, tokens.shape[-1])
        return self.embed(flat).reshape(*lead, -1)

    def forward(self, obs):
        instruction = self.bag(obs["instruction"])
        page = self.bag(obs["page"])
        elements = self.bag(torch.cat([obs["text"], obs["context"]], dim=-1)).mean(dim=1)
        state = self.page(torch.cat([instruction, page, elements], dim=-1))
        actions = self.action(self.bag(obs["action_text"]))
        logits = torch.einsum("bd,bad->ba", state, actions)
        logits = logits.masked_fill(obs["action_mask"] == 0, -1e9)
        return logits, self.value(state).squeeze(-1)


def to_torch(obs, keys):
    return {k: torch.as_tensor(np.asarray(obs[k]), dtype=torch.long) for k in keys}


KEYS = ("instruction", "page", "text", "context", "action_text", "action_mask")


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    envs = wsite.vector(args.site, num_envs=args.num_envs, task=args.task, seed=args.seed)
    vocab = int(envs.single_observation_space["text"].high.max()) + 1
    agent = Agent(vocab)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    n, t = args.num_envs, args.num_steps
    batch = n * t
    obs, _ = envs.reset(seed=args.seed)
    stored = {k: [] for k in KEYS}
    wins = ends = 0
    started = time.time()
    for update in range(args.total_timesteps // batch):
        stored = {k: [] for k in KEYS}
        actions, logprobs, rewards, dones, values, waiting = [], [], [], [], [], []
        # A finished environment restarts on the next step, which teaches nothing.
        skip = np.zeros(n, dtype=bool)
        for _ in range(t):
            o = to_torch(obs, KEYS)  # copies out of the in-place buffers
            for k in KEYS:
                stored[k].append(o[k])
            with torch.no_grad():
                logits, value = agent(o)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            done = np.logical_or(terminated, truncated)
            actions.append(action)
            logprobs.append(dist.log_prob(action))
            values.append(value)
            rewards.append(torch.as_tensor(np.array(reward), dtype=torch.float32))
            dones.append(torch.as_tensor(done, dtype=torch.float32))
            waiting.append(torch.as_tensor(skip.copy()))
            wins += int(np.sum(info["success"] & done))
            ends += int(done.sum())
            skip = done
        with torch.no_grad():
            _, next_value = agent(to_torch(obs, KEYS))
        advantages = torch.zeros(t, n)
        last = torch.zeros(n)
        for s in reversed(range(t)):
            nv = next_value if s == t - 1 else values[s + 1]
            live = 1.0 - dones[s]
            delta = rewards[s] + args.gamma * nv * live - values[s]
            last = delta + args.gamma * args.gae_lambda * live * last
            advantages[s] = last
        returns = advantages + torch.stack(values)
        flat = {k: torch.cat(v) for k, v in stored.items()}
        b_actions, b_logprobs = torch.cat(actions), torch.cat(logprobs)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        b_keep = ~torch.cat(waiting)
        size = batch // args.num_minibatches
        for _ in range(args.update_epochs):
            order = torch.randperm(batch)
            for start in range(0, batch, size):
                idx = order[start:start + size]
                idx = idx[b_keep[idx]]
                if len(idx) == 0:
                    continue
                logits, value = agent({k: v[idx] for k, v in flat.items()})
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_actions[idx]) - b_logprobs[idx]).exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg - args.ent_coef * dist.entropy().mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        rate = wins / max(ends, 1)
        steps = (update + 1) * batch
        print(f"update {update + 1}: {steps} steps, success {rate:.0%} over {ends} episodes, "
              f"{steps / (time.time() - started):.0f} steps/s", flush=True)
        wins = ends = 0
    return rate


if __name__ == "__main__":
    main()
