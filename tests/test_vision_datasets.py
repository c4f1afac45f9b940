"""paddle.vision.datasets (Paddle door) against paddle 3.3.1: small files in the real formats
(idx-ubyte .gz, the CIFAR python tar.gz with pickled batches, folders of PNGs, the Flowers tgz
with its .mat files, the VOC2012 tar) are read by
Paddle's classes and by oar's, and every item is compared (type, dtype, shape, values), with
and without transforms; plus the errors (bad mode/backend, no path, the refused download)."""
import gc
import gzip
import io
import pickle
import struct
import tarfile

import numpy as np
import pytest

import oar
from oar.vision import datasets as odatasets
from oar.vision import transforms as OT

paddle = pytest.importorskip("paddle")
PIL_Image = pytest.importorskip("PIL.Image")
from paddle.vision import datasets as pdatasets  # noqa: E402
from paddle.vision import transforms as PT  # noqa: E402


def _same(p, o, where):
    """An item of Paddle's dataset and the same item of oar's are the same thing."""
    if isinstance(p, paddle.Tensor):
        assert isinstance(o, oar.Tensor), where
        assert list(p.shape) == list(o.shape), where
        assert str(p.dtype).split(".")[-1] == str(o.dtype).split(".")[-1], where
        np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6, atol=1e-6, err_msg=where)
    elif isinstance(p, PIL_Image.Image):
        assert isinstance(o, PIL_Image.Image), where
        assert (p.mode, p.size) == (o.mode, o.size), where
        np.testing.assert_array_equal(np.asarray(o), np.asarray(p), err_msg=where)
    elif isinstance(p, np.ndarray):
        assert type(o) is np.ndarray, where
        assert (p.dtype, p.shape) == (o.dtype, o.shape), where
        np.testing.assert_allclose(o, p, rtol=1e-6, atol=1e-6, err_msg=where)
    elif isinstance(p, (list, tuple)):
        assert type(o) is type(p) and len(o) == len(p), where
        for k, (a, b) in enumerate(zip(p, o)):
            _same(a, b, f"{where}[{k}]")
    else:
        assert type(o) is type(p) and o == p, where


def _same_dataset(pd, od):
    assert len(od) == len(pd)
    for i in range(len(pd)):
        _same(pd[i], od[i], f"item {i}")


# ---- MNIST ------------------------------------------------------------------------------------

