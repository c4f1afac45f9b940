"""The Paddle door's device, data, metric and op APIs (issue 10, "Paddle door"), each compared
with paddle 3.3.1 run in the same test (skipped when paddle is not installed): places and
set_device, DataLoader / samplers / datasets, paddle.metric, add_n / equal_all / norm / dist,
create_parameter / ParamAttr, paddle.static / paddle.jit, and Layer forward hooks."""
import itertools
import math

import numpy as np
import pytest

import oar

paddle = pytest.importorskip("paddle")


def _raises_like(paddle_call, oar_call):
    """Both calls raise; oar's exception is an instance of the class paddle raised."""
    with pytest.raises(Exception) as pe:
        paddle_call()
    with pytest.raises(Exception) as oe:
        oar_call()
    assert isinstance(oe.value, type(pe.value)), (type(pe.value), type(oe.value), oe.value)
    assert str(oe.value)
    return oe.value


# ------------------------------------------------------------------------------ places, devices
def test_set_device_cpu_returns_the_cpu_place():
    p, o = paddle.set_device("cpu"), oar.set_device("cpu")
    assert repr(o) == repr(p) == "Place(cpu)"
    assert isinstance(o, oar.CPUPlace) and isinstance(p, paddle.CPUPlace)
    assert repr(oar.device.set_device("CPU")) == repr(paddle.device.set_device("CPU"))
    assert oar.set_device(oar.CPUPlace()) is oar.CPUPlace()
    assert oar.to_tensor([1.0]).place == oar.CPUPlace()


@pytest.mark.parametrize("dev", ["gpu", "gpu:0", "gpu:1", "xpu", "xpu:0", "npu", "dcu"])
def test_set_device_accelerator_is_refused_in_one_line(dev):
    err = _raises_like(lambda: paddle.set_device(dev), lambda: oar.set_device(dev))
    assert isinstance(err, ValueError)
    assert "\n" not in str(err) and "CPU" in str(err)
    assert oar.get_device() == paddle.get_device() == "cpu"


@pytest.mark.parametrize("dev", ["foo", "cpu:0", 1])
def test_set_device_unknown_device(dev):
    _raises_like(lambda: paddle.set_device(dev), lambda: oar.set_device(dev))


def test_gpu_places_are_refused_as_by_a_cpu_build():
    _raises_like(lambda: paddle.CUDAPlace(0), lambda: oar.CUDAPlace(0))
    _raises_like(lambda: paddle.XPUPlace(0), lambda: oar.XPUPlace(0))
    _raises_like(lambda: paddle.CUDAPinnedPlace(), lambda: oar.CUDAPinnedPlace())
    with pytest.raises(ValueError, match="CPU"):
        oar.to_tensor([1.0], place="gpu")
    with pytest.raises(ValueError):
        oar.io.DataLoader(oar.io.TensorDataset([oar.ones([2])]), places="gpu:0")


def test_device_queries_match_a_cpu_build():
    assert oar.device.get_device() == paddle.device.get_device()
    assert oar.device.cuda.device_count() == paddle.device.cuda.device_count() == 0
    assert oar.is_compiled_with_cuda() is paddle.is_compiled_with_cuda() is False
    assert oar.device.is_compiled_with_cuda() is paddle.device.is_compiled_with_cuda()
    assert oar.device.get_all_device_type() == paddle.device.get_all_device_type()
    assert oar.in_dynamic_mode() is paddle.in_dynamic_mode() is True
    assert oar.disable_static() is None


# ------------------------------------------------------------------------------ static, jit
def test_enable_static_and_static_apis_are_refused():
    with pytest.raises(NotImplementedError, match="static graph"):
        oar.enable_static()
    with pytest.raises(NotImplementedError, match="static graph"):
        oar.static.Program()
    assert not hasattr(oar.static, "Executor")
    with pytest.raises(NotImplementedError, match="static graph"):
        oar.jit.save(oar.nn.Linear(2, 2), "x")
    with pytest.raises(NotImplementedError, match="static graph"):
        oar.jit.load("x")


def test_to_static_runs_the_function_eagerly():
    def f(x):
        return (x * 2).sum()

    x = np.arange(6, dtype="float32").reshape(2, 3)
    expected = paddle.jit.to_static(f)(paddle.to_tensor(x)).numpy()
    assert oar.jit.to_static(f) is f
    assert oar.jit.to_static(input_spec=[oar.static.InputSpec([None, 3])])(f) is f
    np.testing.assert_allclose(oar.jit.to_static(f)(oar.to_tensor(x)).numpy(), expected)
    layer = oar.nn.Linear(2, 2)
    assert oar.jit.to_static(layer) is layer


