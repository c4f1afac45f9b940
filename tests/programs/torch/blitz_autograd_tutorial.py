"""oar-port header.

Source: https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/autograd_tutorial.py (the Variable-era version, still valid in PyTorch 2.13)
License: BSD 3-Clause (pytorch/tutorials).
Changes (each marked `# oar-port:` in the code): `torch.manual_seed(0)` added after the imports: real torch seeds its default generator
differently on every start, so the printed numbers would change from run to run.
The tutorial's narrative comment blocks are shortened; every code line is kept.
"""

import torch
from torch.autograd import Variable
torch.manual_seed(0)  # oar-port: torch seeds randomly at start-up; fix the seed

x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)

y = x + 2
print(y)

print(y.grad_fn)

z = y * y * 3
out = z.mean()

print(z, out)

out.backward()

print(x.grad)


x = torch.randn(3)
x = Variable(x, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
y.backward(gradients)

print(x.grad)
