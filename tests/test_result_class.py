"""Note [Result class]: every op called on PyTorch-door tensors returns `oar.torch.Tensor`s.

Derived from the op registry: every public function in `oar.ops.registry.FUNCTIONS` is
either spelled by a row of the op table (tests/op_table.py: function, method, in-place and
operator forms, with its sample inputs), has a sample call in SAMPLES below (view ops,
metadata in-place ops, multi-output ops, the ops the table exempts), or takes no tensor at
all (NO_TENSOR_INPUT). A new public op without one of these fails
test_every_public_function_is_covered. In-place spellings must return the very object they
wrote into; a leaf's `.grad` after backward is a door tensor too. No oracle is needed: the
class is oar's own contract.
"""
import operator as pyop

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.ops.registry import FUNCTIONS
from oar.torch._tensor import as_door
from tests.op_table import ALIASES, ROWS, In
from tests.test_op_table import BINARY_OPS, IOPS, UNARY_OPS, call, make_arrays

DOOR = otorch.Tensor
# methods whose meaning the PyTorch door changes (their spelling differs from the table's
# Paddle layout; tests/test_doors_conflicts.py checks them, results included)
OVERRIDDEN = {n for n in vars(DOOR) if not n.startswith("__")}


def door(a):
    return as_door(oar.to_tensor(np.array(a)))


def X(shape=(3, 4), requires_grad=False, dtype="float32"):
    t = door(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape).astype(dtype) / 7)
    return t.requires_grad_() if requires_grad else t


def all_door(out, where):
    """Every tensor in out (nested tuples/lists) is a PyTorch-door tensor."""
    if isinstance(out, (tuple, list)):
        assert len(out) > 0 or isinstance(out, list), where
        for o in out:
            all_door(o, where)
        return
    if isinstance(out, oar.Tensor):
        assert type(out) is DOOR, f"{where}: {type(out).__module__}.{type(out).__name__}"


def door_args(row, rng):
    return [door(a) for a in make_arrays(row, rng)]


# ---------------------------------------------------------------------------- the op table
OUTPLACE = [r for r in ROWS if r.outplace]
INPLACE = [r for r in ROWS if r.inplace]


@pytest.mark.parametrize("row", OUTPLACE, ids=lambda r: r.id)
def test_function_and_method_forms(row):
    rng = np.random.default_rng(0)
    all_door(call(row, door_args(row, rng), "function"), f"oar.{row.name}")
    if row.name not in OVERRIDDEN and hasattr(otorch, row.name):
        args = door_args(row, rng)
        layout = row.layout or tuple(In(i) for i in range(row.n_inputs))
        from tests.test_op_table import _resolve
        out = getattr(otorch, row.name)(*[_resolve(a, args) for a in layout], **row.kwargs)
        all_door(out, f"oar.torch.{row.name}")
    if row.method and row.name not in OVERRIDDEN:
        all_door(call(row, door_args(row, rng), "method"), f"Tensor.{row.name}")


@pytest.mark.parametrize("row", INPLACE, ids=lambda r: r.id)
def test_inplace_forms_return_the_same_door_tensor(row):
    rng = np.random.default_rng(1)
    spellings = ["inplace_function"] + (["inplace_method"] if row.method else [])
    for sp in spellings:
        if sp == "inplace_method" and row.name + "_" in OVERRIDDEN:
            continue
        args = door_args(row, rng)
        out = call(row, args, sp)
        assert out is args[row.target] and type(out) is DOOR, (row.id, sp)


OPERATOR_ROWS = [r for r in ROWS if r.operator]


@pytest.mark.parametrize("row", OPERATOR_ROWS, ids=lambda r: r.id)
def test_operator_forms(row):
    rng = np.random.default_rng(2)
    args = door_args(row, rng)
    if row.n_inputs == 1:
        all_door(UNARY_OPS[row.operator](args[0]), f"{row.operator} x")
        return
    x, y = args[0], args[1]
    all_door(BINARY_OPS[row.operator](x, y), f"x {row.operator} y")
    if row.scalar_other is not None:
        all_door(BINARY_OPS[row.operator](x, row.scalar_other), f"x {row.operator} number")
        all_door(BINARY_OPS[row.operator](row.scalar_other, x), f"number {row.operator} x")
    if row.inplace and row.operator in IOPS:
        alias = x
        x = IOPS[row.operator](x, y)
        assert x is alias and type(x) is DOOR