def test_input_spec_matches_paddle():
    for args, kw in [(([None, 784], "float32", "x"), {}), (((4, -1),), {"name": "y"}),
                     (([2, 3],), {"stop_gradient": True})]:
        p, o = paddle.static.InputSpec(*args, **kw), oar.static.InputSpec(*args, **kw)
        assert o.shape == p.shape and o.name == p.name and o.stop_gradient == p.stop_gradient
        assert o.dtype.name == str(p.dtype).split(".")[-1]
        assert repr(o).replace("oar.", "paddle.") == repr(p)
    p = paddle.static.InputSpec([-1, 784], "float32", "x").batch(4)
    o = oar.static.InputSpec([-1, 784], "float32", "x").batch(4)
    assert o.shape == p.shape
    assert o.unbatch().shape == p.unbatch().shape
    assert oar.static.InputSpec([None, 2], name="a") == oar.static.InputSpec([-1, 2], name="a")
    assert oar.static.InputSpec.from_tensor(oar.ones([2, 3])).shape == \
        paddle.static.InputSpec.from_tensor(paddle.ones([2, 3])).shape
    _raises_like(lambda: paddle.static.InputSpec(3), lambda: oar.static.InputSpec(3))
    _raises_like(lambda: paddle.static.InputSpec([1.5]), lambda: oar.static.InputSpec([1.5]))


# ------------------------------------------------------------------------------ data loading
class _PSeq(paddle.io.Dataset):
    def __init__(self, fn, n=10):
        self.fn, self.n = fn, n

    def __getitem__(self, i):
        return self.fn(i)

    def __len__(self):
        return self.n


class _OSeq(oar.io.Dataset):
    def __init__(self, fn, n=10):
        self.fn, self.n = fn, n

    def __getitem__(self, i):
        return self.fn(i)

    def __len__(self):
        return self.n


def _describe(x):
    """A structure of ('T', shape, dtype name, values) for tensors; other leaves as they are."""
    if isinstance(x, (paddle.Tensor, oar.Tensor)):
        return ("T", tuple(x.shape), str(x.dtype).split(".")[-1], x.numpy().tolist())
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_describe(v) for v in x])
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    return x


SAMPLES = [
    lambda i: (np.full([3], i, "float32"), i),
    lambda i: (np.full([2, 2], i, "float64"), 1.5),
    lambda i: (np.full([3], i, "int32"), np.int64(i), np.float32(i)),
    lambda i: (i % 2 == 0, "s"),
    lambda i: {"a": i, "b": [i, i * 2]},
    lambda i: np.array(i),
    lambda i: [np.arange(2) + i],
]


@pytest.mark.parametrize("k", range(len(SAMPLES)))
def test_dataloader_collates_like_paddle(k):
    fn = SAMPLES[k]
    pl = paddle.io.DataLoader(_PSeq(fn), batch_size=4)
    ol = oar.io.DataLoader(_OSeq(fn), batch_size=4)
    assert len(ol) == len(pl) == 3
    assert [_describe(b) for b in ol()] == [_describe(b) for b in pl()]
    assert [_describe(b) for b in ol] == [_describe(b) for b in pl]


def test_dataloader_call_gives_a_fresh_iterator_and_drop_last():
    pl = paddle.io.DataLoader(_PSeq(lambda i: i), batch_size=3, drop_last=True)
    ol = oar.io.DataLoader(_OSeq(lambda i: i), batch_size=3, drop_last=True)
    assert len(ol) == len(pl) == 3
    it = ol()
    assert next(it).tolist() == next(pl()).numpy().tolist() == [0, 1, 2]
    assert [b.tolist() for b in it] == [[3, 4, 5], [6, 7, 8]]
    assert [b.tolist() for b in ol()] == [b.numpy().tolist() for b in pl()]
    tensors = [oar.arange(10).astype("float32").reshape([5, 2]), oar.arange(5)]
    loader = oar.io.DataLoader(oar.io.TensorDataset(tensors), batch_size=2, num_workers=2)
    x, y = next(loader())
    assert x.shape == [2, 2] and y.tolist() == [0, 1]


def test_dataloader_shuffle_is_a_permutation_and_seeded():
    ol = oar.io.DataLoader(_OSeq(lambda i: i, 20), batch_size=6, shuffle=True)
    oar.seed(3)
    first = [v for b in ol() for v in b.tolist()]
    assert sorted(first) == list(range(20)) and first != list(range(20))
    oar.seed(3)
    assert [v for b in ol() for v in b.tolist()] == first


