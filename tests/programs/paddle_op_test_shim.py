"""A stand-in for the `op_test` module of Paddle's test/legacy_test, for tests/test_paddle_own_inplace.py.

Several of Paddle's own test files import helpers from `op_test` (Paddle's operator-test harness,
thousands of lines built on the static graph). The runner writes this file next to such a test as
`op_test.py`, unchanged for the real paddle and with its imports rewritten for oar, so that both runs
see the same helpers. Only the helpers those files use are here, written for a CPU-only machine:

- get_places(): the places a test loops over; Paddle's returns [CPUPlace()] on a build without CUDA
  (and adds a CUDA place where there is one). This machine has no GPU, so it is [CPUPlace()].
- get_device(): the device name of the second place; never reached with one place, 'cpu' here.
- convert_float_to_uint16(): float32 values to their bfloat16 bit patterns (the top 16 bits, rounded
  to nearest even), as uint16.
- OpTest: Paddle's operator harness (static graph programs, gradient checks by its own rules) is not
  reproduced; a class deriving from it skips, on both runs, so it counts on neither side.
"""

import unittest

import numpy as np

import paddle


def get_places():
    return [paddle.CPUPlace()]


def get_device():
    return "cpu"


def convert_float_to_uint16(float_list, data_format="NCHW"):
    a = np.ascontiguousarray(np.asarray(float_list, dtype=np.float32))
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    if data_format == "NHWC" and out.ndim == 4:
        out = np.transpose(out, [0, 3, 1, 2])
    return out


class OpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("Paddle's OpTest harness (static graph) is not part of this shim")