GRAD_ROWS = [r for r in OUTPLACE if r.grad and "float" in r.in_dtypes]


@pytest.mark.parametrize("row", GRAD_ROWS, ids=lambda r: r.id)
def test_leaf_grad_is_a_door_tensor(row):
    rng = np.random.default_rng(3)
    args = [a.requires_grad_() if a._data.dtype.kind == "f" else a
            for a in door_args(row, rng)]
    out = call(row, args, "function")
    all_door(out, row.id)
    out.sum().backward()
    for a in args:
        if a.requires_grad:
            assert type(a.grad) is DOOR, (row.id, type(a.grad))


# ---------------------------------------------------------------------------- other ops
# name -> (call on fresh door tensors, in place?)  The call returns the result.
def _inplace(f):
    return (f, True)


def _meta(name, make, *args):
    """A metadata in-place op: returns (the op's result, the tensor it was called on)."""
    def run():
        x = make()
        return getattr(oar, name)(x, *args), x
    return _inplace(run)


SAMPLES = {
    "assign": (lambda: oar.assign(X()), False),
    # view ops (tests/op_table.py exempts them: tested against torch elsewhere)
    "reshape": (lambda: oar.reshape(X(), [12]), False),
    "view": (lambda: X().view(12), False),
    "flatten": (lambda: oar.flatten(X()), False),
    "transpose": (lambda: oar.transpose(X(), [1, 0]), False),
    "permute": (lambda: oar.permute(X(), [1, 0]), False),
    "t": (lambda: oar.t(X()), False),
    "squeeze": (lambda: oar.squeeze(X((1, 3))), False),
    "unsqueeze": (lambda: oar.unsqueeze(X(), 0), False),
    "expand": (lambda: oar.expand(X((1, 4)), [2, 4]), False),
    "select": (lambda: oar.select(X(), 0, 1), False),
    "narrow": (lambda: oar.narrow(X(), 1, 0, 2), False),
    "slice": (lambda: oar.slice(X(), [1], [0], [2]), False),
    "diagonal": (lambda: oar.diagonal(X()), False),
    "as_strided": (lambda: oar.as_strided(X(), [2, 2], [1, 1]), False),
    "unfold": (lambda: oar.unfold(X(), 1, 2, 1), False),
    "movedim": (lambda: oar.movedim(X(), 0, 1), False),
    "moveaxis": (lambda: oar.moveaxis(X(), 0, 1), False),
    "split": (lambda: oar.split(X(), 2, 1), False),
    "chunk": (lambda: oar.chunk(X(), 2, 1), False),
    "unbind": (lambda: oar.unbind(X(), 0), False),
    "tensor_split": (lambda: oar.tensor_split(X(), 3, 1), False),
    "contiguous": (lambda: oar.contiguous(X().t()), False),
    "detach": (lambda: oar.detach(X(requires_grad=True)), False),
    "broadcast_to": (lambda: oar.broadcast_to(X(), [2, 3, 4]), False),
    "expand_as": (lambda: oar.expand_as(X((1, 4)), X()), False),
    "view_as": (lambda: oar.view_as(X(), X((4, 3))), False),
    "reshape_as": (lambda: oar.reshape_as(X(), X((4, 3))), False),
    "swapaxes": (lambda: oar.swapaxes(X(), 0, 1), False),
    "swapdims": (lambda: oar.swapdims(X(), 0, 1), False),
    "hsplit": (lambda: oar.hsplit(X(), 2), False),
    "vsplit": (lambda: oar.vsplit(X(), 3), False),
    "dsplit": (lambda: oar.dsplit(X((2, 3, 4)), 2), False),
    "split_with_sizes": (lambda: oar.split_with_sizes(X(), [1, 2]), False),
    "unflatten": (lambda: oar.unflatten(X(), 1, [2, 2]), False),
    # metadata in-place ops: the tensor itself takes the new geometry
    "t_": _meta("t_", X),
    "transpose_": _meta("transpose_", X, [1, 0]),
    "swapdims_": _meta("swapdims_", X, 0, 1),
    "squeeze_": _meta("squeeze_", lambda: X((1, 3))),
    "unsqueeze_": _meta("unsqueeze_", X, 0),
    "reshape_": _meta("reshape_", X, [12]),
    "flatten_": _meta("flatten_", X),
    "as_strided_": _meta("as_strided_", X, [2, 2], [1, 1]),
    "resize_": _meta("resize_", X, 2, 2),
    "resize_as_": _meta("resize_as_", X, X((2, 2))),
    "detach_": _meta("detach_", lambda: X(requires_grad=True) * 1),
    # multi-output and index-selecting reductions
    "sort": (lambda: oar.sort(X(), 1), False),
    "argsort": (lambda: oar.argsort(X(), 1), False),
    "topk": (lambda: oar.topk(X(), 2), False),
    "kthvalue": (lambda: oar.kthvalue(X(), 2, 1), False),
    "mode": (lambda: oar.mode(X(), 1), False),
    "median": (lambda: (oar.median(X(), 1), oar.median(X(), 1, mode="min"), oar.median(X())),
               False),
    "cummax": (lambda: oar.cummax(X(), 1), False),
    "cummin": (lambda: oar.cummin(X()), False),
    "var_mean": (lambda: oar.var_mean(X(), 1), False),
    "std_mean": (lambda: oar.std_mean(X()), False),
    "nonzero": (lambda: (oar.nonzero(X()), oar.nonzero(X(), as_tuple=True)), False),
    # functions of a tensor outside the table
    "add_n": (lambda: oar.add_n([X(), X()]), False),
    "dist": (lambda: oar.dist(X(), X() * 2), False),
    "norm": (lambda: oar.norm(X()), False),
    "equal_all": (lambda: oar.equal_all(X(), X()), False),
    "bernoulli": (lambda: oar.bernoulli(X() / 3), False),
    "multinomial": (lambda: oar.multinomial(X((4,)), 2), False),
    "zeros_like": (lambda: oar.zeros_like(X()), False),
    "ones_like": (lambda: oar.ones_like(X()), False),
    "full_like": (lambda: oar.full_like(X(), 2.0), False),
    "empty_like": (lambda: oar.empty_like(X()), False),
    "rand_like": (lambda: oar.rand_like(X()), False),
    "randn_like": (lambda: oar.randn_like(X()), False),
    "randint_like": (lambda: oar.randint_like(X(), 0, 5), False),
    # random in-place fills
    "bernoulli_": _meta("bernoulli_", X, 0.5),
    "exponential_": _meta("exponential_", X),
    "normal_": _meta("normal_", X),
    "uniform_": _meta("uniform_", X),
    "random_": _meta("random_", lambda: X(dtype="int64"), 0, 5),
}
# shifts (integer tensors), threshold and swapaxes_ (tests/test_torch_errors_overloads.py)
def _ints():
    return door(np.arange(12, dtype=np.int64).reshape(3, 4))