def test_batch_sampler_paddle_forms():
    pds, ods = _PSeq(lambda i: i, 17), _OSeq(lambda i: i, 17)
    for kw in [dict(batch_size=5), dict(batch_size=5, drop_last=True), dict(batch_size=17),
               dict(batch_size=20, drop_last=True)]:
        p = paddle.io.BatchSampler(pds, **kw)
        o = oar.io.BatchSampler(ods, **kw)
        assert list(o) == list(p) and len(o) == len(p)
        p = paddle.io.BatchSampler(sampler=paddle.io.SequenceSampler(pds), **kw)
        o = oar.io.BatchSampler(sampler=oar.io.SequenceSampler(ods), **kw)
        assert list(o) == list(p) and len(o) == len(p)
    p = paddle.io.BatchSampler(pds, None, False, 4, True)       # Paddle's positional order
    o = oar.io.BatchSampler(ods, None, False, 4, True)
    assert list(o) == list(p)
    shuffled = list(oar.io.BatchSampler(ods, batch_size=8, shuffle=True, drop_last=True))
    assert [len(b) for b in shuffled] == [len(b) for b in paddle.io.BatchSampler(
        pds, batch_size=8, shuffle=True, drop_last=True)]
    assert len(set(i for b in shuffled for i in b)) == 16
    # PyTorch's positional form still works: (sampler, batch_size, drop_last)
    assert list(oar.io.BatchSampler([4, 5, 6], 2, False)) == [[4, 5], [6]]
    _raises_like(lambda: paddle.io.BatchSampler(pds, shuffle="yes"),
                 lambda: oar.io.BatchSampler(ods, shuffle="yes"))
    with pytest.raises(ValueError):
        oar.io.BatchSampler(ods, sampler=oar.io.SequenceSampler(ods))
    loader = oar.io.DataLoader(ods, batch_sampler=oar.io.BatchSampler(ods, batch_size=8))
    assert [b.shape for b in loader()] == [[8], [8], [1]]


@pytest.mark.parametrize("n,bs,reps,shuffle,drop_last", [
    (100, 10, 2, False, False), (23, 4, 3, True, False), (23, 4, 3, True, True),
    (10, 3, 1, True, False), (7, 5, 4, False, True), (5, 2, 1, False, False)])
def test_distributed_batch_sampler_matches_paddle(n, bs, reps, shuffle, drop_last):
    for rank in range(reps):
        p = paddle.io.DistributedBatchSampler(_PSeq(lambda i: i, n), batch_size=bs,
                                              num_replicas=reps, rank=rank, shuffle=shuffle,
                                              drop_last=drop_last)
        o = oar.io.DistributedBatchSampler(_OSeq(lambda i: i, n), batch_size=bs,
                                           num_replicas=reps, rank=rank, shuffle=shuffle,
                                           drop_last=drop_last)
        assert len(o) == len(p)
        for _ in range(2):        # two epochs: a shuffled pass advances the epoch
            assert list(o) == list(p)
        p.set_epoch(7)
        o.set_epoch(7)
        assert list(o) == list(p)


def test_distributed_batch_sampler_defaults_to_one_process():
    p = paddle.io.DistributedBatchSampler(_PSeq(lambda i: i, 9), batch_size=4)
    o = oar.io.DistributedBatchSampler(_OSeq(lambda i: i, 9), batch_size=4)
    assert (o.nranks, o.local_rank) == (p.nranks, p.local_rank) == (1, 0)
    assert list(o) == list(p)
    _raises_like(lambda: paddle.io.DistributedBatchSampler(_PSeq(lambda i: i), batch_size=0),
                 lambda: oar.io.DistributedBatchSampler(_OSeq(lambda i: i), batch_size=0))
    _raises_like(lambda: paddle.io.DistributedBatchSampler(_PSeq(lambda i: i), 2, rank=-1),
                 lambda: oar.io.DistributedBatchSampler(_OSeq(lambda i: i), 2, rank=-1))


def test_random_sampler_takes_paddles_index_generator():
    p = list(paddle.io.RandomSampler(_PSeq(lambda i: i), generator=iter([3, 1, 4, 1, 5] * 3)))
    o = list(oar.io.RandomSampler(_OSeq(lambda i: i), generator=iter([3, 1, 4, 1, 5] * 3)))
    assert o == p
    drawn = list(oar.io.RandomSampler(_OSeq(lambda i: i, 12)))
    assert sorted(drawn) == list(range(12))


def test_datasets_subset_concat_compose_chain():
    pa, pb = _PSeq(lambda i: (i, -i), 4), _PSeq(lambda i: (10 + i, i * i), 3)
    oa, ob = _OSeq(lambda i: (i, -i), 4), _OSeq(lambda i: (10 + i, i * i), 3)
    pc, oc = paddle.io.ConcatDataset([pa, pb]), oar.io.ConcatDataset([oa, ob])
    assert len(oc) == len(pc) == 7
    assert [oc[i] for i in range(-7, 7)] == [pc[i] for i in range(-7, 7)]
    assert oc.cumulative_sizes == pc.cumulative_sizes
    _raises_like(lambda: pc[-8], lambda: oc[-8])
    ps, os_ = paddle.io.Subset(pc, [6, 0, 3]), oar.io.Subset(oc, [6, 0, 3])
    assert [os_[i] for i in range(3)] == [ps[i] for i in range(3)] and len(os_) == len(ps)
    pk = paddle.io.ComposeDataset([_PSeq(lambda i: (i, 2 * i), 5), _PSeq(lambda i: i * 3, 5)])
    ok = oar.io.ComposeDataset([_OSeq(lambda i: (i, 2 * i), 5), _OSeq(lambda i: i * 3, 5)])
    assert [ok[i] for i in range(5)] == [pk[i] for i in range(5)] and len(ok) == len(pk)
    _raises_like(lambda: paddle.io.ComposeDataset([pa, pb]),
                 lambda: oar.io.ComposeDataset([oa, ob]))

    class PIt(paddle.io.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    class OIt(oar.io.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    assert [v for v in oar.io.ChainDataset([OIt(3), OIt(2)])] == \
        [v for v in paddle.io.ChainDataset([PIt(3), PIt(2)])]
    for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True)]:
        pl = paddle.io.DataLoader(paddle.io.ChainDataset([PIt(4), PIt(3)]), **kw)
        ol = oar.io.DataLoader(oar.io.ChainDataset([OIt(4), OIt(3)]), **kw)
        assert [_describe(b) for b in ol()] == [_describe(b) for b in pl()]
    with pytest.raises(ValueError):
        oar.io.DataLoader(OIt(3), shuffle=True)


