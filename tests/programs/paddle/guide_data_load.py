"""Paddle guide "数据集定义与加载" (datasets and loading), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/data_load_cn.ipynb (Apache-2.0), code cells 2-20
in order. Changes, each marked `# oar-port:`: cell 2's paddle.text line dropped (oar has no
paddle.text); MNIST's idx-ubyte files written from scikit-learn's digits upscaled to 28x28 and
passed as image_path=/label_path=; cell 10 (wget of mnist.tar) replaced by writing the same digits
as .png files plus label.txt in the archive's layout; plotting dropped. Lines printing random
indices are compared by shape only. The custom Dataset reads its images with cv2.imread as
written (the harness supplies a Pillow-backed cv2.imread where OpenCV is not installed).
"""
import paddle


# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
import numpy as np
from tests.programs.digits_mnist import digits_mnist_files, digits_pixels

train_images, train_labels, test_images, test_labels = digits_mnist_files()
pixels, targets = digits_pixels()

print("计算机视觉（CV）相关数据集：", paddle.vision.datasets.__all__)
# oar-port: print("自然语言处理（NLP）相关数据集：", paddle.text.__all__) dropped: oar has no paddle.text

from paddle.vision.transforms import Normalize

# 定义图像归一化处理方法，这里的CHW指图像格式需为 [C通道数，H图像高度，W图像宽度]
transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 下载数据集并初始化 DataSet
train_dataset = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode="train", transform=transform)
test_dataset = paddle.vision.datasets.MNIST(
    image_path=test_images, label_path=test_labels,  # oar-port: the files written above
    mode="test", transform=transform)
print(
    "train images: ", len(train_dataset), ", test images: ", len(test_dataset)
)

for data in train_dataset:
    image, label = data
    print("shape of image: ", image.shape)
    break  # oar-port: plt.title / plt.imshow dropped

# oar-port: cell 10 (wget + tar of mnist.tar) replaced by writing digits files in the same layout
import os  # oar-port
from PIL import Image  # oar-port

for _mode, _sl in (("train", slice(0, 300)), ("val", slice(1500, 1700))):
    os.makedirs(os.path.join("mnist", _mode, "imgs"))
    with open(os.path.join("mnist", _mode, "label.txt"), "w", encoding="utf-8") as _f:
        for _i, (_img, _lab) in enumerate(zip(pixels[_sl], targets[_sl])):
            Image.fromarray(_img.astype(np.uint8)).save(
                os.path.join("mnist", _mode, "imgs", "%d.png" % _i))
            _f.write("imgs/%d.png\t%d\n" % (_i, _lab))

import os
import numpy as np
from paddle.io import Dataset

import cv2
from paddle.vision.transforms import Normalize


class MyDataset(Dataset):
    """
    步骤一：继承 paddle.io.Dataset 类
    """

    def __init__(self, data_dir, label_path, transform=None):
        """
        步骤二：实现 __init__ 函数，初始化数据集，将样本和标签映射到列表中
        """
        super().__init__()
        self.data_list = []
        with open(label_path, encoding="utf-8") as f:
            for line in f.readlines():
                image_path, label = line.strip().split("\t")
                image_path = os.path.join(data_dir, image_path)
                self.data_list.append([image_path, label])
        # 传入定义好的数据处理方法，作为自定义数据集类的一个属性
        self.transform = transform

    def __getitem__(self, index):
        """
        步骤三：实现 __getitem__ 函数，定义指定 index 时如何获取数据，并返回单条数据（样本数据、对应的标签）
        """
        # 根据索引，从列表中取出一个图像
        image_path, label = self.data_list[index]
        # 读取灰度图
        image = cv2.imread(image_path, cv2.IMREAD_GRAYSCALE)
        # 飞桨训练时内部数据格式默认为float32，将图像数据格式转换为 float32
        image = image.astype("float32")
        # 应用数据处理方法到图像上
        if self.transform is not None:
            image = self.transform(image)
        # CrossEntropyLoss要求label格式为int，将Label格式转换为 int
        label = int(label)
        # 返回图像和对应标签
        return image, label

    def __len__(self):
        """
        步骤四：实现 __len__ 函数，返回数据集的样本总数
        """
        return len(self.data_list)


# 定义图像归一化处理方法，这里的CHW指图像格式需为 [C通道数，H图像高度，W图像宽度]
transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 打印数据集样本数
train_custom_dataset = MyDataset(
    "mnist/train", "mnist/train/label.txt", transform
)
test_custom_dataset = MyDataset("mnist/val", "mnist/val/label.txt", transform)
print(
    "train_custom_dataset images: ",
    len(train_custom_dataset),
    "test_custom_dataset images: ",
    len(test_custom_dataset),
)

for data in train_custom_dataset:
    image, label = data
    print("shape of image: ", image.shape)
    break  # oar-port: plt.title / plt.imshow dropped

# 定义并初始化数据读取器
train_loader = paddle.io.DataLoader(
    train_custom_dataset,
    batch_size=64,
    shuffle=True,
    num_workers=1,
    drop_last=True,
)

# 调用 DataLoader 迭代读取数据
for batch_id, data in enumerate(train_loader()):
    images, labels = data
    print(
        "batch_id: {}, 训练数据shape: {}, 标签数据shape: {}".format(
            batch_id, images.shape, labels.shape
        )
    )
    break

from paddle.io import BatchSampler

# 定义一个批采样器，并设置采样的数据集源、采样批大小、是否乱序等
bs = BatchSampler(
    train_custom_dataset, batch_size=8, shuffle=True, drop_last=True
)

print("BatchSampler 每轮迭代返回一个索引列表")
for batch_indices in bs:
    print(batch_indices)
    break

# 在 DataLoader 中使用 BatchSampler 获取采样数据
train_loader = paddle.io.DataLoader(
    train_custom_dataset, batch_sampler=bs, num_workers=1
)

print("在 DataLoader 中使用 BatchSampler，返回索引对应的一组样本和标签数据 ")
for batch_id, data in enumerate(train_loader()):
    images, labels = data
    print(
        "batch_id: {}, 训练数据shape: {}, 标签数据shape: {}".format(
            batch_id, images.shape, labels.shape
        )
    )
    break

from paddle.io import (
    SequenceSampler,
    RandomSampler,
    BatchSampler,
    DistributedBatchSampler,
)


class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __getitem__(self, idx):
        image = np.random.random([784]).astype("float32")
        label = np.random.randint(0, 9, (1,)).astype("int64")
        return image, label

    def __len__(self):
        return self.num_samples


train_dataset = RandomDataset(100)

print("-----------------顺序采样----------------")
sampler = SequenceSampler(train_dataset)
batch_sampler = BatchSampler(sampler=sampler, batch_size=10)

for index in batch_sampler:
    print(index)

print("-----------------随机采样----------------")
sampler = RandomSampler(train_dataset)
batch_sampler = BatchSampler(sampler=sampler, batch_size=10)

for index in batch_sampler:
    print(index)

print("-----------------分布式采样----------------")
batch_sampler = DistributedBatchSampler(
    train_dataset, num_replicas=2, batch_size=10
)

for index in batch_sampler:
    print(index)
