"""Paddle guide "使用 Layer 构建网络" (layers and models), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/advanced/layer_and_model_cn.md (Apache-2.0), the python
code blocks in order; blocks that are printed outputs (2, 6, 8, 10, 12, 17, 19, 25, 27, 29, 31,
36) and the partial repeats (14, 15) are left out. Changes, each marked `# oar-port:`: MNIST's
idx-ubyte files written from scikit-learn's digits upscaled to 28x28 and passed as
image_path=/label_path=; seeded; weights are random, so values that depend on them are compared by
shape only.
"""
# oar-port: paddle.vision.datasets.MNIST downloads 60000 images; instead MNIST's idx-ubyte .gz
# files are written here from scikit-learn's digits (each 8x8 image upscaled to 28x28: np.kron by
# 3, padded by 2, scaled to 0..255) and passed as image_path=/label_path= (a few hundred images
# keep it fast; Paddle's reader needs counts that are multiples of 100)
from tests.programs.digits_mnist import digits_mnist_files

train_images, train_labels, test_images, test_labels = digits_mnist_files()

import paddle
import math
from paddle.vision.transforms import Compose, Normalize

paddle.seed(2022)  # oar-port: seeded
transform = Compose([Normalize(mean=[127.5],
                               std=[127.5],
                               data_format='CHW')])

train_dataset = paddle.vision.datasets.MNIST(
    image_path=train_images, label_path=train_labels,  # oar-port: the files written above
    mode='train', transform=transform)

train_data0 = train_dataset[0]
x_data = paddle.to_tensor(train_data0[0])
x_data = paddle.flatten(x_data, start_axis=1)
print("x_data's shape is:", x_data.shape)

weight = paddle.randn([784, 10]) * (1/math.sqrt(784))
weight.stop_gradient=False
bias = paddle.zeros(shape=[10])
bias.stop_gradient=False

def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)

def model(x):
    return log_softmax(paddle.matmul(x, weight) + bias)

batch_size = 64
train_batch_data_x = []
train_batch_data_y = []
for i in range(batch_size):
    train_batch_data_x.append(train_dataset[i][0])
    train_batch_data_y.append(train_dataset[i][1])

x_batch_data = paddle.to_tensor(train_batch_data_x)
x_batch_data = paddle.flatten(x_batch_data, start_axis=1)
print("x_batch_data's shape is:", x_batch_data.shape)

y = model(x_batch_data)

print("y[0]: {} \ny.shape: {}".format(y[0], y.shape))

loss_func = paddle.nn.functional.nll_loss

y_batch_data = paddle.to_tensor(train_batch_data_y)
y_batch_data = paddle.flatten(y_batch_data, start_axis=1)
print("y_batch_data's shape is:", y_batch_data.shape)
y_standard = y_batch_data[0:batch_size]
loss = loss_func(y, y_standard)
print("loss: ", loss)

def accuracy(out, y):
    preds = paddle.argmax(out, axis=-1, keepdim=True)
    return (preds == y).cast("float32").mean()

accuracy = accuracy(y, y_standard)
print("accuracy:", accuracy)

loss.backward()

@paddle.no_grad()
def OptimizeNetwork(lr=0.5):
    weight.set_value(weight - lr * weight.grad)
    bias.set_value(bias - lr * bias.grad)
    weight.clear_gradient()
    bias.clear_gradient()
print("weight: ", weight)
print("bias: ", bias)
OptimizeNetwork()
print("weight after optimize: ", weight)
print("bias after optimize: ", bias)

class MyLayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.weight = self.create_parameter([784,10])
        self.bias = self.create_parameter([10], is_bias=True, default_initializer=paddle.nn.initializer.Constant(value=0.0))

    def forward(self, inputs):
        return paddle.nn.functional.log_softmax(paddle.matmul(inputs, self.weight) + self.bias)

my_layer = MyLayer()
for name, param in my_layer.named_parameters():
    print("Parameters: {}, {}".format(name, param) )

my_layer = MyLayer()
my_layer.train()
# my_layer.eval()
y = my_layer(x_batch_data)
print("y[0]", y[0])

loss_func = paddle.nn.functional.nll_loss
y = my_layer(x_batch_data)
loss = loss_func(y, y_standard)
print("loss: ", loss)

my_layer = MyLayer()
opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=my_layer.parameters())
loss_func = paddle.nn.functional.nll_loss
y = my_layer(x_batch_data)
loss = loss_func(y, y_standard)
print("loss: ", loss)

loss.backward()
opt.step()

class MyLayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(784, 10, bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(value=0.0)))

    def forward(self, inputs):
        return paddle.nn.functional.log_softmax(self.linear(inputs))

mylayer = MyLayer()
print(mylayer.sublayers())

print("----------------------")

for item in mylayer.named_sublayers():
    print(item)

my_layer = MyLayer()
fc = paddle.nn.Linear(10, 3)
my_layer.add_sublayer("fc", fc)
print(my_layer.sublayers())

def function(layer):
    print(layer)

my_layer.apply(function)

my_layer = MyLayer()
fc = paddle.nn.Linear(10, 3)
my_layer.add_sublayer("fc", fc)
sublayer_iter = my_layer.children()
for sublayer in sublayer_iter:
    print(sublayer)

class MyLayer(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        for i in range(10):
            self.add_parameter("param_" + str(i), self.create_parameter([784,10]))
    def forward(inputs):
        pass

my_layer = MyLayer()
for name, item in my_layer.named_parameters():
    print(name)

class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        self.saved_tensor = self.create_tensor(name="saved_tensor0")
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y

class Model(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        saved_tensor = self.create_tensor(name="saved_tensor0")
        self.register_buffer("saved_tensor", saved_tensor, persistable=True)
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        paddle.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y

model = Model()
print(model.buffers())
for item in model.named_buffers():
    print(item)