def test_random_split_sizes_and_partition():
    for lengths in ([3, 7], [0.25, 0.75], [0.3, 0.3, 0.4], [10]):
        ps = paddle.io.random_split(_PSeq(lambda i: i), lengths)
        os_ = oar.io.random_split(_OSeq(lambda i: i), lengths)
        assert [len(s) for s in os_] == [len(s) for s in ps]
        assert sorted(s[i] for s in os_ for i in range(len(s))) == list(range(10))
    oar.seed(5)
    a = [s.indices for s in oar.io.random_split(_OSeq(lambda i: i), [5, 5])]
    oar.seed(5)
    assert [s.indices for s in oar.io.random_split(_OSeq(lambda i: i), [5, 5])] == a
    _raises_like(lambda: paddle.io.random_split(_PSeq(lambda i: i), [3, 3]),
                 lambda: oar.io.random_split(_OSeq(lambda i: i), [3, 3]))


# ------------------------------------------------------------------------------ paddle.metric
def _scores(seed=0, n=6, c=4):
    return np.random.RandomState(seed).rand(n, c).astype("float32")


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("ldtype", ["int64", "int32"])
def test_accuracy_matches_paddle(k, ldtype):
    x = _scores(1, 9, 5)
    lab = np.random.RandomState(2).randint(0, 5, (9, 1)).astype(ldtype)
    p = paddle.metric.accuracy(paddle.to_tensor(x), paddle.to_tensor(lab), k=k)
    o = oar.metric.accuracy(oar.to_tensor(x), oar.to_tensor(lab), k=k)
    assert o.shape == p.shape == [] and o.dtype.name == "float32" and o.stop_gradient
    np.testing.assert_array_equal(o.numpy(), p.numpy())


def test_accuracy_ties_counts_and_errors():
    t = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [2.0, 2.0, 2.0]], "float32")
    for lab in ([[1], [2], [0]], [[0], [1], [2]]):
        lab = np.array(lab, "int64")
        for k in (1, 2):
            p = paddle.metric.accuracy(paddle.to_tensor(t), paddle.to_tensor(lab), k=k)
            o = oar.metric.accuracy(oar.to_tensor(t), oar.to_tensor(lab), k=k)
            np.testing.assert_array_equal(o.numpy(), p.numpy())
    x, lab = _scores(), np.array([[0], [1], [2], [3], [0], [1]])
    pc, pt = paddle.zeros([1], "int32"), paddle.zeros([1], "int32")
    oc, ot = oar.zeros([1], "int32"), oar.zeros([1], "int32")
    paddle.metric.accuracy(paddle.to_tensor(x), paddle.to_tensor(lab), k=2, correct=pc, total=pt)
    oar.metric.accuracy(oar.to_tensor(x), oar.to_tensor(lab), k=2, correct=oc, total=ot)
    assert (oc.item(), ot.item()) == (pc.item(), pt.item())
    empty = (np.zeros((0, 4), "float32"), np.zeros((0, 1), "int64"))
    assert oar.metric.accuracy(*map(oar.to_tensor, empty)).item() == \
        paddle.metric.accuracy(*map(paddle.to_tensor, empty)).item() == 0.0
    bad = [(x, lab.reshape(-1), {}), (x, lab, {"k": 5}), (x, lab, {"k": 0}), (x, lab[:5], {}),
           (x.reshape(6, 1, 4), lab, {}), (x, np.zeros((6, 2), "int64"), {}),
           (x, lab.astype("float32"), {})]
    for a, b, kw in bad:
        _raises_like(lambda: paddle.metric.accuracy(paddle.to_tensor(a), paddle.to_tensor(b), **kw),
                     lambda: oar.metric.accuracy(oar.to_tensor(a), oar.to_tensor(b), **kw))
    _raises_like(lambda: paddle.metric.accuracy(x, paddle.to_tensor(lab)),
                 lambda: oar.metric.accuracy(x, oar.to_tensor(lab)))


