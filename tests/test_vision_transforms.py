"""paddle.vision.transforms (oar.vision.transforms) against Paddle 3.3.1 for PIL images and
Tensors, and against NumPy / PyTorch references for NumPy images (Paddle hands those to
OpenCV, which is not installed)."""
import random
import subprocess
import sys

import numpy as np
import pytest

import oar
import oar.vision.transforms as T
import oar.vision.transforms.functional as TF

paddle = pytest.importorskip("paddle")
PIL_Image = pytest.importorskip("PIL.Image")
PT = paddle.vision.transforms


def _rgb(h=20, w=30, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def _pil(h=20, w=30, seed=0, mode="RGB"):
    img = PIL_Image.fromarray(_rgb(h, w, seed))
    return img if mode == "RGB" else img.convert(mode)


def _chw(h=12, w=17, seed=0, c=3):
    """A float32 CHW image in [0, 1], as a non-contiguous oar Tensor (an HWC array's
    transpose) and as a paddle Tensor."""
    hwc = np.random.default_rng(seed).random((h, w, c)).astype(np.float32)
    ours = oar.to_tensor(hwc).transpose((2, 0, 1))
    assert c == 1 or not ours.is_contiguous()
    return ours, paddle.to_tensor(np.ascontiguousarray(hwc.transpose(2, 0, 1)))


def _same_pil(a, b):
    assert type(a) is type(b) or (isinstance(a, PIL_Image.Image) and isinstance(b, PIL_Image.Image))
    assert a.mode == b.mode and a.size == b.size
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _close(ours, theirs, atol=1e-5):
    assert isinstance(ours, oar.Tensor)
    assert list(ours.shape) == list(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=atol)


# ------------------------------------------------------------------ import and layout

def test_import_paths_and_names():
    assert oar.vision.transforms is T
    assert set(T.__all__) <= set(dir(T))
    assert set(PT.__all__) <= set(T.__all__)


def test_pillow_is_imported_lazily():
    code = "import sys, oar, oar.vision.transforms; print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ to_tensor

@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA", "F", "I", "1"])
@pytest.mark.parametrize("fmt", ["CHW", "HWC"])
def test_to_tensor_pil_modes(mode, fmt):
    img = _pil(mode=mode)
    ours, theirs = TF.to_tensor(img, fmt), PT.to_tensor(img, fmt)
    _close(ours, theirs, atol=0)
    _close(T.ToTensor(fmt)(img), PT.ToTensor(fmt)(img), atol=0)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.int64])
def test_to_tensor_numpy(dtype):
    arr = (np.random.default_rng(1).random((5, 6, 3)) * 255).astype(dtype)
    out = TF.to_tensor(arr)
    ref = arr.transpose(2, 0, 1)
    ref = ref.astype(np.float32) / np.float32(255) if dtype == np.uint8 else ref
    assert out.numpy().dtype == ref.dtype
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(TF.to_tensor(arr[:, :, 0], "HWC").numpy().shape, (5, 6, 1))


def test_to_tensor_tensor_passes_through():
    ours, theirs = _chw()
    assert TF.to_tensor(ours) is ours
    _close(TF.to_tensor(ours, "HWC"), PT.to_tensor(theirs, "HWC"))


# ------------------------------------------------------------------ geometry, PIL

@pytest.mark.parametrize("size", [15, 20, 40, (9, 25), [30, 7]])
@pytest.mark.parametrize("interp", ["nearest", "bilinear", "bicubic", "lanczos", "hamming", "box"])
def test_resize_pil(size, interp):
    img = _pil()
    _same_pil(TF.resize(img, size, interp), PT.functional.resize(img, size, interp))
    _same_pil(T.Resize(size, interp)(img), PT.Resize(size, interp)(img))


