"""Paddle guide "模型组网" (building models), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/model_cn.ipynb (Apache-2.0), code cells 2-23 in
order. Changes, each marked `# oar-port:`: the notebook's displayed values are printed; a seed is
set (shapes and tables are compared).
"""
import paddle

paddle.seed(2022)  # oar-port: seeded

print("飞桨框架内置模型：", paddle.vision.models.__all__)

# 模型组网并初始化网络
lenet = paddle.vision.models.LeNet(num_classes=10)

# 可视化模型组网结构和参数
print(paddle.summary(lenet, (1, 1, 28, 28)))  # oar-port: print the displayed value

from paddle import nn

# 使用 paddle.nn.Sequential 构建 LeNet 模型
lenet_Sequential = nn.Sequential(
    nn.Conv2D(1, 6, 3, stride=1, padding=1),
    nn.ReLU(),
    nn.MaxPool2D(2, 2),
    nn.Conv2D(6, 16, 5, stride=1, padding=0),
    nn.ReLU(),
    nn.MaxPool2D(2, 2),
    nn.Flatten(),
    nn.Linear(400, 120),
    nn.Linear(120, 84),
    nn.Linear(84, 10),
)
# 可视化模型组网结构和参数
print(paddle.summary(lenet_Sequential, (1, 1, 28, 28)))  # oar-port: print the displayed value


# 使用 Subclass 方式构建 LeNet 模型
class LeNet(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        # 构建 features 子网，用于对输入图像进行特征提取
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0),
            nn.ReLU(),
            nn.MaxPool2D(2, 2),
        )
        # 构建 linear 子网，用于分类
        if num_classes > 0:
            self.linear = nn.Sequential(
                nn.Linear(400, 120),
                nn.Linear(120, 84),
                nn.Linear(84, num_classes),
            )

    # 执行前向计算
    def forward(self, inputs):
        x = self.features(inputs)

        if self.num_classes > 0:
            x = paddle.flatten(x, 1)
            x = self.linear(x)
        return x


lenet_SubClass = LeNet()

# 可视化模型组网结构和参数
params_info = paddle.summary(lenet_SubClass, (1, 1, 28, 28))
print(params_info)

x = paddle.uniform((2, 3, 8, 8), dtype="float32", min=-1.0, max=1.0)

conv = nn.Conv2D(
    3, 6, (3, 3), stride=2
)  # 卷积层输入通道数为3，输出通道数为6，卷积核尺寸为3*3，步长为2
y = conv(x)  # 输入数据x
y = y.numpy()
print(y.shape)

x = paddle.uniform((2, 3, 8, 8), dtype="float32", min=-1.0, max=1.0)

pool = nn.MaxPool2D(3, stride=2)  # 池化核尺寸为3*3，步长为2
y = pool(x)  # 输入数据x
y = y.numpy()
print(y.shape)

x = paddle.uniform((2, 6), dtype="float32", min=-1.0, max=1.0)
linear = paddle.nn.Linear(6, 4)
y = linear(x)
print(y.shape)

x = paddle.to_tensor([-2.0, 0.0, 1.0])
relu = paddle.nn.ReLU()
y = relu(x)
print(y)

for name, param in lenet.named_parameters():
    print(f"Layer: {name} | Size: {param.shape}")