@pytest.mark.parametrize("topk,name", [((1,), None), ((1, 2), None), ((2, 1), None),
                                       ((1, 3), "a"), ((2,), "b")])
def test_accuracy_metric_matches_paddle(topk, name):
    pm, om = paddle.metric.Accuracy(topk=topk, name=name), oar.metric.Accuracy(topk=topk, name=name)
    assert om.name() == pm.name()
    for seed in range(3):
        x = _scores(seed, 7, 4)
        lab = np.random.RandomState(seed + 10).randint(0, 4, (7, 1))
        labels = [lab, lab.reshape(-1), np.eye(4, dtype="float32")[lab.reshape(-1)]]
        lab_in = labels[seed]
        pc = pm.compute(paddle.to_tensor(x), paddle.to_tensor(lab_in))
        oc = om.compute(oar.to_tensor(x), oar.to_tensor(lab_in))
        assert oc.dtype.name == "float32" and oc.shape == pc.shape
        np.testing.assert_array_equal(oc.numpy(), pc.numpy())
        pu, ou = pm.update(pc), om.update(oc) if seed else om.update(oc.numpy())
        assert type(ou) is type(pu) and np.allclose(ou, pu)
        if isinstance(pu, list):
            assert [type(v) for v in ou] == [type(v) for v in pu]
        pa, oa = pm.accumulate(), om.accumulate()
        assert type(oa) is type(pa) and np.allclose(oa, pa)
    om.reset()
    pm.reset()
    assert om.accumulate() == pm.accumulate()


def test_precision_recall_auc_match_paddle():
    rng = np.random.RandomState(0)
    preds = rng.rand(20).astype("float32")
    labels = rng.randint(0, 2, 20)
    for P, O in [(paddle.metric.Precision, oar.metric.Precision),
                 (paddle.metric.Recall, oar.metric.Recall)]:
        p, o = P(), O()
        p.update(preds, labels)
        o.update(oar.to_tensor(preds), labels)
        assert o.accumulate() == p.accumulate() and o.name() == p.name()
        p.update(preds[:5].reshape(-1, 1), labels[:5].reshape(-1, 1))
        o.update(preds[:5].reshape(-1, 1), labels[:5].reshape(-1, 1))
        assert o.accumulate() == p.accumulate()
        o.reset()
        p.reset()
        assert o.accumulate() == p.accumulate() == 0.0
        _raises_like(lambda: P().update([0.5], [1]), lambda: O().update([0.5], [1]))
    probs = rng.rand(30, 1)
    probs = np.concatenate([1 - probs, probs], 1)
    lab = rng.randint(0, 2, (30, 1))
    p, o = paddle.metric.Auc(), oar.metric.Auc()
    p.update(probs, lab)
    o.update(probs, lab)
    assert math.isclose(o.accumulate(), p.accumulate()) and o.name() == p.name()
    _raises_like(lambda: paddle.metric.Metric(), lambda: oar.metric.Metric())


# ------------------------------------------------------------------------------ add_n, equal_all
def test_add_n_values_gradients_and_errors():
    a = np.arange(4, dtype="float32").reshape(2, 2)
    b = a * 3 - 1
    pa, pb = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b, stop_gradient=False)
    oa, ob = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    pr, orr = paddle.add_n([pa, pb, pa]), oar.add_n([oa, ob, oa])
    np.testing.assert_array_equal(orr.numpy(), pr.numpy())
    (pr * pr).sum().backward()
    (orr * orr).sum().backward()
    np.testing.assert_allclose(oa.grad.numpy(), pa.grad.numpy())
    np.testing.assert_allclose(ob.grad.numpy(), pb.grad.numpy())
    single = oar.add_n(oa)
    np.testing.assert_array_equal(single.numpy(), paddle.add_n(pa).numpy())
    assert single is not oa
    ints = oar.add_n((oar.to_tensor([1, 2]), oar.to_tensor([1, 2])))
    assert ints.tolist() == paddle.add_n([paddle.to_tensor([1, 2])] * 2).numpy().tolist()
    assert ints.dtype.name == "int64"
    _raises_like(lambda: paddle.add_n([pa, paddle.to_tensor([1.0, 2.0])]),
                 lambda: oar.add_n([oa, oar.to_tensor([1.0, 2.0])]))
    _raises_like(lambda: paddle.add_n([pa, pa.astype("float64")]),
                 lambda: oar.add_n([oa, oa.astype("float64")]))
    _raises_like(lambda: paddle.add_n([]), lambda: oar.add_n([]))