SAMPLES.update({
    "bitwise_left_shift": (lambda: oar.bitwise_left_shift(_ints(), 1), False),
    "bitwise_right_shift": (lambda: oar.bitwise_right_shift(_ints(), 1), False),
    "bitwise_left_shift_": _meta("bitwise_left_shift_", _ints, 1),
    "bitwise_right_shift_": _meta("bitwise_right_shift_", _ints, 1),
    "swapaxes_": _meta("swapaxes_", X, 0, 1),
    "threshold": (lambda: oar.threshold(X(), 0.5, 0.0), False),
    "threshold_": _meta("threshold_", X, 0.5, 0.0),
})
# functions that take no tensor: nothing to follow (the door's creation functions make door
# tensors themselves)
NO_TENSOR_INPUT = {
    "arange", "empty", "eye", "from_numpy", "full", "linspace", "ones", "tensor", "zeros",
    "to_tensor", "manual_seed", "seed", "set_default_dtype", "normal", "rand", "randint",
    "randn", "randperm", "standard_normal", "uniform",
}


def _table_spellings():
    names = set()
    for r in ROWS:
        names |= r.spellings()
    for alias, name in ALIASES.items():
        names.add(alias)
        if name + "_" in names:
            names.add(alias + "_")
    return names


def test_every_public_function_is_covered():
    covered = _table_spellings() | set(SAMPLES) | NO_TENSOR_INPUT
    missing = sorted(n for n in FUNCTIONS if n not in covered)
    assert not missing, (f"public functions with no result-class check: {missing}; add a "
                         "row to tests/op_table.py or a sample to SAMPLES here")
    stale = sorted(n for n in set(SAMPLES) | NO_TENSOR_INPUT if n not in FUNCTIONS)
    assert not stale, f"samples for functions that do not exist: {stale}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_results_are_door_tensors(name):
    if name not in FUNCTIONS:
        pytest.skip(f"{name} is not a public function in this tree")
    run, inplace = SAMPLES[name]
    out = run()
    if inplace:
        out, x = out
        assert out is x and type(x) is DOOR, name
    else:
        all_door(out, name)


