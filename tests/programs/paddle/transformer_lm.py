"""A small Transformer language model in Paddle: token and position embeddings, a causal
TransformerEncoder of two pre-norm layers, a linear head.

Written for oar's program tests (not copied from anywhere). It trains for a few dozen AdamW
steps with a linear warm-up, printing the loss of each step, then scores a held-out batch in
eval mode. The initial weights are drawn with NumPy so that the program starts from the same
numbers in every framework (dropout is off: Paddle's random stream is its own).
"""
import math

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

TEXT = (
    "a view shares its base's storage and version counter, so writing through the view is "
    "seen by the base and by every tensor autograd saved from it. an in-place op returns the "
    "very tensor it was called on, and the next backward checks each saved version. "
) * 4

chars = sorted(set(TEXT))
index = {c: i for i, c in enumerate(chars)}
data = np.array([index[c] for c in TEXT], dtype=np.int64)
vocab, context = len(chars), 32


class TinyLM(nn.Layer):
    def __init__(self, vocab, d_model=32, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(context, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=64, dropout=0.0,
                                           activation="gelu", normalize_before=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pos(paddle.arange(t))
        mask = paddle.to_tensor(np.triu(np.full((t, t), -np.inf, np.float32), 1))
        h = self.encoder(h, src_mask=mask)
        return self.head(self.norm(h))


rng = np.random.default_rng(0)
model = TinyLM(vocab)
for name, p in model.named_parameters():
    scale = 1.0 if name.endswith(("norm1.weight", "norm2.weight", "norm.weight")) else 0.0
    p.set_value((scale + rng.standard_normal(p.shape) * 0.08).astype(np.float32))
print("parameters", sum(int(np.prod(p.shape)) for p in model.parameters()))

warmup = paddle.optimizer.lr.LinearWarmup(learning_rate=0.01, warmup_steps=10,
                                          start_lr=0.001, end_lr=0.01)
opt = paddle.optimizer.AdamW(learning_rate=warmup, parameters=model.parameters(),
                             weight_decay=0.01, grad_clip=nn.ClipGradByGlobalNorm(1.0))
batch = 8
for step in range(30):
    starts = rng.integers(0, len(data) - context - 1, size=batch)
    x = paddle.to_tensor(np.stack([data[s:s + context] for s in starts]))
    y = paddle.to_tensor(np.stack([data[s + 1:s + context + 1] for s in starts]))
    loss = F.cross_entropy(model(x).reshape([-1, vocab]), y.reshape([-1]))
    loss.backward()
    opt.step()
    opt.clear_grad()
    warmup.step()
    print(f"step {step:2d} loss {float(loss):.5f} lr {opt.get_lr():.5f}")

model.eval()
with paddle.no_grad():
    x = paddle.to_tensor(data[None, :context])
    y = paddle.to_tensor(data[None, 1:context + 1])
    loss = F.cross_entropy(model(x).reshape([-1, vocab]), y.reshape([-1]))
print(f"eval loss {float(loss):.5f} perplexity {math.exp(float(loss)):.3f}")
