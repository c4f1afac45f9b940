"""A small Transformer language model: token and position embeddings, a causal
TransformerEncoder of two pre-norm layers, a linear head tied to nothing.

Written for oar's program tests (not copied from anywhere). It trains for a few dozen AdamW
steps with a warm-up schedule and dropout on, printing the loss of each step, then scores a
held-out batch in eval mode. The initial weights are drawn with NumPy so that the program
starts from the same numbers in every framework; dropout draws from torch's seeded stream.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = (
    "a view shares its base's storage and version counter, so writing through the view is "
    "seen by the base and by every tensor autograd saved from it. an in-place op returns the "
    "very tensor it was called on, and the next backward checks each saved version. "
) * 4

chars = sorted(set(TEXT))
index = {c: i for i, c in enumerate(chars)}
data = torch.tensor([index[c] for c in TEXT], dtype=torch.long)
vocab, context = len(chars), 32


class TinyLM(nn.Module):
    def __init__(self, vocab, d_model=32, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=64, dropout=0.1,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(t))
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.encoder(h, mask=mask, is_causal=True)
        return self.head(self.norm(h))


torch.manual_seed(0)
rng = np.random.default_rng(0)
model = TinyLM(vocab)
with torch.no_grad():
    for name, p in model.named_parameters():
        scale = 1.0 if name.endswith(("norm1.weight", "norm2.weight", "norm.weight")) else 0.0
        noise = rng.standard_normal(p.shape) * 0.08
        p.copy_(torch.from_numpy((scale + noise).astype(np.float32)))
print("parameters", sum(p.numel() for p in model.parameters()))

opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
batch = 8
for step in range(30):
    starts = rng.integers(0, len(data) - context - 1, size=batch)
    x = torch.stack([data[s:s + context] for s in starts])
    y = torch.stack([data[s + 1:s + context + 1] for s in starts])
    loss = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"step {step:2d} loss {loss.item():.5f} lr {sched.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    x = data[:context].unsqueeze(0)
    y = data[1:context + 1].unsqueeze(0)
    loss = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
print(f"eval loss {loss.item():.5f} perplexity {math.exp(loss.item()):.3f}")