@pytest.mark.parametrize("fn, args", [
    ("crop", (2, 3, 10, 12)), ("center_crop", (11,)), ("center_crop", ((7, 12),)),
    ("hflip", ()), ("vflip", ()),
    ("pad", (3,)), ("pad", ((1, 2),)), ("pad", ((1, 2, 3, 4), 7)),
    ("pad", ((1, 2, 3, 4), (10, 20, 30))), ("pad", (2, 0, "edge")), ("pad", (2, 0, "reflect")),
    ("pad", ((1, 2, 3, 4), 0, "symmetric")),
    ("to_grayscale", ()), ("to_grayscale", (3,)),
    ("adjust_brightness", (0.3,)), ("adjust_brightness", (1.7,)),
    ("adjust_contrast", (0.4,)), ("adjust_contrast", (2.0,)),
    ("adjust_saturation", (0.0,)), ("adjust_saturation", (1.6,)),
    ("adjust_hue", (0.2,)), ("adjust_hue", (-0.45,)),
    ("rotate", (30,)), ("rotate", (-50, "bilinear", True)), ("rotate", (10, "nearest", False, (3, 4), 9)),
])
@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_functional_pil(fn, args, mode):
    img = _pil(mode=mode)
    if mode == "L" and (fn == "rotate" or (fn == "pad" and args[1:2] == ((10, 20, 30),))):
        # an int fill becomes a 3-tuple for rotate, which Pillow refuses for "L"; both raise
        for f in (getattr(TF, fn), getattr(PT.functional, fn)):
            with pytest.raises(TypeError):
                f(img, *args)
        return
    _same_pil(getattr(TF, fn)(img, *args), getattr(PT.functional, fn)(img, *args))


@pytest.mark.parametrize("cls, args", [
    ("CenterCrop", (13,)), ("CenterCrop", ((8, 14),)), ("Pad", (2,)),
    ("Pad", ([1, 2, 3, 4], [1, 2, 3], "constant")), ("Pad", ((2, 3), 0, "reflect")),
    ("Grayscale", ()), ("Grayscale", (3,)),
])
def test_deterministic_transforms_pil(cls, args):
    img = _pil()
    _same_pil(getattr(T, cls)(*args)(img), getattr(PT, cls)(*args)(img))


@pytest.mark.parametrize("order", [(2, 0, 1), (1, 0, 2)])
def test_transpose(order):
    img = _pil()
    out = T.Transpose(order)(img)
    np.testing.assert_array_equal(out, PT.Transpose(order)(img))
    gray = np.asarray(_pil(mode="L"))
    np.testing.assert_array_equal(T.Transpose()(gray), PT.Transpose()(gray))
    ours, theirs = _chw()
    _close(T.Transpose((1, 2, 0))(ours), PT.Transpose((1, 2, 0))(theirs))


@pytest.mark.parametrize("fmt", ["CHW", "HWC"])
@pytest.mark.parametrize("to_rgb", [False, True])
def test_normalize_pil_and_numpy(fmt, to_rgb):
    # a PIL image is HWC; 'CHW' applies to arrays already in that layout
    img = _pil() if fmt == "HWC" else _rgb().transpose(2, 0, 1).astype(np.float32)
    mean, std = [120.0, 110.0, 100.0], [50.0, 60.0, 70.0]
    ours = TF.normalize(img, mean, std, fmt, to_rgb)
    theirs = PT.functional.normalize(img, mean, std, fmt, to_rgb)
    assert ours.dtype == theirs.dtype == np.float32
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(T.Normalize(mean, std, fmt, to_rgb)(img),
                                  PT.Normalize(mean, std, fmt, to_rgb)(img))


# ------------------------------------------------------------------ Tensor images

@pytest.mark.parametrize("size", [8, 17, 30, (5, 9), [20, 11]])
@pytest.mark.parametrize("interp", ["nearest", "bilinear", "bicubic"])
def test_resize_tensor(size, interp):
    ours, theirs = _chw()
    _close(TF.resize(ours, size, interp), PT.functional.resize(theirs, size, interp))
    _close(T.Resize(size, interp)(ours), PT.Resize(size, interp)(theirs))


@pytest.mark.parametrize("fn, args", [
    ("crop", (2, 3, 7, 9)), ("center_crop", (7,)), ("center_crop", ((5, 10),)),
    ("hflip", ()), ("vflip", ()),
    ("pad", (2,)), ("pad", ((1, 2),)), ("pad", ((1, 2, 3, 4), 0.5)), ("pad", (2, 0, "edge")),
    ("pad", ((2, 1, 3, 2), 0, "reflect")),
    ("to_grayscale", ()), ("to_grayscale", (3,)),
    ("adjust_brightness", (0.3,)), ("adjust_brightness", (1.7,)),
    ("adjust_contrast", (0.4,)), ("adjust_contrast", (2.0,)),
    ("adjust_saturation", (0.0,)), ("adjust_saturation", (1.6,)),
    ("adjust_hue", (0.2,)), ("adjust_hue", (-0.45,)), ("adjust_hue", (0.5,)),
])
def test_functional_tensor(fn, args):
    ours, theirs = _chw()
    _close(getattr(TF, fn)(ours, *args), getattr(PT.functional, fn)(theirs, *args))