def test_equal_all_matches_paddle():
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    oa = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    for other in ([[1.0, 2.0], [3.0, 5.0]], [[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0],
                  [[1.0, 2.0], [3.0, float("nan")]]):
        p = paddle.equal_all(a, paddle.to_tensor(other))
        o = oar.equal_all(oa, oar.to_tensor(other))
        assert o.shape == p.shape == [] and o.dtype.name == "bool" and o.item() == p.item()
    assert oa.equal_all(oa).item() is True
    _raises_like(lambda: paddle.equal_all(a, a.astype("int64")),
                 lambda: oar.equal_all(oa, oa.astype("int64")))


# ------------------------------------------------------------------------------ norm, dist
NORM_CASES = [dict(), dict(p=1), dict(p="fro"), dict(axis=1), dict(axis=-1, keepdim=True),
              dict(p=2, axis=[0, 1], keepdim=True), dict(p="nuc"), dict(p=math.inf, axis=0),
              dict(p=0), dict(p=3, axis=-1), dict(p=-1, axis=[0, 1]),
              dict(p=-math.inf, axis=[1, 0]), dict(p=-2, axis=[0, 1]), dict(p=0.5),
              dict(p=1, axis=[0, 1], keepdim=True), dict(p=math.inf, axis=[0, 1]),
              dict(p="fro", axis=[0, 1]), dict(p=2, axis=(0,)), dict(dtype="float64")]


@pytest.mark.parametrize("kw", NORM_CASES, ids=[str(c) for c in NORM_CASES])
def test_norm_values_and_gradients_match_paddle(kw):
    a = np.random.RandomState(0).randn(3, 4).astype("float32")
    xp = paddle.to_tensor(a, stop_gradient=False)
    xo = oar.to_tensor(a, stop_gradient=False)
    r, q = paddle.norm(xp, **kw), oar.norm(xo, **kw)
    assert q.shape == r.shape and q.dtype.name == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(q.numpy(), r.numpy(), rtol=1e-5, atol=1e-6)
    r.sum().backward()
    q.sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_norm_method_3d_zero_gradient_and_errors():
    a = np.random.RandomState(1).randn(2, 3, 4)
    for kw in (dict(p=2, axis=[0, 2]), dict(p=2, axis=[0, 1, 2]), dict(p="fro", axis=[1, 2])):
        np.testing.assert_allclose(oar.to_tensor(a).norm(**kw).numpy(),
                                   paddle.to_tensor(a).norm(**kw).numpy(), rtol=1e-6)
    for p in (2, 1, 3, math.inf, 0):      # Paddle: a zero norm has a zero gradient
        xo = oar.zeros([3], "float32")
        xo.stop_gradient = False
        xp = paddle.zeros([3], "float32")
        xp.stop_gradient = False
        oar.norm(xo, p=p).backward()
        paddle.norm(xp, p=p).backward()
        np.testing.assert_array_equal(xo.grad.numpy(), xp.grad.numpy())
    x2 = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    for kw in (dict(p=3, axis=[0, 1]), dict(p="abc"), dict(axis=2)):
        _raises_like(lambda: paddle.norm(paddle.to_tensor(x2), **kw),
                     lambda: oar.norm(oar.to_tensor(x2), **kw))
    _raises_like(lambda: paddle.norm(paddle.to_tensor(np.ones((1, 2, 2))), p="nuc"),
                 lambda: oar.norm(oar.to_tensor(np.ones((1, 2, 2))), p="nuc"))
    _raises_like(lambda: paddle.norm(paddle.to_tensor([1, 2])),
                 lambda: oar.norm(oar.to_tensor([1, 2])))


@pytest.mark.parametrize("p", [2, 1, 0, 3, math.inf, -math.inf, 0.5])
def test_dist_matches_paddle(p):
    rng = np.random.RandomState(3)
    a, b = rng.randn(3, 4).astype("float32"), rng.randn(4).astype("float32")
    b[1] = a[0, 1]      # one zero difference
    xp, yp = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b, stop_gradient=False)
    xo, yo = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    r, q = paddle.dist(xp, yp, p), oar.dist(xo, yo, p)
    assert q.shape == r.shape == [] and q.dtype.name == "float32"
    np.testing.assert_allclose(q.numpy(), r.numpy(), rtol=1e-5)
    r.backward()
    q.backward()
    np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(yo.grad.numpy(), yp.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_dist_errors_match_paddle():
    f32, f64 = np.ones(2, "float32"), np.ones(2, "float64")
    _raises_like(lambda: paddle.dist(paddle.to_tensor(f32), paddle.to_tensor(f64)),
                 lambda: oar.dist(oar.to_tensor(f32), oar.to_tensor(f64)))
    _raises_like(lambda: paddle.dist(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 3])),
                 lambda: oar.dist(oar.to_tensor([1, 2]), oar.to_tensor([1, 3])))
    _raises_like(lambda: paddle.dist(paddle.ones([2, 2]), paddle.ones([3])),
                 lambda: oar.dist(oar.ones([2, 2]), oar.ones([3])))


