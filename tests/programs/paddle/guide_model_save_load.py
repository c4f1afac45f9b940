"""Paddle guide "模型保存与载入" (saving and loading), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/model_save_load_cn.ipynb (Apache-2.0), code cells
4-14 in order. Changes, each marked `# oar-port:`: cells 10-14 use vision.models.LeNet, vision.transforms and MNIST -> a copy of Paddle's LeNet
source, numpy transforms and scikit-learn digits upscaled to 1x28x28; cell 14 saves an inference
model through paddle.jit (static graph) and cells 16-32 are static-graph (paddle.enable_static,
paddle.static) -- dropped. Losses depend on random data/init and are compared by shape only.
"""

import numpy as np
import paddle
import paddle.nn as nn
import paddle.optimizer as opt

paddle.seed(2022)  # oar-port: seeded
BATCH_SIZE = 16
BATCH_NUM = 4
EPOCH_NUM = 4

IMAGE_SIZE = 784
CLASS_NUM = 10

final_checkpoint = dict()


# 定义一个随机数据集
class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __getitem__(self, idx):
        image = np.random.random([IMAGE_SIZE]).astype("float32")
        label = np.random.randint(0, CLASS_NUM - 1, (1,)).astype("int64")
        return image, label

    def __len__(self):
        return self.num_samples


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IMAGE_SIZE, CLASS_NUM)

    def forward(self, x):
        return self._linear(x)


def train(layer, loader, loss_fn, opt):
    for epoch_id in range(EPOCH_NUM):
        for batch_id, (image, label) in enumerate(loader()):
            out = layer(image)
            loss = loss_fn(out, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            print(
                "Epoch {} batch {}: loss = {}".format(
                    epoch_id, batch_id, np.mean(loss.numpy())
                )
            )
        # 最后一个epoch保存检查点checkpoint
        if epoch_id == EPOCH_NUM - 1:
            final_checkpoint["epoch"] = epoch_id
            final_checkpoint["loss"] = loss


# 创建网络、loss和优化器
layer = LinearNet()
loss_fn = nn.CrossEntropyLoss()
adam = opt.Adam(learning_rate=0.001, parameters=layer.parameters())

# 创建用于载入数据的DataLoader
dataset = RandomDataset(BATCH_NUM * BATCH_SIZE)
loader = paddle.io.DataLoader(
    dataset, batch_size=BATCH_SIZE, shuffle=True, drop_last=True, num_workers=2
)

# 开始训练
train(layer, loader, loss_fn, adam)

# 保存Layer参数
paddle.save(layer.state_dict(), "linear_net.pdparams")
# 保存优化器参数
paddle.save(adam.state_dict(), "adam.pdopt")
# 保存检查点checkpoint信息
paddle.save(final_checkpoint, "final_checkpoint.pkl")

# 载入模型参数、优化器参数和最后一个epoch保存的检查点
layer_state_dict = paddle.load("linear_net.pdparams")
opt_state_dict = paddle.load("adam.pdopt")
final_checkpoint_dict = paddle.load("final_checkpoint.pkl")

# 将load后的参数与模型关联起来
layer.set_state_dict(layer_state_dict)
adam.set_state_dict(opt_state_dict)

# 打印出来之前保存的 checkpoint 信息
print(
    "Loaded Final Checkpoint. Epoch : {}, Loss : {}".format(
        final_checkpoint_dict["epoch"], final_checkpoint_dict["loss"].numpy()
    )
)
# oar-port: check that the loaded parameters are the saved ones (the guide only prints)
print(all(np.array_equal(layer.state_dict()[k].numpy(), v.numpy()) for k, v in layer_state_dict.items()))

import paddle
import paddle.nn as nn

# oar-port: `import paddle.vision.transforms as T` and `from paddle.vision.models import LeNet`
# replaced by numpy code and a copy of Paddle's LeNet source
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
    mean = np.array(mean, dtype="float32").reshape(-1, 1, 1)
    std = np.array(std, dtype="float32").reshape(-1, 1, 1)
    return lambda img: (img - mean) / std

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


# oar-port: T.Compose([T.Transpose(), T.Normalize([127.5], [127.5])]) on MNIST's HWC uint8 images;
# the digits images are already CHW
def transform(img):
    return (img - 127.5) / 127.5


model = paddle.Model(LeNet())
optim = paddle.optimizer.SGD(learning_rate=1e-3, parameters=model.parameters())
model.prepare(optim, paddle.nn.CrossEntropyLoss())

data = DigitsMNIST(mode="train", transform=transform)  # oar-port: digits

# 方式一：设置训练过程中保存模型
model.fit(data, epochs=1, batch_size=32, save_freq=1)

# 方式二：设置训练后保存模型
model.save("checkpoint/test")  # save for training
import os  # oar-port: for the listing below

print(sorted(os.listdir("checkpoint")))  # oar-port: show what was saved

model = paddle.Model(LeNet())
optim = paddle.optimizer.SGD(learning_rate=1e-3, parameters=model.parameters())
model.prepare(optim, paddle.nn.CrossEntropyLoss())

data = DigitsMNIST(mode="train", transform=transform)  # oar-port: digits
# 加载模型参数和优化器参数
model.load("checkpoint/test")
model.fit(data, epochs=1, batch_size=32, save_freq=1)

model.save("checkpoint/test_1")  # save for training
print(sorted(os.listdir("checkpoint")))  # oar-port: show what was saved

# oar-port: cell 14, model.save("inference_model", False), goes through paddle.jit (static
# graph) and cells 16-32 use paddle.enable_static / paddle.static: dropped
