"""Paddle guide "10分钟快速上手飞桨" (quick start), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/quick_start_cn.ipynb (Apache-2.0), code cells
3, 10, 13, 16, 19, 23, 26 in order (cell 7 repeats all of them in one cell and is left out; cells
1 and 5 are pip installs). Changes, each marked `# oar-port:`: MNIST -> scikit-learn digits
upscaled to 1x28x28; Normalize and vision.models.LeNet (oar has no paddle.vision) as numpy code /
a copy of Paddle's LeNet source; epochs 5 -> 1; plotting dropped; seeded; the notebook's
displayed values (summary, evaluate) are printed. Losses and predictions depend on the init and
are compared by shape only; the version line is not compared.
"""
import paddle

print(paddle.__version__)

import numpy as np  # oar-port: from the left-out cell 7 (cell 26 uses np)


# oar-port: paddle.vision.datasets.MNIST (a 60000-image download) swapped for a small Dataset
# over scikit-learn's digits, each 8x8 image upscaled to MNIST's 1x28x28 (np.kron by 3, padded by 2,
# scaled to 0..255) so the guide's layer sizes stay as written; a few hundred images keep it fast.
import numpy as np
from sklearn.datasets import load_digits


class DigitsMNIST(paddle.io.Dataset):
    def __init__(self, mode="train", transform=None):
        super().__init__()
        d = load_digits()
        imgs = np.pad(np.kron(d.images, np.ones((3, 3))), ((0, 0), (2, 2), (2, 2))) * (255.0 / 16.0)
        sl = slice(0, 256) if mode == "train" else slice(1500, 1628)
        self.images = imgs[sl].astype("float32")[:, None]
        self.labels = d.target[sl].astype("int64")
        self.transform = transform

    def __getitem__(self, idx):
        image = self.images[idx]
        if self.transform is not None:
            image = self.transform(image)
        return image.astype("float32"), np.array([self.labels[idx]]).astype("int64")

    def __len__(self):
        return len(self.labels)


# oar-port: paddle.vision.transforms.Normalize(mean=[127.5], std=[127.5], data_format="CHW") as numpy
def Normalize(mean, std, data_format="CHW"):
    return lambda img: (img - np.float32(mean[0])) / np.float32(std[0])

# oar-port: paddle.vision.models.LeNet (oar has no paddle.vision) copied from Paddle's source
# (python/paddle/vision/models/lenet.py, Apache-2.0), unchanged.
class LeNet(paddle.nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = paddle.nn.Sequential(
            paddle.nn.Conv2D(1, 6, 3, stride=1, padding=1),
            paddle.nn.ReLU(),
            paddle.nn.MaxPool2D(2, 2),
            paddle.nn.Conv2D(6, 16, 5, stride=1, padding=0),
            paddle.nn.ReLU(),
            paddle.nn.MaxPool2D(2, 2),
        )
        if num_classes > 0:
            self.fc = paddle.nn.Sequential(
                paddle.nn.Linear(400, 120),
                paddle.nn.Linear(120, 84),
                paddle.nn.Linear(84, num_classes),
            )

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = paddle.flatten(x, 1)
            x = self.fc(x)
        return x


transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 下载数据集并初始化 DataSet
train_dataset = DigitsMNIST(mode="train", transform=transform)  # oar-port: digits
test_dataset = DigitsMNIST(mode="test", transform=transform)  # oar-port: digits

# 打印数据集里图片数量
print(
    "{} images in train_dataset, {} images in test_dataset".format(
        len(train_dataset), len(test_dataset)
    )
)

paddle.seed(2022)  # oar-port: seeded (the guide does not seed)
# 模型组网并初始化网络
lenet = LeNet(num_classes=10)  # oar-port: paddle.vision.models.LeNet

# 可视化模型组网结构和参数
print(paddle.summary(lenet, (1, 1, 28, 28)))  # oar-port: print the notebook's displayed value

# 封装模型，便于进行后续的训练、评估和推理
model = paddle.Model(lenet)

# 模型训练的配置准备，准备损失函数，优化器和评价指标
model.prepare(
    paddle.optimizer.Adam(parameters=model.parameters()),
    paddle.nn.CrossEntropyLoss(),
    paddle.metric.Accuracy(),
)

# 开始训练
model.fit(train_dataset, epochs=1, batch_size=64, verbose=1)  # oar-port: epochs 5 -> 1

# 进行模型评估
print(model.evaluate(test_dataset, batch_size=64, verbose=1))  # oar-port: print the displayed value

# 保存模型，文件夹会自动创建
model.save("./output/mnist")

# 加载模型
model.load("output/mnist")

# 从测试集中取出一张图片
img, label = test_dataset[0]
# 将图片shape从1*28*28变为1*1*28*28，增加一个batch维度，以匹配模型输入格式要求
img_batch = np.expand_dims(img.astype("float32"), axis=0)

# 执行推理并打印结果，此处predict_batch返回的是一个list，取出其中数据获得预测结果
out = model.predict_batch(img_batch)[0]
pred_label = out.argmax()
print("true label: {}, pred label: {}".format(label[0], pred_label))
# oar-port: the matplotlib display (plt.imshow(img[0])) is dropped