def test_norm_spectral_gradient_matches_finite_differences():
    a = np.random.RandomState(4).randn(3, 2)
    x = oar.to_tensor(a, stop_gradient=False)
    for p in (2, -2, "nuc"):
        x.clear_grad()
        oar.norm(x, p=p, axis=[0, 1]).backward()
        eps, num = 1e-6, np.zeros_like(a)
        for i, j in itertools.product(range(3), range(2)):
            d = np.zeros_like(a)
            d[i, j] = eps
            num[i, j] = (oar.norm(oar.to_tensor(a + d), p=p, axis=[0, 1]).item()
                         - oar.norm(oar.to_tensor(a - d), p=p, axis=[0, 1]).item()) / (2 * eps)
        np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------------------ parameters
def test_create_parameter_matches_paddle():
    p = paddle.create_parameter([3, 4], "float32")
    o = oar.create_parameter([3, 4], "float32")
    assert o.shape == p.shape and o.dtype.name == "float32"
    assert o.stop_gradient is p.stop_gradient is False and o.trainable is p.trainable is True
    assert o.name.startswith("create_parameter_") and o.name.endswith(".w_0")
    limit = math.sqrt(6 / 7)
    assert np.abs(o.numpy()).max() <= limit and np.abs(o.numpy()).max() > limit / 4
    pb = paddle.create_parameter([4], "float32", is_bias=True)
    ob = oar.create_parameter([4], "float32", is_bias=True)
    np.testing.assert_array_equal(ob.numpy(), pb.numpy())
    assert ob.name.endswith(".b_0")
    n0 = int(o.name.split(".")[0].split("_")[-1])
    assert int(ob.name.split(".")[0].split("_")[-1]) == n0 + 1


def test_create_parameter_initializers_and_param_attr():
    pc = paddle.create_parameter([2], "float64",
                                 default_initializer=paddle.nn.initializer.Constant(2.0))
    oc = oar.create_parameter([2], "float64",
                              default_initializer=lambda t: oar.nn.init.constant_(t, 2.0))
    np.testing.assert_array_equal(oc.numpy(), pc.numpy())
    assert oc.dtype.name == "float64"
    pattr = paddle.ParamAttr(name="myw", initializer=paddle.nn.initializer.Constant(3.0),
                             trainable=False)
    oattr = oar.ParamAttr(name="myw", initializer=lambda t: oar.nn.init.constant_(t, 3.0),
                          trainable=False)
    pa = paddle.create_parameter([2], "float32", attr=pattr,
                                 default_initializer=paddle.nn.initializer.Constant(2.0))
    oa = oar.create_parameter([2], "float32", attr=oattr,
                              default_initializer=lambda t: oar.nn.init.constant_(t, 2.0))
    np.testing.assert_array_equal(oa.numpy(), pa.numpy())
    assert (oa.name, oa.stop_gradient, oa.trainable) == (pa.name, pa.stop_gradient, pa.trainable)
    assert oar.create_parameter([2], "float32", name="zz").name == \
        paddle.create_parameter([2], "float32", name="zz").name
    assert oar.create_parameter([2], "float32", attr=False) is None
    assert paddle.create_parameter([2], "float32", attr=False) is None
    fields = ("name", "learning_rate", "trainable", "initializer", "regularizer",
              "do_model_average", "need_clip")
    pd_attr = paddle.ParamAttr(name="x", learning_rate=0.5)
    o_attr = oar.ParamAttr(name="x", learning_rate=0.5)
    assert [getattr(o_attr, f) for f in fields] == [getattr(pd_attr, f) for f in fields]
    _raises_like(lambda: paddle.create_parameter([2], dtype=None),
                 lambda: oar.create_parameter([2], dtype=None))
    _raises_like(lambda: paddle.create_parameter([-1, 2], "float32"),
                 lambda: oar.create_parameter([-1, 2], "float32"))
    _raises_like(lambda: paddle.create_parameter([2], "int64"),
                 lambda: oar.create_parameter([2], "int64"))


# ------------------------------------------------------------------------------ Layer hooks
def _twin_linear():
    p = paddle.nn.Linear(3, 2)
    o = oar.nn.Linear(3, 2)
    o.set_state_dict({k: v.numpy() for k, v in p.state_dict().items()})
    return p, o


