"""View semantics against PyTorch 2.13: which ops view, strides, offsets, contiguity, and
when reshape copies."""
import numpy as np
import pytest

import oar
import oar.torch
from tests.reference.harness import to_numpy, torch


BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

VIEW_CASES = {
    "reshape": lambda x: x.reshape(6, 4),
    "view": lambda x: x.view(4, 6),
    "flatten": lambda x: x.flatten(),
    "flatten_1": lambda x: x.flatten(1),
    "transpose": lambda x: x.transpose(0, 2),
    "permute": lambda x: x.permute(2, 0, 1),
    "t_of_2d": lambda x: x[0].t(),
    "squeeze": lambda x: x[:, :1].squeeze(1),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_last": lambda x: x.transpose(0, 1).unsqueeze(-1),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "getitem_int": lambda x: x[1],
    "getitem_slice_step": lambda x: x[:, ::2, 1:3],
    "getitem_none_ellipsis": lambda x: x[None, ..., 2],
    "getitem_0d": lambda x: x[1, 2, 3],
    "select": lambda x: x.select(1, 2),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "diagonal": lambda x: x.diagonal(1, 1, 2),
    "diagonal_neg": lambda x: x[0].diagonal(-1),
    "as_strided": lambda x: x.as_strided((3, 3), (4, 1), 2),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "movedim": lambda x: x.movedim(0, 2),
    # PyTorch's split (pieces of size 2): the PyTorch door's for an oar tensor
    "split_1": lambda x: (oar.torch.split if isinstance(x, oar.Tensor) else torch.split)(
        x, 2, dim=2)[1],
    "split_sizes": lambda x: x.split([1, 3], 2)[1],   # sizes: one meaning in both doors
    "chunk_1": lambda x: x.chunk(3, 1)[2],
    "unbind_1": lambda x: x.unbind(1)[1],
    "unbind_of_1d": lambda x: x[1, 2].unbind(0)[3],
    "select_of_1d": lambda x: x[0, 1].select(0, 2),
    "tensor_split_1": lambda x: x.tensor_split(3, 2)[1],
    "reshape_of_transposed_split": lambda x: x.transpose(1, 2).reshape(2, 2, 2, 3),
    "reshape_slice": lambda x: x[:, :2].reshape(4, 4),
    "reshape_copy": lambda x: x.transpose(1, 2).reshape(2, 12),
    "reshape_copy2": lambda x: x[..., :2].reshape(2, 6),
    "flatten_copy": lambda x: x.permute(2, 0, 1).flatten(),
    "contiguous_copy": lambda x: x.transpose(0, 1).contiguous(),
    "expand_reshape_view": lambda x: x[:, :1, :1].expand(2, 3, 4).reshape(2, 3, 2, 2),
    "expand_reshape_copy": lambda x: x[:, :1, :1].expand(2, 3, 4).reshape(24),
    "broadcast_to": lambda x: x[:, :1].broadcast_to((2, 3, 4)),
    "expand_as": lambda x: x[:, :1].expand_as(x),
    "view_as": lambda x: x.view_as(x.reshape(6, 4)),
    "reshape_as": lambda x: x.reshape_as(x.reshape(4, 6)),
    "reshape_as_copy": lambda x: x.transpose(1, 2).reshape_as(x.reshape(2, 12)),
    "swapaxes": lambda x: x.swapaxes(0, 2),
    "swapdims": lambda x: x.swapdims(1, 2),
    "moveaxis": lambda x: x.moveaxis(0, -1),
}


