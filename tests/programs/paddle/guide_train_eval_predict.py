"""Paddle guide "模型训练、评估与推理" (train, evaluate, predict), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/train_eval_predict_cn.ipynb (Apache-2.0), code
cells 4-31 in order (cell 2 is a pip install). Changes, each marked `# oar-port:`: MNIST's
idx-ubyte files written from scikit-learn's digits upscaled to 28x28 and passed as
image_path=/label_path=; epochs 5 -> 1, print intervals 900/30 -> 2/1 (the data set is small);
the notebook's displayed values are printed; plotting dropped; seeded. Loss/accuracy/logit values
depend on the random init and are compared by shape only.
"""
import paddle

# 指定在 CPU 上训练
print(paddle.device.set_device("cpu"))  # oar-port: print the displayed value

# 指定在 GPU 第 0 号卡上训练
# paddle.device.set_device('gpu:0')

# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
from tests.programs.digits_mnist import digits_mnist_files

train_images, train_labels, test_images, test_labels = digits_mnist_files()

paddle.seed(2022)  # oar-port: seeded
from paddle.vision.transforms import Normalize

transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 加载 MNIST 训练集和测试集
train_dataset = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode="train", transform=transform)
test_dataset = paddle.vision.datasets.MNIST(
    image_path=test_images, label_path=test_labels,  # oar-port: the files written above
    mode="test", transform=transform)

# 模型组网，构建并初始化一个模型 mnist
mnist = paddle.nn.Sequential(
    paddle.nn.Flatten(1, -1),
    paddle.nn.Linear(784, 512),
    paddle.nn.ReLU(),
    paddle.nn.Dropout(0.2),
    paddle.nn.Linear(512, 10),
)

# 封装模型为一个 model 实例，便于进行后续的训练、评估和推理
model = paddle.Model(mnist)

# 为模型训练做准备，设置优化器及其学习率，并将网络的参数传入优化器，设置损失函数和精度计算方式
model.prepare(
    optimizer=paddle.optimizer.Adam(
        learning_rate=0.001, parameters=model.parameters()
    ),
    loss=paddle.nn.CrossEntropyLoss(),
    metrics=paddle.metric.Accuracy(),
)

# 启动模型训练，指定训练数据集，设置训练轮次，设置每次数据集计算的批次大小，设置日志格式
model.fit(train_dataset, epochs=1, batch_size=64, verbose=1)  # oar-port: epochs 5 -> 1

# 用 evaluate 在测试集上对模型进行验证
eval_result = model.evaluate(test_dataset, verbose=1)
print(eval_result)

# 用 predict 在测试集上对模型进行推理
test_result = model.predict(test_dataset)
# 由于模型是单一输出，test_result的形状为[1, 10000]，10000是测试数据集的数据量。这里打印第一个数据的结果
print(len(test_result))
print(test_result[0][0])

# 从测试集中取出一张图片
img, label = test_dataset[0]

# 打印推理结果，这里的argmax函数用于取出预测值中概率最高的一个的下标，作为预测标签
pred_label = test_result[0][0].argmax()
print("true label: {}, pred label: {}".format(label[0], pred_label))
# oar-port: plt.imshow(img[0]) dropped

# dataset与mnist的定义与使用高层API的内容一致
# 用 DataLoader 实现数据加载
train_loader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True)

# 将mnist模型及其所有子层设置为训练模式。这只会影响某些模块，如Dropout和BatchNorm。
mnist.train()

# 设置迭代次数
epochs = 1  # oar-port: 5 -> 1

# 设置优化器
optim = paddle.optimizer.Adam(parameters=mnist.parameters())
# 设置损失函数
loss_fn = paddle.nn.CrossEntropyLoss()
for epoch in range(epochs):
    for batch_id, data in enumerate(train_loader()):
        x_data = data[0]  # 训练数据
        y_data = data[1]  # 训练数据标签
        predicts = mnist(x_data)  # 预测结果

        # 计算损失 等价于 prepare 中loss的设置
        loss = loss_fn(predicts, y_data)

        # 计算准确率 等价于 prepare 中metrics的设置
        acc = paddle.metric.accuracy(predicts, y_data)

        # 下面的反向传播、打印训练信息、更新参数、梯度清零都被封装到 Model.fit() 中
        # 反向传播
        loss.backward()

        if (batch_id + 1) % 2 == 0:  # oar-port: 900 -> 2
            print(
                "epoch: {}, batch_id: {}, loss is: {}, acc is: {}".format(
                    epoch, batch_id + 1, loss.numpy(), acc.numpy()
                )
            )
        # 更新参数
        optim.step()
        # 梯度清零
        optim.clear_grad()

# 加载测试数据集
test_loader = paddle.io.DataLoader(test_dataset, batch_size=64, drop_last=True)
# 设置损失函数
loss_fn = paddle.nn.CrossEntropyLoss()
# 将该模型及其所有子层设置为预测模式。这只会影响某些模块，如Dropout和BatchNorm
mnist.eval()
# 禁用动态图梯度计算
for batch_id, data in enumerate(test_loader()):
    x_data = data[0]  # 测试数据
    y_data = data[1]  # 测试数据标签
    predicts = mnist(x_data)  # 预测结果

    # 计算损失与精度
    loss = loss_fn(predicts, y_data)
    acc = paddle.metric.accuracy(predicts, y_data)

    # 打印信息
    if (batch_id + 1) % 1 == 0:  # oar-port: 30 -> 1
        print(
            "batch_id: {}, loss is: {}, acc is: {}".format(
                batch_id + 1, loss.numpy(), acc.numpy()
            )
        )

# 加载测试数据集
test_loader = paddle.io.DataLoader(test_dataset, batch_size=64, drop_last=True)
# 将该模型及其所有子层设置为预测模式
mnist.eval()
for batch_id, data in enumerate(test_loader()):
    # 取出测试数据
    x_data = data[0]
    # 获取预测结果
    predicts = mnist(x_data)
print("predict finished")

# 从测试集中取出一组数据
img, label = next(test_loader())  # oar-port: test_loader().next() (py2 spelling; fails on paddle 3.3.1 too)

# 执行推理并打印结果
pred_label = mnist(img)[0].argmax()
print(
    "true label: {}, pred label: {}".format(
        label[0].item(), pred_label.item()  # oar-port: pred_label[0].item() (argmax is 0-d since paddle 3; IndexError on 3.3.1)
    )
)
# oar-port: plt.imshow(img[0][0]) dropped

from paddle.vision.models import LeNet


class FaceNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        # 使用高层API组网
        self.backbone = LeNet()
        # 使用基础API组网
        self.outLayer1 = paddle.nn.Sequential(
            paddle.nn.Linear(10, 512), paddle.nn.ReLU(), paddle.nn.Dropout(0.2)
        )
        self.outLayer2 = paddle.nn.Linear(512, 10)

    def forward(self, inputs):
        out = self.backbone(inputs)
        out = self.outLayer1(out)
        out = self.outLayer2(out)
        return out


# 使用高层API封装网络
model = paddle.Model(FaceNet())
# 使用基础API定义优化器
optim = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
# 使用高层API封装优化器和损失函数
model.prepare(
    optim, paddle.nn.CrossEntropyLoss(), metrics=paddle.metric.Accuracy()
)
# 使用高层API训练网络
model.fit(train_dataset, test_dataset, epochs=1, batch_size=64, verbose=1)  # oar-port: epochs 5 -> 1
