"""Paddle guide "Tensor 索引" (tensor indexing), ported to oar's Paddle door.

Source: PaddlePaddle/docs, docs/guides/beginner/tensor_index_cn.md (Apache-2.0), every `>>>`
doctest line of its examples in order. Changes, each marked `# oar-port:`: a bare expression
(which the interpreter would display) is printed; the two lines the guide shows raising
(indexes that cannot be broadcast, a value that cannot be broadcast) are wrapped in try/except
printing whether the error is a ValueError (what paddle 3.3.1 raises); the static-graph lines
(paddle.enable_static, paddle.static.setitem) are dropped. Everything is deterministic and compared to 1e-5.
"""
import numpy as np  # oar-port: the guide uses np without importing it
import paddle  # oar-port: the doctests assume paddle is imported

a = paddle.ones((2,3))
print(a)  # oar-port: print the displayed value
b = a[0]   # b is a view of a
print(b)  # oar-port: print the displayed value
b[1] = 10  # modifacation of b will affect a
print(b)  # oar-port: print the displayed value
print(a)  # oar-port: print the displayed value
a = paddle.arange(6).reshape((2,3))
print(a)  # oar-port: print the displayed value
b = a[1]  # select the second row in first axis
print(b)  # oar-port: print the displayed value
c = a[-1] # select the last row in first axis
print(c)  # oar-port: print the displayed value
d = a[1, 0]
print(d)  # oar-port: print the displayed value
b = a[1]
print(b)  # oar-port: print the displayed value
index = paddle.full([], 1, dtype='int32')
c = a[index]
print(c)  # oar-port: print the displayed value
a = paddle.arange(8).reshape((4,2))
print(a)  # oar-port: print the displayed value
b = a[0:2]  # select elements [0, 2) with step 1 in first axis
print(b)  # oar-port: print the displayed value
c = a[::2]  # select elements [0, 4) with step 2 in first axis
print(c)  # oar-port: print the displayed value
d = a[::-1] # reversed selection in first axis
print(d)  # oar-port: print the displayed value
a = paddle.arange(8).reshape((2,2,2))
print(a)  # oar-port: print the displayed value
b = a[...] # ... covers axes 0,1,2, equals a[:,:,:], which means select all elements
print(b)  # oar-port: print the displayed value
c = a[1, ...]  # ... covers axes 1,2, equals a[1,:,:]
print(c)  # oar-port: print the displayed value
d = a[1, ..., 0] # ... covers axis 1, equals a[1,:,0]
print(d)  # oar-port: print the displayed value
a = paddle.arange(8).reshape((2,4))
print(a)  # oar-port: print the displayed value
b = a[:, None]
print(b)  # oar-port: print the displayed value
a = paddle.ones((2,3))
print(a)  # oar-port: print the displayed value
b = a[[0]] # b is not a view of a
print(b)  # oar-port: print the displayed value
b[0] = 10  # modify b will not affect a
print(b)  # oar-port: print the displayed value
print(a)  # oar-port: print the displayed value
a = paddle.arange(8).reshape((4,2))
print(a)  # oar-port: print the displayed value
b = a[[0,2,1]]  # select rows 0,2 and 1 in first axis
print(b)  # oar-port: print the displayed value
c = a[np.array([0,1,0])]  # row 0 was selected twice
print(c)  # oar-port: print the displayed value
index = paddle.to_tensor([[1], [2]])
d = a[index]  # select rows 1 and 2 in first axis, and combine them according `index`
print(d)  # oar-port: print the displayed value
e = a[[2,0,3],[1,0,0]] # select a[2,1], a[0,0] and a[3,0]
print(e)  # oar-port: print the displayed value
f = a[[0,2,1], [0]]
print(f)  # oar-port: print the displayed value
try:  # oar-port: the guide shows this line raising
    g = a[[0,2,1], [0,1]]  # shape (3,) and (2,) cannot be broadcast together
except Exception as exc:  # oar-port
    print("raises ValueError:", isinstance(exc, ValueError))  # paddle 3.3.1 raises ValueError
a = paddle.arange(8).reshape((4,2))
print(a)  # oar-port: print the displayed value
bool_mask = a > 4  # nonzero results are [2,1], [3,0] and [3,1]
print(a[bool_mask])  # oar-port: print the displayed value
print(a[[True, False,True,False]])  # oar-port: print the displayed value  # select row 0 and 2 in first axis
a = paddle.arange(8).reshape((4,2))
print(a)  # oar-port: print the displayed value
print(a[True])  # oar-port: print the displayed value
print(a[False])  # oar-port: print the displayed value  # output is 0-Size Tensor
a = paddle.arange(24).reshape((2,3,4))
print(a)  # oar-port: print the displayed value
b = a[0,[1,2],2]   # This is same with (1) tmp = a[0,:,2] (2) b = tmp[[1,2]]
print(b)  # oar-port: print the displayed value
a = paddle.arange(24).reshape((1,2,3,4))
print(a)  # oar-port: print the displayed value
b = a[:, [0,0,1], [1,2,0],:] # the new dimention is at axis 1
print(b)  # oar-port: print the displayed value
c = a[:,[0,0,1], [1,2,0], [2,1,0]]
print(c)  # oar-port: print the displayed value
d = a[:, [1], :, [2,1,0]] # advanced indexes are not adjacent, the new dimention is at axis 0
print(d)  # oar-port: print the displayed value
a = paddle.ones((2,3,4))
a[:,:,2] = 10  # value is Python Scalar
print(a)  # oar-port: print the displayed value
a[:,:,1] = paddle.full([], 2) # value is 0-D Scalar Tensor
print(a)  # oar-port: print the displayed value
a[:,:,3] = paddle.full([2,1], 5) # value is a Tensor with shape [2,1], which can be broadcast to [2,3]
print(a)  # oar-port: print the displayed value
try:  # oar-port: the guide shows this line raising
    a[:,:,3] = paddle.full([2,4], 5) # value is a Tensor with shape [2,4], which cannot be broadcast to [2,3]
except Exception as exc:  # oar-port
    print("raises ValueError:", isinstance(exc, ValueError))  # paddle 3.3.1 raises ValueError
# oar-port: static-graph lines dropped: paddle.enable_static()
# oar-port: static-graph line dropped: a = paddle.ones((2,3,4))
# oar-port: static-graph line dropped: a[0] = 1
# oar-port: static-graph line dropped: b = paddle.static.setitem(a, 0, 1) # use paddle.static.setitem instead of __setitem__ in static mode
# oar-port: static-graph line dropped: b
a = paddle.ones((2,3,4), dtype='int32')
a[0] = 2.5  # the value is truncated since float is casted to int
print(a)  # oar-port: print the displayed value
a = paddle.full([2,3], 1.25)
a[0] = 10  # the int value is casted to float
print(a)  # oar-port: print the displayed value