def test_views_of_a_door_tensor_and_their_gradients():
    x = X(requires_grad=True)
    pieces = oar.split(x, 2, 1) + oar.unbind(x, 0) + [x.t(), x[1:, ::2], x.reshape([12])]
    for p in pieces:
        assert type(p) is DOOR and p._base is x
    sum(p.sum() for p in pieces).backward()
    assert type(x.grad) is DOOR


def test_grad_of_a_door_leaf_through_matmul_and_reductions():
    w = X((4, 2), requires_grad=True)
    y = (X() @ w).relu().mean() + w.amax() + w.sum(0).prod()
    y.backward()
    assert type(w.grad) is DOOR
    g = X((4, 2), requires_grad=True)
    (X() @ g).backward(X((3, 2)))
    assert type(g.grad) is DOOR


def test_parameter_results_are_plain_door_tensors():
    p = otorch.Parameter(X())
    assert type(p * 2) is DOOR and type(p.t()) is DOOR
    (p * 2).sum().backward()
    assert type(p.grad) is DOOR


def test_retained_grad_deepcopy_and_pickle_keep_the_class():
    import copy
    import pickle
    x = X(requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    assert type(y.grad) is DOOR
    assert type(copy.deepcopy(X())) is DOOR
    assert type(pickle.loads(pickle.dumps(X()))) is DOOR
    assert type(pickle.loads(pickle.dumps(oar.ones([2])))) is oar.Tensor


def test_paddle_door_tensors_stay_core_tensors():
    x = oar.ones([3, 4])
    for out in (x + 1, x.t(), oar.split(x, 2, 1)[0], oar.sort(x, 1), oar.numel(x), x.argmax()):
        assert type(out) is oar.Tensor
    z = oar.ones([3, 4])
    z.stop_gradient = False
    (z * pyop.neg(z)).sum().backward()
    assert type(z.grad) is oar.Tensor

# scans and sets (oar/ops/scans.py)
SAMPLES.update({
    "searchsorted": (lambda: oar.searchsorted(X((12,)), X((3, 4))), False),
    "bucketize": (lambda: oar.bucketize(X(), X((12,))), False),
    "bincount": (lambda: oar.bincount(door(np.array([0, 2, 2], np.int64))), False),
    "histc": (lambda: oar.histc(X(), bins=4), False),
    "meshgrid": (lambda: oar.meshgrid(X((3,)), X((4,))), False),
    "unique_consecutive": (lambda: oar.unique_consecutive(X(), True, True), False),
})
# matrix ops (oar/ops/linalg.py; values and gradients in tests/test_matrix_ops.py)
SAMPLES.update({
    "diag": (lambda: oar.diag(X((3,))), False),
    "diagflat": (lambda: oar.diagflat(X((2, 2))), False),
    "trace": (lambda: oar.trace(X()), False),
    "outer": (lambda: oar.outer(X((3,)), X((2,))), False),
    "kron": (lambda: oar.kron(X((2, 2)), X((2,))), False),
    "cross": (lambda: oar.cross(X((2, 3)), X((2, 3))), False),
    "addmv": (lambda: oar.addmv(X((3,)), X((3, 4)), X((4,))), False),
    "addbmm": (lambda: oar.addbmm(X((3, 5)), X((2, 3, 4)), X((2, 4, 5))), False),
    "baddbmm": (lambda: oar.baddbmm(X((2, 3, 5)), X((2, 3, 4)), X((2, 4, 5))), False),
    "addmv_": _inplace(lambda: (lambda x: (oar.addmv_(x, X((3, 4)), X((4,))), x))(X((3,)))),
    "addbmm_": _inplace(lambda: (lambda x: (oar.addbmm_(x, X((2, 3, 4)), X((2, 4, 5))), x))(X((3, 5)))),
    "baddbmm_": _inplace(lambda: (lambda x: (oar.baddbmm_(x, X((2, 3, 4)), X((2, 4, 5))), x))(X((2, 3, 5)))),
})

# decompositions and solvers (oar/ops/decomp.py; values and gradients, and the result class
# of every oar.linalg / torch.linalg function, in tests/test_breadth_linalg.py)
SAMPLES.update({
    "inverse": (lambda: oar.inverse(X((2, 2))), False),
    "cholesky": (lambda: oar.cholesky(X((2, 2)) @ X((2, 2)).T), False),
    "eigvalsh": (lambda: oar.eigvalsh(X((2, 2))), False),
})


# complex dtypes (oar/ops/complex.py; tests/test_dtypes_complex.py)
def _cx():
    return door(np.array([[1 + 2j, 3 - 4j], [0.5j, 2]], np.complex64))


SAMPLES.update({
    "angle": (lambda: oar.angle(_cx()), False),
    "as_complex": (lambda: oar.as_complex(X((3, 2))), False),
    "as_real": (lambda: oar.as_real(_cx()), False),
    "complex": (lambda: oar.complex(X(), X()), False),
    "conj": (lambda: oar.conj(_cx()), False),
    "imag": (lambda: oar.imag(_cx()), False),
    "is_complex": (lambda: oar.is_complex(_cx()), False),
    "polar": (lambda: oar.polar(X(), X()), False),
    "real": (lambda: oar.real(_cx()), False),
    "view_as_complex": (lambda: oar.view_as_complex(X((3, 2))), False),
    "view_as_real": (lambda: oar.view_as_real(_cx()), False),
})
SAMPLES.update({   # Paddle's dtype predicates (tests/test_paddle_exact2.py)
    "is_floating_point": (lambda: oar.is_floating_point(X()), False),
    "is_integer": (lambda: oar.is_integer(X()), False),
})

# oar/ops/pointwise_more.py composites and Paddle's cast_
SAMPLES.update({
    "addmm": (lambda: oar.addmm(X((4,)), X((3, 2)), X((2, 4))), False),
    "addmm_": _inplace(lambda: (lambda x: (oar.addmm_(x, X((3, 2)), X((2, 4))), x))(X())),
    "renorm": (lambda: oar.renorm(X(), 2.0, 0, 1.0), False),
    "renorm_": _inplace(lambda: (lambda x: (oar.renorm_(x, 2.0, 0, 1.0), x))(X())),
    "index_fill": (lambda: oar.index_fill(X(), door([0, 2]), 1, -1.0), False),
    "index_fill_": _inplace(lambda: (lambda x: (oar.index_fill_(x, door([1]), 0, 0.5), x))(X())),
    "masked_scatter": (lambda: oar.masked_scatter(X(), X() > 0.5, X()), False),
    "masked_scatter_": _inplace(lambda: (lambda x: (oar.masked_scatter_(x, X() > 0.5, X()),
                                                     x))(X())),
    "cast_": _inplace(lambda: (lambda x: (oar.cast_(x, "float64"), x))(X())),
    "bitwise_invert": (lambda: oar.bitwise_invert(X(dtype="int64")), False),
    "bitwise_invert_": _inplace(lambda: (lambda x: (oar.bitwise_invert_(x), x))(X(dtype="int64"))),
})

# everyday ops (oar/ops/more_ops.py; values and gradients in tests/test_breadth_ops2.py)
SAMPLES.update({
    "dot": (lambda: oar.dot(X((4,)), X((4,))), False),
    "mv": (lambda: oar.mv(X(), X((4,))), False),
    "rot90": (lambda: oar.rot90(X(), 1, [0, 1]), False),
    "fliplr": (lambda: oar.fliplr(X()), False),
    "flipud": (lambda: oar.flipud(X()), False),
    "nansum": (lambda: oar.nansum(X(), 1), False),
    "nanmean": (lambda: oar.nanmean(X(), 0), False),
    "diff": (lambda: oar.diff(X(), 1, 0, X((1, 4))), False),
    "repeat_interleave": (lambda: oar.repeat_interleave(X(), door([1, 0, 2]), 0), False),
    "take_along_dim": (lambda: oar.take_along_dim(X(), door([[0], [2], [1]]), 1), False),
    "tensordot": (lambda: oar.tensordot(X(), X((4, 2)), 1), False),
    "matrix_power": (lambda: oar.matrix_power(X((3, 3)), 3), False),
    "isin": (lambda: oar.isin(X(), X((2,))), False),
    "broadcast_tensors": (lambda: oar.broadcast_tensors([X((3, 1)), X((4,))]), False),
    "atleast_1d": (lambda: oar.atleast_1d(X(()), X((2,))), False),
    "atleast_2d": (lambda: oar.atleast_2d(X((2,))), False),
    "atleast_3d": (lambda: oar.atleast_3d(X((2,))), False),
})
SAMPLES.update({
    "signbit": (lambda: oar.signbit(X()), False),
    "isneginf": (lambda: oar.isneginf(X()), False),
    "isposinf": (lambda: oar.isposinf(X()), False),
    "isreal": (lambda: oar.isreal(X()), False),
    "heaviside": (lambda: oar.heaviside(X(), X((4,))), False),
    "heaviside_": _inplace(lambda: (lambda x: (oar.heaviside_(x, X((4,))), x))(X())),
    "positive": (lambda: oar.positive(X()), False),
    "ger": (lambda: oar.ger(X((3,)), X((4,))), False),
    "inner": (lambda: oar.inner(X(), X((2, 4))), False),
    "vdot": (lambda: oar.vdot(X((4,)), X((4,))), False),
    "argwhere": (lambda: oar.argwhere(X()), False),
    "trapezoid": (lambda: oar.trapezoid(X()), False),
    "trapz": (lambda: oar.trapz(X(), dx=0.5), False),
    "cumulative_trapezoid": (lambda: oar.cumulative_trapezoid(X(), X((4,))), False),
    "block_diag": (lambda: oar.block_diag([X((2, 2)), X((3,))]), False),
    "cartesian_prod": (lambda: oar.cartesian_prod([X((2,)), X((3,))]), False),
    "cov": (lambda: oar.cov(X()), False),
    "corrcoef": (lambda: oar.corrcoef(X()), False),
})
NO_TENSOR_INPUT |= {"broadcast_shape", "broadcast_shapes"}
SAMPLES.update({   # oar/ops/more_ops3.py
    "frexp": (lambda: oar.frexp(X()), False),
    "nextafter": (lambda: oar.nextafter(X(), X((4,))), False),
    "nextafter_": _inplace(lambda: (lambda x: (oar.nextafter_(x, X((4,))), x))(X())),
    "diag_embed": (lambda: oar.diag_embed(X()), False),
    "nanmedian": (lambda: oar.nanmedian(X(), 1, mode="min"), False),
    "quantile": (lambda: oar.quantile(X(), [0.2, 0.5], 1), False),
    "nanquantile": (lambda: oar.nanquantile(X(), 0.5), False),
    "vander": (lambda: oar.vander(X((4,))), False),
    "select_scatter": (lambda: oar.select_scatter(X(), X((4,)), 0, 1), False),
    "diagonal_scatter": (lambda: oar.diagonal_scatter(X(), X((3,))), False),
    "slice_scatter": (lambda: oar.slice_scatter(X(), X((3, 2)), [1], [0], [4], [2]), False),
})

SAMPLES.update({   # oar/ops/paddle_ops.py (Paddle's own ops, fed door tensors)
    "gather_nd": (lambda: oar.gather_nd(X(), door(np.array([[1, 2], [0, 0]]))), False),
    "scatter_nd_add": (lambda: oar.scatter_nd_add(X(), door(np.array([[1], [1]])), X((2, 4))),
                       False),
    "scatter_nd": (lambda: oar.scatter_nd(door(np.array([[1], [1]])), X((2, 4)), [3, 4]), False),
    "index_sample": (lambda: oar.index_sample(X(), door(np.array([[0], [3], [1]]))), False),
    "strided_slice": (lambda: oar.strided_slice(X(), [1], [3], [0], [-1]), False),
    "unstack": (lambda: oar.unstack(X(), 1), False),
    "reverse": (lambda: oar.reverse(X(), [0]), False),
    "multiplex": (lambda: oar.multiplex([X(), X()], door(np.array([[1], [0], [1]], np.int32))),
                  False),
    "combinations": (lambda: oar.combinations(X((4,)), 2), False),
    "crop": (lambda: oar.crop(X(), [2, 2], [1, 1]), False),
    "shard_index": (lambda: oar.shard_index(door(np.array([[3], [9]])), 10, 2, 1), False),
})
NO_TENSOR_INPUT |= {"logspace"}