def test_forward_pre_and_post_hooks_match_paddle():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    p, o = _twin_linear()
    seen = {"paddle": [], "oar": []}

    def pre(who):
        def hook(layer, inputs):
            seen[who].append(("pre", len(inputs), list(inputs[0].shape)))
            return inputs[0] * 2          # a single value is wrapped into a tuple
        return hook

    def post(who):
        def hook(layer, inputs, output):
            seen[who].append(("post", list(inputs[0].shape), list(output.shape)))
            return output + 1
        return hook

    hp = [p.register_forward_pre_hook(pre("paddle")), p.register_forward_post_hook(post("paddle"))]
    ho = [o.register_forward_pre_hook(pre("oar")), o.register_forward_post_hook(post("oar"))]
    np.testing.assert_allclose(o(oar.to_tensor(x)).numpy(), p(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6, atol=1e-6)  # float32 sums near 0
    assert seen["oar"] == seen["paddle"]
    for h in hp + ho:
        h.remove()
    np.testing.assert_allclose(o(oar.to_tensor(x)).numpy(), p(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6, atol=1e-6)  # float32 sums near 0
    assert len(seen["oar"]) == len(seen["paddle"]) == 2


def test_layer_full_names_count_like_paddle():
    p1, p2 = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
    o1, o2 = oar.nn.Linear(2, 2), oar.nn.Linear(2, 2)
    for a, b in ((p1, p2), (o1, o2)):
        stem, n = a.full_name().rsplit("_", 1)
        assert stem == "linear" and b.full_name() == f"linear_{int(n) + 1}"

    class LeNetBlock(oar.nn.Layer):
        pass

    class PLeNetBlock(paddle.nn.Layer):
        pass

    PLeNetBlock.__name__ = "LeNetBlock"
    for op, pp in ((LeNetBlock(), PLeNetBlock()), (oar.nn.MaxPool2D(2), paddle.nn.MaxPool2D(2)),
                   (oar.nn.Conv2D(1, 1, 1), paddle.nn.Conv2D(1, 1, 1)),
                   (oar.nn.Layer("my_scope"), paddle.nn.Layer("my_scope"))):
        assert op.full_name().rsplit("_", 1)[0] == pp.full_name().rsplit("_", 1)[0]


def test_gradient_and_set_value_match_paddle():
    paddle = pytest.importorskip("paddle")
    for lib in (oar, paddle):
        x = lib.to_tensor([1.0, 2.0], stop_gradient=False)
        assert x.gradient() is None
        (x * x).sum().backward()
        g = x.gradient()
        assert isinstance(g, np.ndarray)
        np.testing.assert_array_equal(g, [2.0, 4.0])
        w = lib.nn.Linear(2, 2).weight
        assert w.set_value(np.full((2, 2), 3.0, "float32")) is None
        np.testing.assert_array_equal(w.numpy(), np.full((2, 2), 3.0))
        w.set_value(lib.to_tensor(np.eye(2, dtype="float32")))
        np.testing.assert_array_equal(w.numpy(), np.eye(2))
        before = w.numpy()
        with pytest.raises(AssertionError):
            w.set_value(np.ones(3, "float32"))
        np.testing.assert_array_equal(w.numpy(), before)


def test_param_attrs_are_honoured_or_refused_like_paddle():
    # Note [Parameter attributes]: never train a different model than the program says
    paddle = pytest.importorskip("paddle")
    w = np.arange(6, dtype="float32").reshape(3, 2)
    for lib in (oar, paddle):
        init = lib.nn.initializer
        lin = lib.nn.Linear(3, 2, weight_attr=lib.ParamAttr(initializer=init.Assign(w),
                                                            trainable=False),
                            bias_attr=lib.ParamAttr(initializer=init.Constant(0.25)))
        np.testing.assert_array_equal(lin.weight.numpy(), w)
        np.testing.assert_array_equal(lin.bias.numpy(), [0.25, 0.25])
        assert lin.weight.stop_gradient and not lin.bias.stop_gradient
        conv = lib.nn.Conv2D(1, 2, 3, weight_attr=lib.ParamAttr(initializer=init.Constant(1.0)))
        np.testing.assert_array_equal(conv.weight.numpy(), np.ones((2, 1, 3, 3)))
    for attr in (oar.ParamAttr(learning_rate=0.5),):
        with pytest.raises(NotImplementedError, match="set_value"):
            oar.nn.Linear(2, 3, weight_attr=attr)


def test_random_initializers_have_paddles_spread():
    for make, std in ((lambda: oar.nn.initializer.XavierUniform(), np.sqrt(2 / 500)),
                      (lambda: oar.nn.initializer.XavierNormal(), np.sqrt(2 / 500)),
                      (lambda: oar.nn.initializer.KaimingNormal(), np.sqrt(2 / 200)),
                      (lambda: oar.nn.initializer.KaimingUniform(), np.sqrt(2 / 200)),
                      (lambda: oar.nn.initializer.Normal(0.0, 0.1), 0.1)):
        p = oar.nn.Linear(200, 300).weight     # Paddle's [in, out]: fan_in 200, fan_out 300
        make()(p)
        assert abs(p.numpy().std() / std - 1) < 0.05


def test_grad_clip_that_is_not_a_clip_object_is_refused():
    layer = oar.nn.Linear(2, 2)
    for opt in (oar.optimizer.SGD, oar.optimizer.Adam, oar.optimizer.Momentum,
                oar.optimizer.RMSProp):
        with pytest.raises(TypeError, match="grad_clip"):   # Paddle's TypeError
            opt(learning_rate=0.1, parameters=layer.parameters(), grad_clip=object())
        opt(learning_rate=0.1, parameters=layer.parameters())   # None: fine