def _write_mnist(tmp_path, n=200, seed=0):
    # Paddle reads labels in blocks of 100, so its reader needs a count that is a multiple of 100
    rng = np.random.RandomState(seed)
    imgs = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    labs = rng.randint(0, 10, n).astype(np.uint8)
    ip, lp = tmp_path / f"img{seed}-idx3-ubyte.gz", tmp_path / f"lab{seed}-idx1-ubyte.gz"
    with gzip.open(ip, "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + imgs.tobytes())
    with gzip.open(lp, "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labs.tobytes())
    return str(ip), str(lp)


def _transforms(lib):
    return [None, lib.ToTensor(), lib.Normalize(mean=[127.5], std=[127.5], data_format="CHW"),
            lib.Compose([lib.ToTensor(), lib.Normalize(mean=[0.5], std=[0.5])])]


@pytest.mark.parametrize("cls", ["MNIST", "FashionMNIST"])
@pytest.mark.parametrize("backend", ["pil", "cv2", None])
@pytest.mark.parametrize("t", range(4))
@pytest.mark.parametrize("mode", ["train", "TEST"])
def test_mnist_items(tmp_path, cls, backend, t, mode):
    ip, lp = _write_mnist(tmp_path)
    pd = getattr(pdatasets, cls)(image_path=ip, label_path=lp, mode=mode,
                                 transform=_transforms(PT)[t], backend=backend)
    od = getattr(odatasets, cls)(image_path=ip, label_path=lp, mode=mode,
                                 transform=_transforms(OT)[t], backend=backend)
    assert (od.mode, od.backend, od.dtype) == (pd.mode, pd.backend, pd.dtype)
    _same_dataset(pd, od)


def test_mnist_through_the_paddle_door(tmp_path):
    ip, lp = _write_mnist(tmp_path, n=100, seed=3)
    assert oar.vision.datasets.MNIST is odatasets.MNIST
    od = oar.vision.datasets.MNIST(image_path=ip, label_path=lp, backend="cv2")
    pd = paddle.vision.datasets.MNIST(image_path=ip, label_path=lp, backend="cv2")
    _same_dataset(pd, od)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return e
    return None


@pytest.mark.parametrize("kw", [dict(mode="val"), dict(backend="tensor"),
                                dict(image_path=None, download=False),
                                dict(label_path=None, download=False)])
def test_mnist_errors_as_paddle(tmp_path, kw):
    ip, lp = _write_mnist(tmp_path, n=100)
    args = dict(image_path=ip, label_path=lp)
    args.update(kw)
    pe = _err(lambda: pdatasets.MNIST(**args))
    oe = _err(lambda: odatasets.MNIST(**args))
    assert pe is not None and isinstance(oe, type(pe)), (pe, oe)


@pytest.mark.parametrize("which", ["image_path", "label_path"])
def test_mnist_refuses_to_download(tmp_path, which):
    ip, lp = _write_mnist(tmp_path, n=100)
    args = dict(image_path=ip, label_path=lp, mode="test")
    args[which] = None
    with pytest.raises(odatasets._common.DownloadRefusedError,
                       match=which) as e:
        odatasets.MNIST(**args)
    msg = str(e.value)
    assert "t10k-" in msg and "does not download" in msg and f"{which}=" in msg


def test_mnist_short_file_is_a_clear_error(tmp_path):
    ip, _ = _write_mnist(tmp_path, n=100)
    lp = tmp_path / "lab.gz"
    with gzip.open(lp, "wb") as f:
        f.write(struct.pack(">II", 2049, 300) + bytes(100))
    with pytest.raises(ValueError, match="announces 300 labels"):
        odatasets.MNIST(image_path=ip, label_path=str(lp))


def test_mnist_reads_any_count(tmp_path):
    # Paddle 3.3.1 fails (struct.error) unless the count is a multiple of 100; oar reads them all
    ip, lp = _write_mnist(tmp_path, n=37)
    od = odatasets.MNIST(image_path=ip, label_path=lp, backend="cv2")
    assert len(od) == 37
    with gzip.open(ip) as f:
        raw = np.frombuffer(f.read(), np.uint8, offset=16).reshape(37, 28, 28)
    np.testing.assert_array_equal(od[36][0], raw[36].astype(np.float32))


# ---- CIFAR ------------------------------------------------------------------------------------

def _add(tar, name, obj):
    data = pickle.dumps(obj, protocol=2)
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _write_cifar(tmp_path, hundred):
    """A tar.gz laid out as cifar-10-python.tar.gz / cifar-100-python.tar.gz (a top folder,
    pickled dicts with bytes keys, data as N x 3072 uint8 rows, channel-major)."""
    rng = np.random.RandomState(1)

    def batch(n, lab_key, k):
        return {b"batch_label": b"x", lab_key: [int(v) for v in rng.randint(0, k, n)],
                b"data": rng.randint(0, 256, (n, 3072)).astype(np.uint8),
                b"filenames": [b"f%d.png" % i for i in range(n)]}

    path = tmp_path / ("c100.tar.gz" if hundred else "c10.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        if hundred:
            top = "cifar-100-python"
            _add(tar, f"{top}/meta", {b"fine_label_names": [b"a"] * 100})
            _add(tar, f"{top}/train", batch(7, b"fine_labels", 100) | {b"coarse_labels": [0] * 7})
            _add(tar, f"{top}/test", batch(5, b"fine_labels", 100) | {b"coarse_labels": [0] * 5})
        else:
            top = "cifar-10-batches-py"
            _add(tar, f"{top}/batches.meta", {b"label_names": [b"a"] * 10})
            for i in (3, 1, 2):  # out of order: both read the batches sorted by name
                _add(tar, f"{top}/data_batch_{i}", batch(4, b"labels", 10))
            _add(tar, f"{top}/test_batch", batch(6, b"labels", 10))
    return str(path)


def _cifar_transforms(lib):
    return [None, lib.ToTensor(),
            lib.Compose([lib.ToTensor(), lib.Normalize(mean=[0.5] * 3, std=[0.5] * 3)]),
            lib.Normalize(mean=[127.5] * 3, std=[127.5] * 3, data_format="HWC")]


@pytest.mark.parametrize("cls", ["Cifar10", "Cifar100"])
@pytest.mark.parametrize("backend", ["pil", "cv2"])
@pytest.mark.parametrize("t", range(4))
@pytest.mark.parametrize("mode", ["train", "test"])
def test_cifar_items(tmp_path, cls, backend, t, mode):
    f = _write_cifar(tmp_path, cls == "Cifar100")
    pd = getattr(pdatasets, cls)(data_file=f, mode=mode, transform=_cifar_transforms(PT)[t],
                                 backend=backend)
    od = getattr(odatasets, cls)(data_file=f, mode=mode, transform=_cifar_transforms(OT)[t],
                                 backend=backend)
    assert (od.mode, od.backend, od.flag) == (pd.mode, pd.backend, pd.flag)
    _same_dataset(pd, od)


def test_cifar_errors(tmp_path):
    f = _write_cifar(tmp_path, False)
    for kw in (dict(mode="eval"), dict(backend="np"), dict(data_file=None, download=False)):
        args = dict(data_file=f)
        args.update(kw)
        pe = _err(lambda: pdatasets.Cifar10(**args))
        oe = _err(lambda: odatasets.Cifar10(**args))
        assert pe is not None and isinstance(oe, type(pe)), (kw, pe, oe)
    with pytest.raises(odatasets._common.DownloadRefusedError,
                       match=r"cifar-100-python\.tar\.gz.*data_file="):
        odatasets.Cifar100()


# ---- folders ------------------------------------------------------------------------------------

def _write_folder(tmp_path):
    rng = np.random.RandomState(2)
    root = tmp_path / "root"
    layout = {"cat": ["b.png", "a.PNG", "sub/c.png", "notes.txt"], "dog": ["z.png", "y.bmp"],
              "empty": []}
    for cls, names in layout.items():
        (root / cls).mkdir(parents=True)
        for name in names:
            p = root / cls / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".txt"):
                p.write_text("not an image")
            else:
                mode = "L" if name.startswith("a") else "RGB"
                shape = (9, 7) if mode == "L" else (9, 7, 3)
                PIL_Image.fromarray(rng.randint(0, 256, shape).astype(np.uint8), mode).save(
                    p, format="BMP" if name.endswith("bmp") else "PNG")
    return str(root)


def _folder_transforms(lib):
    return [None, lib.ToTensor(), lib.Compose([lib.ToTensor(),
                                               lib.Normalize(mean=[0.5] * 3, std=[0.5] * 3)])]


@pytest.mark.parametrize("t", range(3))
@pytest.mark.parametrize("ext", [None, (".png",), [".bmp", ".PNG"]])
def test_dataset_folder(tmp_path, t, ext):
    root = _write_folder(tmp_path)
    pd = pdatasets.DatasetFolder(root, extensions=ext, transform=_folder_transforms(PT)[t])
    od = odatasets.DatasetFolder(root, extensions=ext, transform=_folder_transforms(OT)[t])
    assert od.classes == pd.classes and od.class_to_idx == pd.class_to_idx
    assert od.samples == pd.samples and od.targets == pd.targets
    assert tuple(od.extensions) == tuple(pd.extensions)
    _same_dataset(pd, od)


@pytest.mark.parametrize("t", range(3))
def test_image_folder(tmp_path, t):
    root = _write_folder(tmp_path)
    pd = pdatasets.ImageFolder(root, transform=_folder_transforms(PT)[t])
    od = odatasets.ImageFolder(root, transform=_folder_transforms(OT)[t])
    assert od.samples == pd.samples
    _same_dataset(pd, od)


def test_folder_loader_and_is_valid_file(tmp_path):
    root = _write_folder(tmp_path)

    def loader(p):
        return np.asarray(PIL_Image.open(p).convert("L"))

    def only_b(p):
        return p.endswith("b.png")

    # Note [is_valid_file in Paddle's folder datasets]: Paddle 3.3.1 never consults it
    for cls in ("DatasetFolder", "ImageFolder"):
        pd = getattr(pdatasets, cls)(root, loader=loader, is_valid_file=only_b)
        od = getattr(odatasets, cls)(root, loader=loader, is_valid_file=only_b)
        assert od.samples == pd.samples
        _same_dataset(pd, od)


def test_folder_errors(tmp_path):
    root = _write_folder(tmp_path)
    for cls in ("DatasetFolder", "ImageFolder"):
        for kw in (dict(extensions=(".jpg",)), dict(extensions=".png")):
            pe = _err(lambda: getattr(pdatasets, cls)(root, **kw))
            oe = _err(lambda: getattr(odatasets, cls)(root, **kw))
            assert pe is not None and isinstance(oe, type(pe)), (cls, kw, pe, oe)


def test_image_backend(tmp_path):
    root = _write_folder(tmp_path)
    assert oar.vision.get_image_backend() == paddle.vision.get_image_backend() == "pil"
    for bad in ("PIL", None):
        pe = _err(lambda: paddle.vision.set_image_backend(bad))
        oe = _err(lambda: oar.vision.set_image_backend(bad))
        assert isinstance(oe, type(pe))
    path = root + "/dog/z.png"
    _same(paddle.vision.image_load(path), oar.vision.image_load(path), "image_load")
    try:
        oar.vision.set_image_backend("cv2")
        ip, lp = _write_mnist(tmp_path, n=100)
        od = odatasets.MNIST(image_path=ip, label_path=lp)  # backend None: the set one
        assert od.backend == "cv2" and type(od[0][0]) is np.ndarray
    finally:
        oar.vision.set_image_backend("pil")


# ---- Flowers and VOC2012 ------------------------------------------------------------------------

def _jpeg(arr, fmt="JPEG", mode=None):
    buf = io.BytesIO()
    img = PIL_Image.fromarray(arr) if mode is None else PIL_Image.fromarray(arr).convert(mode)
    img.save(buf, format=fmt)
    return buf.getvalue()


def _add_bytes(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _write_flowers(folder):
    """102flowers.tgz (jpg/image_00001.jpg ...), imagelabels.mat (labels 1 x N) and setid.mat
    (trnid, valid, tstid: 1 x k, 1-based), as the real files are laid out."""
    scio = pytest.importorskip("scipy.io")
    folder.mkdir()
    rng = np.random.RandomState(4)
    n = 9
    with tarfile.open(folder / "102flowers.tgz", "w:gz") as tar:
        for i in range(1, n + 1):
            arr = rng.randint(0, 256, (10 + i, 12, 3)).astype(np.uint8)
            _add_bytes(tar, f"jpg/image_{i:05}.jpg", _jpeg(arr))
    scio.savemat(folder / "imagelabels.mat",
                 {"labels": rng.randint(1, 103, (1, n)).astype(np.uint8)})
    scio.savemat(folder / "setid.mat", {"trnid": np.array([[2, 5, 7]], np.uint16),
                                        "valid": np.array([[1, 9]], np.uint16),
                                        "tstid": np.array([[3, 4, 6, 8]], np.uint16)})
    return [str(folder / f) for f in ("102flowers.tgz", "imagelabels.mat", "setid.mat")]


def _flowers_transforms(lib):
    return [None, lib.ToTensor(), lib.Compose([lib.ToTensor(),
                                               lib.Normalize(mean=[0.5] * 3, std=[0.5] * 3)])]


@pytest.mark.parametrize("backend", ["pil", "cv2"])
@pytest.mark.parametrize("mode", ["train", "valid", "Test"])
@pytest.mark.parametrize("t", range(3))
def test_flowers(tmp_path, backend, mode, t):
    pf = _write_flowers(tmp_path / "p")
    of = _write_flowers(tmp_path / "o")  # its own copy: each extracts the archive itself
    pd = pdatasets.Flowers(*pf, mode=mode, transform=_flowers_transforms(PT)[t],
                           backend=backend)
    od = odatasets.Flowers(*of, mode=mode, transform=_flowers_transforms(OT)[t],
                           backend=backend)
    assert sorted(p.name for p in (tmp_path / "o" / "102flowers" / "jpg").iterdir()) == \
        sorted(p.name for p in (tmp_path / "p" / "102flowers" / "jpg").iterdir())
    _same_dataset(pd, od)


def test_flowers_errors(tmp_path):
    f = _write_flowers(tmp_path / "p")
    for args, kw in (((*f,), dict(mode="val")), ((None, *f[1:]), dict(download=False)),
                     ((f[0], "", f[2]), dict(download=False))):
        pe = _err(lambda: pdatasets.Flowers(*args, **kw))
        oe = _err(lambda: odatasets.Flowers(*args, **kw))
        assert pe is not None and isinstance(oe, type(pe)), (kw, pe, oe)
    with pytest.raises(odatasets._common.DownloadRefusedError, match="setid.mat.*setid_file="):
        odatasets.Flowers(f[0], f[1])


def _write_voc(tmp_path):
    rng = np.random.RandomState(5)
    path = tmp_path / "VOCtrainval_11-May-2012.tar"
    root = "VOCdevkit/VOC2012"
    names = ["2007_000032", "2007_000033", "2008_000001"]
    with tarfile.open(path, "w") as tar:
        for split, which in (("trainval", names), ("train", names[:2]), ("val", names[2:])):
            _add_bytes(tar, f"{root}/ImageSets/Segmentation/{split}.txt",
                       "".join(n + "\n" for n in which).encode())
        for n in names:
            h = rng.randint(6, 12)
            _add_bytes(tar, f"{root}/JPEGImages/{n}.jpg",
                       _jpeg(rng.randint(0, 256, (h, 9, 3)).astype(np.uint8)))
            seg = PIL_Image.fromarray(rng.randint(0, 21, (h, 9)).astype(np.uint8), "L")
            seg = seg.convert("P")
            buf = io.BytesIO()
            seg.save(buf, format="PNG")
            _add_bytes(tar, f"{root}/SegmentationClass/{n}.png", buf.getvalue())
    return str(path)


@pytest.mark.parametrize("backend", ["pil", "cv2"])
@pytest.mark.parametrize("mode", ["train", "valid", "test"])
@pytest.mark.parametrize("t", range(3))
def test_voc2012(tmp_path, backend, mode, t):
    f = _write_voc(tmp_path)
    pd = pdatasets.VOC2012(f, mode=mode, transform=_flowers_transforms(PT)[t], backend=backend)
    od = odatasets.VOC2012(f, mode=mode, transform=_flowers_transforms(OT)[t], backend=backend)
    assert (od.flag, od.data, od.labels) == (pd.flag, pd.data, pd.labels)
    _same_dataset(pd, od)


# Paddle's VOC2012.__del__ reads self.data_tar, which a failed __init__ never set
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_voc2012_errors(tmp_path):
    f = _write_voc(tmp_path)
    for kw in (dict(mode="val"), dict(backend="x"), dict(data_file=None, download=False)):
        args = dict(data_file=f)
        args.update(kw)
        pe = _err(lambda: pdatasets.VOC2012(**args))
        oe = _err(lambda: odatasets.VOC2012(**args))
        assert pe is not None and isinstance(oe, type(pe)), (kw, pe, oe)
        del pe, oe
        gc.collect()  # Paddle's half-built object goes here, under this test's filter
    with pytest.raises(odatasets._common.DownloadRefusedError, match="VOCtrainval"):
        odatasets.VOC2012()
