"""Paddle guide "Tensor 介绍" (introduction to Tensor), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/tensor_cn.md (Apache-2.0), python blocks 1-33 in
order. Changes, each marked `# oar-port:`: block 0 (a fragment using undefined train_loader and
LeNet) dropped; blocks 5-6 are API templates with placeholders (m, n, start, ...) -> given values;
block 8's random image is seeded; block 9's MNIST idx-ubyte files are written from
scikit-learn's digits upscaled to 28x28 and passed as image_path=/label_path=; blocks 19-20 need
a GPU: dropped; listing blocks 24-27 (results not shown) are printed; a name counter differs by
construction, so tensor names are printed only as prefixes.
"""
import paddle # 后面的示例代码默认已导入 paddle 模块
ndim_1_Tensor = paddle.to_tensor([2.0, 3.0, 4.0])
print(ndim_1_Tensor)

print(paddle.to_tensor(2))  # oar-port: print the displayed values
print(paddle.to_tensor([2]))  # oar-port

ndim_2_Tensor = paddle.to_tensor([[1.0, 2.0, 3.0],
                                  [4.0, 5.0, 6.0]])
print(ndim_2_Tensor)

ndim_3_Tensor = paddle.to_tensor([[[1, 2, 3, 4, 5],
                                   [6, 7, 8, 9, 10]],
                                  [[11, 12, 13, 14, 15],
                                   [16, 17, 18, 19, 20]]])
print(ndim_3_Tensor)

m, n = 2, 3  # oar-port: values for the template's placeholders
print(paddle.zeros([m, n]))             # 创建数据全为 0，形状为 [m, n] 的 Tensor
print(paddle.ones([m, n]))              # 创建数据全为 1，形状为 [m, n] 的 Tensor
print(paddle.full([m, n], 10))          # 创建数据全为 10，形状为 [m, n] 的 Tensor

start, end, step, stop, num = 1, 5, 1, 5, 5  # oar-port: values for the placeholders
print(paddle.arange(start, end, step))  # 创建以步长 step 均匀分隔区间[start, end)的 Tensor
print(paddle.linspace(start, stop, num)) # 创建以元素个数 num 均匀分隔区间[start, stop)的 Tensor

print(paddle.arange(start=1, end=5, step=1))  # oar-port: print

import numpy as np
from PIL import Image
import paddle.vision.transforms as T
import paddle.vision.transforms.functional as F

np.random.seed(2022)  # oar-port: seeded
fake_img = Image.fromarray((np.random.rand(224, 224, 3) * 255.).astype(np.uint8)) # 创建随机图片
transform = T.ToTensor()
tensor = transform(fake_img) # 使用 ToTensor()将图片转换为 Tensor
print(tensor)

# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
from tests.programs.digits_mnist import digits_mnist_files

train_images, train_labels, test_images, test_labels = digits_mnist_files()

import paddle

from paddle.vision.transforms import Compose, Normalize

transform = Compose([Normalize(mean=[127.5],
                               std=[127.5],
                               data_format='CHW')])

test_dataset = paddle.vision.datasets.MNIST(
    image_path=test_images, label_path=test_labels,  # oar-port: the files written above
    mode='test', transform=transform)
print(test_dataset[0][1]) # 打印原始数据集的第一个数据的 label
loader = paddle.io.DataLoader(test_dataset)
for data in enumerate(loader):
    x, label = data[1]
    print(label) # 打印由 DataLoader 返回的迭代器中的第一个数据的 label
    break

ndim_4_Tensor = paddle.ones([2, 3, 4, 5])

print("Data Type of every element:", ndim_4_Tensor.dtype)
print("Number of dimensions:", ndim_4_Tensor.ndim)
print("Shape of Tensor:", ndim_4_Tensor.shape)
print("Elements number along axis 0 of Tensor:", ndim_4_Tensor.shape[0])
print("Elements number along the last axis of Tensor:", ndim_4_Tensor.shape[-1])

ndim_1_Tensor = paddle.to_tensor([1, 2, 3])
print("the shape of ndim_1_Tensor:", ndim_1_Tensor.shape)

reshape_Tensor = paddle.reshape(ndim_1_Tensor, [1, 3])
print("After reshape:", reshape_Tensor.shape)

print("Tensor flattened to Vector:", paddle.reshape(ndim_3_Tensor, [-1]).numpy())

origin_tensor = paddle.to_tensor([1, 2, 3])
new_tensor = paddle.reshape(origin_tensor, [1, 3]) # 非原位操作
same_tensor = paddle.reshape_(origin_tensor, [1, 3]) # 原位操作
print("origin_tensor name: ", origin_tensor.name.rstrip("0123456789"))  # oar-port: prefix only
print("new_tensor name: ", new_tensor.name.rstrip("0123456789"))  # oar-port: prefix only
print("same_tensor name: ", same_tensor.name.rstrip("0123456789"))  # oar-port: prefix only
print(origin_tensor.name == same_tensor.name, origin_tensor.name == new_tensor.name)  # oar-port

# 创建 Tensor 时指定 dtype
ndim_1_tensor = paddle.to_tensor([2.0, 3.0, 4.0], dtype='float64')
print("Tensor dtype of ndim_1_tensor:", ndim_1_tensor.dtype)
# 创建 Tensor 时不指定 dtype，自动选择对应的默认类型
print("Tensor dtype from Python integers:", paddle.to_tensor(1).dtype)
print("Tensor dtype from Python floating point:", paddle.to_tensor(1.0).dtype)

ndim_2_Tensor = paddle.to_tensor([[(1+1j), (2+2j)],
                                  [(3+3j), (4+4j)]])
print(ndim_2_Tensor)

