"""Paddle guide "梯度裁剪方式介绍" (gradient clipping), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/advanced/gradient_clip_cn.rst (Apache-2.0), the code
blocks in order. Changes, each marked `# oar-port:`: blocks 2 and 4 (`bias_attr=...ParamAttr(
need_clip=False)` alone) are fragments, and block 2 has a full-width comma (a SyntaxError as
written) -- both built with the ASCII comma; block 5 spells ClipGradByGloabalNorm (an
AttributeError on paddle 3.3.1 too) -> ClipGradByGlobalNorm; the training loop runs 5 steps, not
100; numpy and paddle seeded. Weights come from paddle.randn, so losses are compared by shape.
"""
import paddle

linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByValue(min=-1, max=1)
sdg = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)

linear = paddle.nn.Linear(10, 10, bias_attr=paddle.ParamAttr(need_clip=False))  # oar-port: ASCII comma

linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByNorm(clip_norm=1.0)
sdg = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)

linear = paddle.nn.Linear(10, 10, weight_attr=paddle.ParamAttr(need_clip=False))

linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)  # oar-port: the guide misspells ClipGradByGloabalNorm
sdg = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)

# oar-port: a deterministic check of the three clips on known gradients (the guide only builds them)
for clip in (paddle.nn.ClipGradByValue(min=-1, max=1), paddle.nn.ClipGradByNorm(clip_norm=1.0),
             paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)):
    w = paddle.create_parameter([2, 2], "float32", default_initializer=paddle.nn.initializer.Constant(1.0))
    sgd = paddle.optimizer.SGD(learning_rate=1.0, parameters=[w], grad_clip=clip)
    (w * paddle.to_tensor([[3.0, -4.0], [0.5, 0.0]])).sum().backward()
    sgd.step()
    print(type(clip).__name__, w.numpy())

import paddle
import paddle.nn.functional as F
import numpy as np

np.random.seed(0)  # oar-port: seeded
paddle.seed(2022)  # oar-port: seeded

total_data, batch_size, input_size, hidden_size = 1000, 16, 1, 32
a = 2
is_clip = False # 控制是否开启梯度裁剪

weight1 = paddle.randn([input_size, hidden_size]) + a # 使初始权重产生偏移
bias1 = paddle.randn([hidden_size])
weight_attr_1 = paddle.framework.ParamAttr(
    name="linear_weight_1",
    initializer=paddle.nn.initializer.Assign(weight1),
    need_clip=is_clip)
bias_attr_1 = paddle.framework.ParamAttr(
    name="linear_bias_1",
    initializer=paddle.nn.initializer.Assign(bias1))

weight2 = paddle.randn([hidden_size, hidden_size])
bias2 = paddle.randn([hidden_size])
weight_attr_2 = paddle.framework.ParamAttr(
    name="linear_weight_2",
    initializer=paddle.nn.initializer.Assign(weight2),
    need_clip=is_clip)
bias_attr_2 = paddle.framework.ParamAttr(
    name="linear_bias_2",
    initializer=paddle.nn.initializer.Assign(bias2))

weight3 = paddle.randn([hidden_size, 1])
bias3 = paddle.randn([1])
weight_attr_3 = paddle.framework.ParamAttr(
    name="linear_weight_3",
    initializer=paddle.nn.initializer.Assign(weight3),
    need_clip=is_clip)
bias_attr_3 = paddle.framework.ParamAttr(
    name="linear_bias_3",
    initializer=paddle.nn.initializer.Assign(bias3))

class Net(paddle.nn.Layer):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.linear1 = paddle.nn.Linear(input_size, hidden_size, weight_attr=weight_attr_1, bias_attr=bias_attr_1)
        self.linear2 = paddle.nn.Linear(hidden_size, hidden_size, weight_attr=weight_attr_2, bias_attr=bias_attr_2)
        self.linear3 = paddle.nn.Linear(hidden_size, 1, weight_attr=weight_attr_3, bias_attr=bias_attr_3)

    # 执行前向计算
    def forward(self, inputs):
        x = self.linear1(inputs)
        x = self.linear2(x)
        x = self.linear3(x)
        return x


x_data = np.random.randn(total_data, input_size).astype(np.float32)
y_data = x_data + 3 # y 和 x 是线性关系

model = Net(input_size, hidden_size)

clip = paddle.nn.ClipGradByNorm(clip_norm=1.0) # 创建 ClipGradByNorm 类的实例，指定 L2 范数阈值
loss_fn = paddle.nn.MSELoss(reduction='mean')
optimizer = paddle.optimizer.SGD(learning_rate=0.01,
                                parameters=model.parameters(),
                                grad_clip=clip) # 将创建的 ClipGradByNorm 类的实例传入优化器 SGD 中

def train():
    for t in range(5):  # oar-port: 100 -> 5 steps
        idx = np.random.choice(total_data, batch_size, replace=False)
        x = paddle.to_tensor(x_data[idx,:])
        label = paddle.to_tensor(y_data[idx,:])
        pred = model(x)
        loss = loss_fn(pred, label)
        loss.backward()
        print("step: ", t, "    loss: ", loss.numpy())
        print("grad: ", model.linear1.weight.grad)
        optimizer.step()
        optimizer.clear_grad()

train()
