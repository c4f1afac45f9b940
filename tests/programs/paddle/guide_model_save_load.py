"""Paddle guide "模型保存与载入" (saving and loading), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/model_save_load_cn.ipynb (Apache-2.0), code cells
4-14 in order. Changes, each marked `# oar-port:`: MNIST's idx-ubyte files are written from
scikit-learn's digits upscaled to 28x28 and passed as image_path=/label_path=; cell 14 saves an
inference model through paddle.jit (static graph) and cells 16-32 are static-graph
(paddle.enable_static, paddle.static) -- dropped. Losses depend on random data/init and are
compared by shape only.
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

# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
from tests.programs.digits_mnist import digits_mnist_files

train_images, train_labels, test_images, test_labels = digits_mnist_files()

import paddle
import paddle.nn as nn
import paddle.vision.transforms as T
from paddle.vision.models import LeNet

model = paddle.Model(LeNet())
optim = paddle.optimizer.SGD(learning_rate=1e-3, parameters=model.parameters())
model.prepare(optim, paddle.nn.CrossEntropyLoss())

transform = T.Compose([T.Transpose(), T.Normalize([127.5], [127.5])])
data = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode="train", transform=transform)

# 方式一：设置训练过程中保存模型
model.fit(data, epochs=1, batch_size=32, save_freq=1)

# 方式二：设置训练后保存模型
model.save("checkpoint/test")  # save for training
import os  # oar-port: for the listing below

print(sorted(os.listdir("checkpoint")))  # oar-port: show what was saved

import paddle
import paddle.nn as nn
import paddle.vision.transforms as T
from paddle.vision.models import LeNet

model = paddle.Model(LeNet())
optim = paddle.optimizer.SGD(learning_rate=1e-3, parameters=model.parameters())
model.prepare(optim, paddle.nn.CrossEntropyLoss())

transform = T.Compose([T.Transpose(), T.Normalize([127.5], [127.5])])
data = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode="train", transform=transform)
# 加载模型参数和优化器参数
model.load("checkpoint/test")
model.fit(data, epochs=1, batch_size=32, save_freq=1)

model.save("checkpoint/test_1")  # save for training
print(sorted(os.listdir("checkpoint")))  # oar-port: show what was saved

# oar-port: cell 14, model.save("inference_model", False), goes through paddle.jit (static
# graph) and cells 16-32 use paddle.enable_static / paddle.static: dropped