def _facts(t, base, lib):
    shares = t.data_ptr() >= base.data_ptr() and t.data_ptr() < base.data_ptr() + 24 * 4 \
        if lib == "torch" else t._storage is base._storage
    facts = dict(shape=list(t.shape), values=to_numpy(t).tolist(), shares=bool(shares))
    if shares:
        facts.update(stride=list(t.stride()), offset=t.storage_offset(),
                     contiguous=t.is_contiguous())
    return facts


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_view_matches_torch(name):
    f = VIEW_CASES[name]
    tb = torch.tensor(BASE.copy())
    ob = oar.to_tensor(BASE.copy())
    tt, ot = f(tb), f(ob)
    assert _facts(ot, ob, "oar") == _facts(tt, tb, "torch")
    # writing through the result reaches the base exactly when torch's does
    overlapping = torch._debug_has_internal_overlap(tt) == 1 or name == "unfold"   # 1: YES
    if overlapping and _facts(tt, tb, "torch")["shares"]:
        # several elements share one memory location: oar refuses the write (torch checks
        # only stride-0 dims and lets overlapping windows through, order-dependent)
        before = ob.numpy()
        with pytest.raises(RuntimeError, match="single memory location"):
            ot.add_(100)
        np.testing.assert_array_equal(ob.numpy(), before)
        assert ob._version == 0
    elif _facts(tt, tb, "torch")["shares"]:
        with torch.no_grad():
            tt.add_(100)
        ot.add_(100)
        np.testing.assert_array_equal(ob.numpy(), tb.numpy())
        assert ob._version == tb._version == 1
        assert ot._version == 1


def test_view_errors_match_torch():
    tb, ob = torch.tensor(BASE.copy()), oar.to_tensor(BASE.copy())
    for f in (lambda x: x.transpose(1, 2).view(24), lambda x: x.view(5, 5),
              lambda x: x.view(-1, -1)):
        with pytest.raises(RuntimeError):
            f(tb)
        with pytest.raises((RuntimeError, ValueError)):
            f(ob)
    with pytest.raises(RuntimeError, match="Use .reshape"):
        ob.transpose(1, 2).view(24)


def test_detach_and_contiguous_identity():
    o = oar.to_tensor(BASE.copy())
    assert o.contiguous() is o
    d = o.detach()
    assert d._storage is o._storage and d._base is None
    d.add_(1)
    assert o._version == 1 and o.numpy()[0, 0, 0] == 1


# in-place metadata ops: the tensor itself becomes the view (shape, strides, offset change;
# values and storage do not); name -> (starting shape, op)
INPLACE_VIEW_CASES = {
    "t_": ((6, 4), lambda x: x.t_()),
    "transpose_": ((2, 3, 4), lambda x: x.transpose_(0, 2)),
    "swapdims_": ((2, 3, 4), lambda x: x.swapdims_(0, 1)),
    "squeeze_": ((2, 1, 12), lambda x: x.squeeze_(1)),
    "squeeze_all": ((2, 1, 12), lambda x: x.squeeze_()),
    "unsqueeze_": ((2, 3, 4), lambda x: x.unsqueeze_(1)),
    "unsqueeze_last": ((2, 3, 4), lambda x: x.unsqueeze_(-1)),
}


def _inplace_view_run(lib, name):
    shape, f = INPLACE_VIEW_CASES[name]
    L = torch if lib == "torch" else oar
    x = L.tensor(BASE.reshape(shape).copy())
    storage_before = x.data_ptr()
    r = f(x)
    facts = dict(same=r is x, shape=list(x.shape), stride=list(x.stride()),
                 offset=x.storage_offset(), contiguous=x.is_contiguous(),
                 values=to_numpy(x).tolist(), version=x._version,
                 same_memory=x.data_ptr() == storage_before)
    # gradients through the metadata change on a non-leaf
    w = L.tensor(BASE.reshape(shape).copy() / 10, requires_grad=True)
    a = w * 1
    f(a)
    (a * L.tensor(np.arange(a.numel(), dtype=np.float32).reshape(tuple(a.shape)))).sum().backward()
    facts["w.grad"] = to_numpy(w.grad).tolist()
    return facts


@pytest.mark.parametrize("name", sorted(INPLACE_VIEW_CASES))
def test_inplace_view_op_matches_torch(name):
    assert _inplace_view_run("oar", name) == _inplace_view_run("torch", name)
