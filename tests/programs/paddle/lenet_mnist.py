"""LeNet trained on MNIST-format files through paddle.vision and paddle.Model (our own program).

The code after the data preparation is the Paddle guide's (docs/guides/beginner/quick_start_cn,
Apache-2.0): paddle.vision.datasets.MNIST over idx-ubyte .gz files with the guide's Normalize,
paddle.vision.models.LeNet, paddle.Model with Adam, CrossEntropyLoss and Accuracy, fit, evaluate,
predict. Changes, each marked `# oar-port:`: the MNIST files are written here from scikit-learn's
digits (each 8x8 image upscaled to 28x28 as guide_quick_start does; counts are multiples of 100,
which Paddle's MNIST reader needs); the weights are drawn from a NumPy RandomState, so the real
paddle and oar start from the same numbers; shuffle=False; every step's loss is printed by a
callback, so that the two loss curves are compared.
"""
import gzip
import os
import struct

import numpy as np
import paddle
from paddle.vision.transforms import Normalize
from sklearn.datasets import load_digits


# oar-port: write MNIST's idx-ubyte .gz files from scikit-learn's digits
def write_mnist(folder, images, labels, prefix):
    image_path = os.path.join(folder, prefix + "-images-idx3-ubyte.gz")
    label_path = os.path.join(folder, prefix + "-labels-idx1-ubyte.gz")
    with gzip.open(image_path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, len(images), 28, 28) + images.tobytes())
    with gzip.open(label_path, "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.tobytes())
    return image_path, label_path


digits = load_digits()
pixels = np.pad(np.kron(digits.images, np.ones((3, 3))), ((0, 0), (2, 2), (2, 2))) * (255.0 / 16.0)
pixels = np.round(pixels).astype("uint8")
targets = digits.target.astype("uint8")
os.makedirs("mnist", exist_ok=True)
train_files = write_mnist("mnist", pixels[:600], targets[:600], "train")
test_files = write_mnist("mnist", pixels[1500:1700], targets[1500:1700], "t10k")

transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
# 下载数据集并初始化 DataSet (oar-port: the files written above)
train_dataset = paddle.vision.datasets.MNIST(
    image_path=train_files[0], label_path=train_files[1], mode="train", transform=transform)
test_dataset = paddle.vision.datasets.MNIST(
    image_path=test_files[0], label_path=test_files[1], mode="test", transform=transform)
print("{} images in train_dataset, {} images in test_dataset".format(
    len(train_dataset), len(test_dataset)))
img, label = train_dataset[0]
print("item:", type(img).__name__, img.dtype, img.shape, label.dtype, label.shape, label)
print("pixels:", float(img.min()), float(img.max()), float(img.mean()))

# 模型组网并初始化网络
lenet = paddle.vision.models.LeNet(num_classes=10)

# oar-port: the same weights in both runs, drawn from NumPy
rng = np.random.RandomState(0)
for name, param in lenet.state_dict().items():
    fan_in = int(np.prod(param.shape[1:])) if len(param.shape) > 1 else 1
    if name.startswith("fc.") and name.endswith("weight"):  # Linear weights are [in, out]
        fan_in = param.shape[0]
    bound = 1.0 / np.sqrt(fan_in)
    param.set_value(rng.uniform(-bound, bound, param.shape).astype("float32"))
print("parameters:", [(k, list(v.shape)) for k, v in lenet.state_dict().items()])


# oar-port: print each step's loss
class PrintLoss(paddle.callbacks.Callback):
    def on_train_batch_end(self, step, logs=None):
        print("step", step, "loss:", "%.6f" % float(np.asarray(logs["loss"]).reshape(-1)[0]))

    def on_epoch_end(self, epoch, logs=None):
        print("epoch", epoch, "acc:", "%.6f" % logs["acc"])


# 封装模型，便于进行后续的训练、评估和推理
model = paddle.Model(lenet)

# 模型训练的配置准备，准备损失函数，优化器和评价指标
model.prepare(
    paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()),
    paddle.nn.CrossEntropyLoss(),
    paddle.metric.Accuracy(),
)

# 开始训练
model.fit(train_dataset, epochs=2, batch_size=64, shuffle=False, verbose=1,
          callbacks=[PrintLoss()])

# 进行模型评估
result = model.evaluate(test_dataset, batch_size=64, verbose=1)
print("eval loss: %.6f acc: %.6f" % (float(np.asarray(result["loss"]).reshape(-1)[0]),
                                     result["acc"]))

# 执行推理
outputs = model.predict(test_dataset, batch_size=64)
logits = np.concatenate(outputs[0])
print("predict:", len(outputs), len(outputs[0]), logits.shape, logits.dtype)
print("pred labels:", logits.argmax(axis=1)[:20].tolist())
print("logits[0]:", np.round(logits[0], 5).tolist())
print("test accuracy:", float((logits.argmax(axis=1) == targets[1500:1700]).mean()))