@pytest.mark.parametrize("args", [(30,), (-75, "bilinear"), (40, "nearest", True),
                                  (20, "bilinear", True, None, (0.1, 0.5, 0.9)),
                                  (33, "nearest", False, (4, 5), 0.3), (90,), (180, "bilinear")])
def test_rotate_tensor(args):
    ours, theirs = _chw()
    _close(TF.rotate(ours, *args), PT.functional.rotate(theirs, *args))


AFFINE_ARGS = [(30, (0, 0), 1.0, 0.0), (-20, (2, -3), 0.8, 10.0, "bilinear"),
               (15, [1, 1], 1.3, [5.0, -8.0], "nearest", 0, [4, 6]), (0, (3, 2), 1.0, [12.0])]


@pytest.mark.parametrize("args", AFFINE_ARGS)
def test_affine_pil_and_tensor(args):
    img = _pil()
    _same_pil(TF.affine(img, *args), PT.functional.affine(img, *args))
    ours, theirs = _chw()
    _close(TF.affine(ours, *args), PT.functional.affine(theirs, *args))


@pytest.mark.parametrize("interp", ["nearest", "bilinear"])
def test_perspective_pil_and_tensor(interp):
    start = [[0, 0], [16, 0], [16, 11], [0, 11]]
    end = [[2, 1], [15, 0], [14, 10], [1, 11]]
    img = _pil()
    _same_pil(TF.perspective(img, start, end, interp), PT.functional.perspective(img, start, end, interp))
    ours, theirs = _chw()
    _close(TF.perspective(ours, start, end, interp, (0.2, 0.3, 0.4)),
           PT.functional.perspective(theirs, start, end, interp, (0.2, 0.3, 0.4)))


def test_erase():
    ours, theirs = _chw()
    v = np.float32(0.25)
    _close(TF.erase(ours, 2, 3, 4, 5, oar.to_tensor(v)), PT.functional.erase(theirs, 2, 3, 4, 5, paddle.to_tensor(v)))
    a = _rgb()
    np.testing.assert_array_equal(TF.erase(a, 1, 2, 3, 4, 7), PT.functional.erase(a, 1, 2, 3, 4, 7))
    _same_pil(TF.erase(_pil(), 1, 2, 3, 4, 9), PT.functional.erase(_pil(), 1, 2, 3, 4, 9))
    x = ours.clone()
    assert TF.erase(x, 0, 0, 1, 1, oar.to_tensor(v), inplace=True) is x


def test_adjust_tensor_one_channel():
    ours, theirs = _chw(c=1)
    for fn, f in [("adjust_brightness", 1.3), ("adjust_contrast", 0.6),
                  ("adjust_saturation", 0.2), ("adjust_hue", 0.3)]:
        _close(getattr(TF, fn)(ours, f), getattr(PT.functional, fn)(theirs, f))


@pytest.mark.parametrize("fmt", ["CHW", "HWC"])
def test_normalize_tensor(fmt):
    ours, theirs = _chw()
    if fmt == "HWC":
        ours, theirs = ours.transpose((1, 2, 0)), theirs.transpose((1, 2, 0))
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]
    _close(TF.normalize(ours, mean, std, fmt), PT.functional.normalize(theirs, mean, std, fmt))
    _close(T.Normalize(mean, std, fmt)(ours), PT.Normalize(mean, std, fmt)(theirs))