float32_Tensor = paddle.to_tensor(1.0)

float64_Tensor = paddle.cast(float32_Tensor, dtype='float64')
print("Tensor after cast to float64:", float64_Tensor.dtype)

int64_Tensor = paddle.cast(float32_Tensor, dtype='int64')
print("Tensor after cast to int64:", int64_Tensor.dtype)

cpu_Tensor = paddle.to_tensor(1, place=paddle.CPUPlace())
print(cpu_Tensor.place)

# oar-port: blocks 19-20 (paddle.CUDAPlace(0), paddle.CUDAPinnedPlace()) need a GPU: dropped

print("Tensor name:", paddle.to_tensor(1).name.rstrip("0123456789"))  # oar-port: prefix only

eg = paddle.to_tensor(1)
print("Tensor stop_gradient:", eg.stop_gradient)
eg.stop_gradient = False
print("Tensor stop_gradient:", eg.stop_gradient)

x = paddle.to_tensor([[1.1, 2.2], [3.3, 4.4]], dtype="float64")
y = paddle.to_tensor([[5.5, 6.6], [7.7, 8.8]], dtype="float64")

print(paddle.add(x, y), "\n") # 方法一：使用 Paddle 的 API
print(x.add(y), "\n") # 方法二：使用 tensor 类成员函数

# oar-port: the listing blocks 24-27 show no results; each result is printed
print(x.abs())                       #逐元素取绝对值
print(x.ceil())                      #逐元素向上取整
print(x.floor())                     #逐元素向下取整
print(x.round())                     #逐元素四舍五入
print(x.exp())                       #逐元素计算自然常数为底的指数
print(x.log())                       #逐元素计算 x 的自然对数
print(x.reciprocal())                #逐元素求倒数
print(x.square())                    #逐元素计算平方
print(x.sqrt())                      #逐元素计算平方根
print(x.sin())                       #逐元素计算正弦
print(x.cos())                       #逐元素计算余弦
print(x.add(y))                      #逐元素相加
print(x.subtract(y))                 #逐元素相减
print(x.multiply(y))                 #逐元素相乘
print(x.divide(y))                   #逐元素相除
print(x.mod(y))                      #逐元素相除并取余
print(x.pow(y))                      #逐元素幂运算
print(x.max())                       #指定维度上元素最大值，默认为全部维度
print(x.min())                       #指定维度上元素最小值，默认为全部维度
print(x.prod())                      #指定维度上元素累乘，默认为全部维度
print(x.sum())                       #指定维度上元素的和，默认为全部维度

print(x.isfinite())                  #判断 Tensor 中元素是否是有限的数字，即不包括 inf 与 nan
print(x.equal_all(y))                #判断两个 Tensor 的全部元素是否相等，并返回形状为[]的布尔类 0-D Tensor
print(x.equal(y))                    #判断两个 Tensor 的每个元素是否相等，并返回形状相同的布尔类 Tensor
print(x.not_equal(y))                #判断两个 Tensor 的每个元素是否不相等
print(x.less_than(y))                #判断 Tensor x 的元素是否小于 Tensor y 的对应元素
print(x.less_equal(y))               #判断 Tensor x 的元素是否小于或等于 Tensor y 的对应元素
print(x.greater_than(y))             #判断 Tensor x 的元素是否大于 Tensor y 的对应元素
print(x.greater_equal(y))            #判断 Tensor x 的元素是否大于或等于 Tensor y 的对应元素
print(x.allclose(y))                 #判断 Tensor x 的全部元素是否与 Tensor y 的全部元素接近，并返回形状为[]的布尔类 0-D Tensor

xb, yb = x > 2, y > 6  # oar-port: the logical ops need boolean tensors
print(xb.logical_and(yb))              #对两个布尔类型 Tensor 逐元素进行逻辑与操作
print(xb.logical_or(yb))               #对两个布尔类型 Tensor 逐元素进行逻辑或操作
print(xb.logical_xor(yb))              #对两个布尔类型 Tensor 逐元素进行逻辑异或操作
print(xb.logical_not())                #对两个布尔类型 Tensor 逐元素进行逻辑非操作 (oar-port: the guide passes y)

print(x.t())                         #矩阵转置
print(x.transpose([1, 0]))           #交换第 0 维与第 1 维的顺序
print(x.norm('fro'))                 #矩阵的弗罗贝尼乌斯范数
print(x.dist(y, p=2))                #矩阵（x-y）的 2 范数
print(x.matmul(y))                   #矩阵乘法

# 可以广播的例子 1
x = paddle.ones((2, 3, 4))
y = paddle.ones((2, 3, 4))
# 两个 Tensor 形状一致，可以广播
z = x + y
print(z.shape)
# [2, 3, 4]

# 可以广播的例子 2
x = paddle.ones((2, 3, 1, 5))
y = paddle.ones((3, 4, 1))
z = x + y
print(z.shape)
# [2, 3, 4, 5]

# 不可广播的例子
x = paddle.ones((2, 3, 4))
y = paddle.ones((2, 3, 6))
# 此时 x 和 y 是不可广播的，因为第一次比较：4 不等于 6
# z = x + y
# ValueError: (InvalidArgument) Broadcast dimension mismatch.

x = paddle.ones((2, 1, 4))
y = paddle.ones((3, 1)) # y 的形状长度为 2，小于 x 的形状长度 3，因此会在 y 的形状前部添加 1，结果就是 y 的形状变为[1, 3, 1]
z = x + y
print(z.shape)

tensor_temp = paddle.to_tensor(np.array([1.0, 2.0]))
print(tensor_temp)

tensor_to_convert = paddle.to_tensor([1.,2.])
print(tensor_to_convert.numpy())  # oar-port: print the displayed value
