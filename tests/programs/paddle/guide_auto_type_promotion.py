"""Paddle guide "类型提升" (automatic type promotion), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/advanced/auto_type_promotion_cn.md (Apache-2.0), python
blocks 0-6 in order. Changes, each marked `# oar-port:`: block 3's static-graph part
(paddle.enable_static, paddle.static.Executor) dropped; block 4's `a + b` (int64 + float32), which
the guide says raises, is wrapped in try/except, printing whether it raised a TypeError
(what paddle 3.3.1 raises). Random values are
printed as the guide does (compared by shape/dtype only).
"""
import paddle

a = paddle.rand([3,3], dtype = 'float16')
b = paddle.rand([3,3], dtype = 'float32')
print (a + b) # 当 a 和 b 均为 Tensor 时，视为 Tensor 之间的计算

a = paddle.rand([3,3], dtype = 'float16')
b = 1.0
print (a + b) # 当 a 和 b 其中任意一个为 Scalar 时，视为 Tensor 和 Scalar 之间的计算

import paddle

# 浮点数间的计算
a = paddle.rand([3,3], dtype = 'float16')
b = paddle.rand([3,3], dtype = 'float32')
c = a + b # 此时将自动进行类型提升，将 a 的数据类型 cast 为 float32，不需要用户进行额外操作
print (c.dtype) # 输出类型为 float32

a = paddle.rand([3,3], dtype = 'bfloat16')
b = paddle.rand([3,3], dtype = 'float64')
c = a + b # 此时将自动进行类型提升，将 a 的数据类型 cast 为 float64，不需要用户进行额外操作
print (c.dtype) # 输出类型为 float64

# 复数与实数之间的计算
a = paddle.ones([3,3], dtype = 'complex64')
b = paddle.rand([3,3], dtype = 'float64')
c = a + b # 此时将自动进行类型提升，将 a 和 b 的数据类型 cast 为 complex128，不需要用户进行额外操作
print (c.dtype) # 输出类型为 complex128

# 复数之间的计算
a = paddle.ones([3,3], dtype = 'complex128')
b = paddle.ones([3,3], dtype = 'complex64')
c = a + b # 此时将自动进行类型提升，将 b 的数据类型 cast 为 complex128，不需要用户进行额外操作
print (c.dtype) # 输出类型为 complex128

import paddle

# 当 Scalar 在大类型上与 Tensor 类型一致时，结果返回 Tensor 的类型
a = paddle.rand([3,3], dtype = 'float16')
b = 1.0
c = a + b # a 与 b 大类型一致，都为 float 类型，因此将 b 自动 cast 为 float16，不需要用户进行额外操作
print (c.dtype) # 输出类型为 float16

# 当 Scalar 在大类型上与 Tensor 类型不一致时，遵循 Tensor 之间的计算规则
a = 1.0
b = paddle.ones([3,3], dtype = 'int64')
c = a + b # a 与 b 大类型不一致，将 b 自动 cast 为 float32，不需要用户进行额外操作
print (c.dtype) # 输出类型为 float32

import paddle
paddle.seed(2024)
a = paddle.rand([3,3], dtype = 'float16')
b = paddle.rand([3,3], dtype = 'float32')
c = a + b # 此时将自动进行类型提升，将 a 的数据类型 cast 为 float32，不需要用户进行额外操作
print (c.dtype) # float32

# 符合交换律
d = b + a
print (d.dtype) # float32
print (paddle.allclose(c, d)) # Tensor(shape=[], dtype=bool, place=Place(gpu:0), stop_gradient=True, True)

# 与二元 API 计算结果一致
e = paddle.add(a, b)
print (e.dtype) # float32
print (paddle.allclose(c, e)) # Tensor(shape=[], dtype=bool, place=Place(gpu:0), stop_gradient=True, True)

# oar-port: the static-graph comparison (paddle.enable_static ... paddle.disable_static) dropped

import paddle
a = paddle.ones([3,3], dtype = 'int64')
b = paddle.rand([3,3], dtype = 'float32')
try:  # oar-port: the guide says this line raises; catch it and print the error type
    c = a + b # 此时由于不再支持 int 和 float 类型之间的自动类型提升，会报 Type Error
    print("no error:", c.dtype)
except Exception as exc:  # oar-port
    print("raises TypeError:", isinstance(exc, TypeError))  # paddle 3.3.1 raises TypeError

# 对于不支持自动类型提升的情况，建议用户进行手动进行类型提升
# 方法一：使用 astype
a = a.astype("float32")
a = a.astype(b.dtype)

# 方法二：使用 cast
a = paddle.cast(a, "float32")
a = paddle.cast(a, b.dtype)
print(a.dtype, (a + b).dtype)  # oar-port: show the result

import paddle
a = paddle.ones([3,3], dtype = 'int32')
b = 1
c = a / b
print (c.dtype) # float32

import paddle
a = paddle.rand([3,3], dtype = 'float32')
b = paddle.rand([3,3], dtype = 'float16')
c = a == b
print (c.dtype) # bool
