"""A character-level language model: embedding, two-layer LSTM, linear head.

Written for oar's program tests (not copied from anywhere). It trains on a short text for a
few dozen Adam steps with gradient clipping, printing the loss of every step, then generates
text greedily while carrying the LSTM state. The initial weights are drawn with NumPy so that
the same program starts from the same numbers in every framework.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = (
    "tensors that change in place save memory, and a version counter on each storage "
    "tells autograd when a value it saved for the backward pass was overwritten. "
    "views share data but own their shape and strides; normal ops allocate a new result. "
) * 4

chars = sorted(set(TEXT))
index = {c: i for i, c in enumerate(chars)}
data = torch.tensor([index[c] for c in TEXT], dtype=torch.long)
vocab = len(chars)


class CharRNN(nn.Module):
    def __init__(self, vocab, embed=24, hidden=48, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.rnn = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.rnn(self.embed(x), state)
        return self.head(out), state


rng = np.random.default_rng(0)
model = CharRNN(vocab)
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(torch.from_numpy((rng.standard_normal(p.shape) * 0.1).astype(np.float32)))
print("parameters", sum(p.numel() for p in model.parameters()))

opt = torch.optim.Adam(model.parameters(), lr=0.02)
seq, batch = 24, 8
for step in range(40):
    starts = rng.integers(0, len(data) - seq - 1, size=batch)
    x = torch.stack([data[s:s + seq] for s in starts])
    y = torch.stack([data[s + 1:s + seq + 1] for s in starts])
    logits, _ = model(x)
    loss = F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step:2d} loss {loss.item():.5f} grad-norm {norm.item():.5f}")

model.eval()
with torch.no_grad():
    x = torch.tensor([[index["t"]]])
    state = None
    out = []
    for _ in range(40):
        logits, state = model(x, state)
        x = logits[:, -1].argmax(-1, keepdim=True)
        out.append(chars[x.item()])
print("sample", repr("".join(out)))
