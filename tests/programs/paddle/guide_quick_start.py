"""Paddle guide "10分钟快速上手飞桨" (quick start), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/quick_start_cn.ipynb (Apache-2.0), code cells
3, 10, 13, 16, 19, 23, 26 in order (cell 7 repeats all of them in one cell and is left out; cells
1 and 5 are pip installs). Changes, each marked `# oar-port:`: MNIST's idx-ubyte files
written from scikit-learn's digits upscaled to 28x28 and passed as image_path=/label_path=; epochs
5 -> 1; plotting dropped; seeded; the notebook's displayed values (summary, evaluate) are printed. Losses and predictions depend on the init and
are compared by shape only; the version line is not compared.
"""
import paddle

print(paddle.__version__)

import numpy as np  # oar-port: from the left-out cell 7 (cell 26 uses np)


# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
from tests.programs.digits_mnist import digits_mnist_files

train_images, train_labels, test_images, test_labels = digits_mnist_files()

import paddle
from paddle.vision.transforms import Normalize

transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 下载数据集并初始化 DataSet
train_dataset = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode="train", transform=transform)
test_dataset = paddle.vision.datasets.MNIST(
    image_path=test_images, label_path=test_labels,  # oar-port: the files written above
    mode="test", transform=transform)

# 打印数据集里图片数量
print(
    "{} images in train_dataset, {} images in test_dataset".format(
        len(train_dataset), len(test_dataset)
    )
)

paddle.seed(2022)  # oar-port: seeded (the guide does not seed)
# 模型组网并初始化网络
lenet = paddle.vision.models.LeNet(num_classes=10)

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