def test_tensor_transforms_carry_gradients():
    hwc = np.random.default_rng(3).random((10, 13, 3)).astype(np.float32)
    x = oar.to_tensor(hwc.transpose(2, 0, 1).copy(), stop_gradient=False)
    px = paddle.to_tensor(hwc.transpose(2, 0, 1).copy(), stop_gradient=False)
    w = np.random.default_rng(4).random((3, 6, 6)).astype(np.float32)

    def run(mod, TT, img):
        out = TT.Compose([TT.Resize((8, 8)), TT.CenterCrop(6),
                          TT.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4])])(img)
        out = mod.to_tensor(w) * mod.nn.functional.sigmoid(
            TT.functional.adjust_contrast(TT.functional.adjust_brightness(out, 0.8), 1.2))
        out.sum().backward()
        return out

    _close(run(oar, T, x), run(paddle, PT, px))
    np.testing.assert_allclose(x.grad.numpy(), px.grad.numpy(), rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------------ NumPy images

def _torch_resize(arr, size, mode):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(arr.astype(np.float64).transpose(2, 0, 1)[None].copy())
    kw = {} if mode == "nearest" else {"align_corners": False}
    y = torch.nn.functional.interpolate(x, size=size, mode=mode, **kw)[0].numpy().transpose(1, 2, 0)
    return y


@pytest.mark.parametrize("interp", ["nearest", "bilinear", "bicubic"])
def test_resize_numpy_against_half_pixel_interpolation(interp):
    f = np.random.default_rng(5).random((12, 17, 3))
    out = TF.resize(f, (7, 25), interp)
    np.testing.assert_allclose(out, _torch_resize(f, (7, 25), interp), rtol=1e-12, atol=1e-12)
    u8 = _rgb(12, 17)
    out = TF.resize(u8, 8, interp)  # shorter side 8: (8, int(8 * 17 / 12))
    assert out.dtype == np.uint8 and out.shape == (8, 11, 3)
    ref = np.clip(np.rint(_torch_resize(u8, (8, 11), interp)), 0, 255)
    # rounding of values within 1e-9 of a half may go either way (as in OpenCV's fixed point)
    np.testing.assert_allclose(out, ref, atol=1, rtol=0)
    assert np.mean(out == ref) > 0.97
    gray = u8[:, :, 0]
    assert TF.resize(gray, (5, 6)).shape == (5, 6)


@pytest.mark.parametrize("mode, np_mode", [("edge", "edge"), ("reflect", "reflect"),
                                           ("symmetric", "symmetric")])
def test_geometry_numpy(mode, np_mode):
    a = _rgb(9, 11)
    np.testing.assert_array_equal(TF.crop(a, 1, 2, 5, 6), a[1:6, 2:8])
    np.testing.assert_array_equal(TF.center_crop(a, (4, 6)), a[2:6, 2:8])
    np.testing.assert_array_equal(TF.hflip(a), a[:, ::-1])
    np.testing.assert_array_equal(TF.vflip(a), a[::-1])
    np.testing.assert_array_equal(TF.pad(a, (1, 2, 3, 4), 0, mode),
                                  np.pad(a, ((2, 4), (1, 3), (0, 0)), mode=np_mode))
    np.testing.assert_array_equal(TF.pad(a, 2), np.pad(a, ((2, 2), (2, 2), (0, 0))))


def test_colour_numpy_against_numpy_formulas():
    a = _rgb(9, 11)
    af = a.astype(np.float64)
    np.testing.assert_array_equal(TF.adjust_brightness(a, 1.4),
                                  np.clip(af * 1.4, 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(TF.adjust_contrast(a, 1.4),
                                  np.clip((af - 74) * 1.4 + 74, 0, 255).astype(np.uint8))
    gray = np.clip(np.rint(af @ np.array([0.299, 0.587, 0.114])), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(TF.to_grayscale(a)[:, :, 0], gray)
    assert TF.to_grayscale(a, 3).shape == a.shape
    # saturation: Paddle's OpenCV path draws its blend weight from NumPy's generator and
    # reads the channels as BGR
    np.random.seed(7)
    alpha = np.random.uniform(0.4, 1.6)
    x = a.astype(np.float32)
    grey = (x[..., 2] * 0.299 + x[..., 1] * 0.587 + x[..., 0] * 0.114)[..., None]
    np.random.seed(7)
    np.testing.assert_array_equal(TF.adjust_saturation(a, 0.6),
                                  np.clip(x * alpha + grey * (1 - alpha), 0, 255).astype(np.uint8))
    # hue through PIL's HSV with the channels read as BGR (Paddle's OpenCV path)
    bgr_img = PIL_Image.fromarray(np.ascontiguousarray(a[..., ::-1]))
    ref = np.asarray(PT.functional.adjust_hue(bgr_img, 0.25))[..., ::-1]
    np.testing.assert_array_equal(TF.adjust_hue(a, 0.25), ref)


# ------------------------------------------------------------------ random transforms

def _seed(s):
    random.seed(s)
    np.random.seed(s)


RANDOM_CASES = [
    lambda M: M.RandomHorizontalFlip(0.5),
    lambda M: M.RandomVerticalFlip(0.5),
    lambda M: M.RandomCrop(12),
    lambda M: M.RandomCrop((25, 40), pad_if_needed=True, fill=3),
    lambda M: M.RandomCrop(16, padding=(1, 2, 3, 4), padding_mode="reflect"),
    lambda M: M.RandomResizedCrop(10),
    lambda M: M.RandomResizedCrop((8, 12), scale=(0.5, 0.9), ratio=(0.5, 2.0), interpolation="bicubic"),
    lambda M: M.RandomResizedCrop(8, scale=(0.99, 1.0), ratio=(3.0, 4.0)),  # falls back
    lambda M: M.BrightnessTransform(0.4),
    lambda M: M.ContrastTransform(0.4),
    lambda M: M.SaturationTransform((0.2, 1.5)),
    lambda M: M.HueTransform(0.3),
    lambda M: M.ColorJitter(0.4, 0.4, 0.4, 0.2),
    lambda M: M.RandomRotation(40),
    lambda M: M.RandomRotation((-20, 60), interpolation="bilinear", expand=True, fill=5),
    lambda M: M.RandomAffine(20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(-5, 5, -3, 3)),
    lambda M: M.RandomAffine((-10, 30), shear=8, interpolation="bilinear", fill=3),
    lambda M: M.RandomErasing(0.7, value=(10, 20, 30)),
    lambda M: M.RandomErasing(0.7, scale=(0.2, 0.5), value=5),
    lambda M: M.RandomPerspective(0.8, 0.4),
    lambda M: M.RandomPerspective(0.8, 0.6, interpolation="bilinear"),
]


@pytest.mark.parametrize("case", range(len(RANDOM_CASES)))
def test_random_transforms_seeded_pil(case):
    img = _pil()
    ours, theirs = RANDOM_CASES[case](T), RANDOM_CASES[case](PT)
    for s in range(6):
        _seed(s)
        a = ours(img)
        _seed(s)
        _same_pil(a, theirs(img))


@pytest.mark.parametrize("case", [0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
def test_random_transforms_seeded_tensor(case):
    ours_img, theirs_img = _chw(20, 30)
    ours, theirs = RANDOM_CASES[case](T), RANDOM_CASES[case](PT)
    for s in range(4):
        _seed(s)
        a = ours(ours_img)
        _seed(s)
        _close(a, theirs(theirs_img))


def test_flip_probability():
    _seed(0)
    flip = T.RandomHorizontalFlip(0.3)
    img = np.arange(6, dtype=np.uint8).reshape(1, 6, 1)
    flips = sum(int(flip(img)[0, 0, 0] == 5) for _ in range(2000))
    assert 500 < flips < 700
    assert all(T.RandomVerticalFlip(0)(img) is img for _ in range(10))


# ------------------------------------------------------------------ keys, Compose, errors

def test_keys_tuple_inputs_and_custom_transform():
    class Shift(T.BaseTransform):
        def __init__(self, keys=None):
            super().__init__(keys)

        def _get_params(self, inputs):
            return inputs[0].shape[0]

        def _apply_image(self, image):
            return image + self.params

        def _apply_mask(self, mask):
            return mask * 0

    a, m, extra = np.ones((2, 3, 1)), np.ones((2, 3)), "label"
    out = Shift(keys=("image", "mask"))((a, m, extra))
    assert isinstance(out, tuple) and len(out) == 3 and out[2] == "label"
    np.testing.assert_array_equal(out[0], a + 2)
    np.testing.assert_array_equal(out[1], 0 * m)
    with pytest.raises(NotImplementedError):
        Shift(keys=("image", "boxes2"))
    with pytest.raises(ValueError):
        T.CenterCrop(3, keys="image" and 5)
    assert repr(T.Compose([T.CenterCrop(2)])).startswith("Compose(\n")


def test_errors():
    with pytest.raises(TypeError, match="hflip"):
        TF.hflip([1, 2, 3])
    with pytest.raises(TypeError):
        TF.resize(np.zeros((2, 2, 2, 2)), 3)
    with pytest.raises(ValueError, match="hue_factor"):
        TF.adjust_hue(_pil(), 0.7)
    with pytest.raises(ValueError, match="symmetric"):
        TF.pad(_chw()[0], 1, padding_mode="symmetric")
    with pytest.raises(ValueError, match="(?i)padding"):
        T.Pad((1, 2, 3))
    with pytest.raises(ValueError, match="num_output_channels"):
        TF.to_grayscale(_pil(), 2)
    with pytest.raises(ValueError):
        T.RandomHorizontalFlip(1.5)
    with pytest.raises(ValueError, match="larger than the image"):
        T.RandomCrop(50)(_pil())
    with pytest.raises(TypeError):
        TF.rotate(_rgb(), 10)
    with pytest.raises(ValueError):
        T.BrightnessTransform(-1)
    x = _chw()[0]
    before = x.numpy().copy()
    with pytest.raises(ValueError):
        TF.adjust_brightness(x, -0.5)
    np.testing.assert_array_equal(x.numpy(), before)
