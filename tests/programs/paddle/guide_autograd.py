"""Paddle guide "自动微分机制介绍" (automatic differentiation), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/advanced/autograd_cn.rst (Apache-2.0), every
`.. code:: ipython3` block in order. Changes, each marked `# oar-port:`: seeded; the label's
and the output's shapes are printed. Everything from section 3 on is deterministic and compared
to 1e-5.
"""
#加载飞桨和相关类库
import paddle
from paddle.vision.models import vgg11
import paddle.nn.functional as F
import numpy as np
print(paddle.__version__)

paddle.seed(2022)  # oar-port: seeded
model = vgg11()
x = paddle.rand([1,3,224,224])
label = paddle.randint(0,1000)
print(label.shape, label.dtype)  # oar-port: show the label

# 前向传播
predicts = model(x)
print(predicts.shape)  # oar-port: show the output shape

# 计算损失
loss = F.cross_entropy(predicts, label)
print(loss.shape)  # oar-port

# 开始进行反向传播
loss.backward()

# 设置优化器
optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())

# 更新参数
optim.step()

import paddle

a = paddle.to_tensor([1.0, 2.0, 3.0])
b = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False) # 将 b 设置为需要计算梯度的属性
print(a.stop_gradient)
print(b.stop_gradient)

a.stop_gradient = False
print(a.stop_gradient)

import paddle
x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
z = x ** 2 + 4 * y

z.backward()
print("Tensor x's grad is: {}".format(x.grad))
print("Tensor y's grad is: {}".format(y.grad))

import paddle
x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = x + 3
y.backward(retain_graph=True) # 设置 retain_graph 为 True，保留反向计算图
print("Tensor x's grad is: {}".format(x.grad))

import paddle
import numpy as np

x = np.ones([2, 2], np.float32)
inputs2 = []

for _ in range(10):
    tmp = paddle.to_tensor(x)
    tmp.stop_gradient = False
    inputs2.append(tmp)
ret2 = paddle.add_n(inputs2)
loss2 = paddle.sum(ret2)

loss2.backward()
print("Before clear {}".format(loss2.gradient()))
loss2.clear_grad()
print("After clear {}".format(loss2.gradient()))

import paddle

a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(5.0, stop_gradient=True)
c = a * b
c.backward()
print("Tensor a's grad is: {}".format(a.grad))
print("Tensor b's grad is: {}".format(b.grad))

import paddle

a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(5.0, stop_gradient=False)
c = a * b
d = paddle.to_tensor(4.0, stop_gradient=False)
e = c * d
e.backward()
print("Tensor a's grad is: {}".format(a.grad))
print("Tensor b's grad is: {}".format(b.grad))
print("Tensor c's grad is: {}".format(c.grad))
print("Tensor d's grad is: {}".format(d.grad))
