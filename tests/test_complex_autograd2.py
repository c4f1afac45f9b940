"""Complex gradients beyond the core arithmetic (Note [Complex autograd], oar/ops/complex.py):
each op marked complex_grad has its x.grad compared with torch 2.13's for random complex128
inputs (a contiguous and a non-contiguous input, two real losses: one non-holomorphic
(|y|^2), one linear in the real and imaginary parts), inputs near 1 and spread over all four
quadrants (branches of sqrt, log, acosh, ...), zeros where an op has a special case (prod,
cumprod, sgn, pow), and a few against paddle 3.3.1 through the Paddle door."""
import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.errors import DtypeNotImplementedError
from oar.ops.registry import OPS

torch = pytest.importorskip("torch")

S = (3, 4)


def _rnd(shape, seed, wide=False, zeros=False):
    r = np.random.default_rng(seed)
    lo, hi, sc = (-2.0, 2.0, 2.0) if wide else (0.3, 1.3, 1.0)
    v = r.uniform(lo, hi, shape) + 1j * sc * r.uniform(-1, 1, shape)
    if zeros:
        v.flat[1] = 0
        v.flat[-2] = 0
    return v


def _real(shape, seed, wide=False, zeros=False):
    return _rnd(shape, seed, wide, zeros).real


IDX = {"sel": [0, 2, 2], "gat": [[0, 1], [1, 1], [3, 0]], "mask": [True, False, True, False]}

# name -> (fn(module, *inputs), input shapes, input maker)
CASES = {
    # holomorphic pointwise ops: grad = g * conj(f'(z))
    **{n: (lambda m, x, n=n: getattr(x, n)(), [S], _rnd) for n in (
        "log", "log1p", "log2", "log10", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh",
        "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid",
        "square", "sgn")},
    "exp2": (lambda m, x: m.exp2(x), [S], _rnd),
    "pow_float": (lambda m, x: x ** 2.5, [S], _rnd),
    "pow_int": (lambda m, x: x ** 3, [S], _rnd),
    "pow_zero_exponent": (lambda m, x: x ** 0, [S], _rnd),
    "pow_complex_exponent": (lambda m, x: x ** (1.5 - 0.5j), [S], _rnd),
    "pow_number_base": (lambda m, x: 2.0 ** x, [S], _rnd),
    "pow_negative_number_base": (lambda m, x: (-1.5) ** x, [S], _rnd),
    "pow_tensors": (lambda m, x, y: x ** y, [S, S], _rnd),
    "pow_real_base_complex_exponent": (lambda m, x, y: x.abs() ** y, [S, S], _rnd),
    "pow_method": (lambda m, x, y: m.pow(x, y[0]), [S, S], _rnd),
    # real / imaginary parts and the real views
    "real_imag": (lambda m, x: x.real * x.imag + x.imag, [S], _rnd),
    "view_as_real": (lambda m, x: m.view_as_real(x) ** 2, [S], _rnd),
    "view_as_complex": (lambda m, x: m.view_as_complex(m.view_as_real(x * 2).contiguous()),
                        [S], _rnd),
    "polar": (lambda m, a, b: m.polar(a.abs(), b.real), [S, S], _rnd),
    # reductions and scans
    "prod_dim": (lambda m, x: x.prod(1), [S], _rnd),
    "prod_all": (lambda m, x: x.prod(), [S], _rnd),
    "cumsum": (lambda m, x: x.cumsum(1), [S], _rnd),
    "cumprod": (lambda m, x: x.cumprod(1), [S], _rnd),
    "var": (lambda m, x: x.var(1), [S], _rnd),
    "var_all": (lambda m, x: x.var(), [S], _rnd),
    "std": (lambda m, x: x.std(0), [S], _rnd),
    "var_mean": (lambda m, x: m.var_mean(x, 1)[0] * m.var_mean(x, 1)[1], [S], _rnd),
    "std_mean": (lambda m, x: m.std_mean(x, 0, correction=0)[0] + m.std_mean(x, 0)[1],
                 [S], _rnd),
    "vector_norm_2": (lambda m, x: m.linalg.vector_norm(x, dim=1), [S], _rnd),
    "vector_norm_1": (lambda m, x: m.linalg.vector_norm(x, ord=1), [S], _rnd),
    "vector_norm_3": (lambda m, x: m.linalg.vector_norm(x, ord=3, dim=0), [S], _rnd),
    "vector_norm_inf": (lambda m, x: m.linalg.vector_norm(x, ord=float("inf"), dim=1),
                        [S], _rnd),
    # products and contractions
    "dot": (lambda m, x, y: m.dot(x, y), [(4,), (4,)], _rnd),
    "vdot": (lambda m, x, y: m.vdot(x, y), [(4,), (4,)], _rnd),
    "mm": (lambda m, x, y: m.mm(x, y), [(3, 4), (4, 2)], _rnd),
    "bmm": (lambda m, x, y: m.bmm(x, y), [(2, 3, 4), (2, 4, 2)], _rnd),
    "mv": (lambda m, x, y: m.mv(x, y), [(3, 4), (4,)], _rnd),
    "outer": (lambda m, x, y: m.outer(x, y), [(3,), (4,)], _rnd),
    "einsum": (lambda m, x, y: m.einsum("ij,jk->ik", x, y), [(3, 4), (4, 2)], _rnd),
    "einsum_three": (lambda m, x, y, z: m.einsum("bij,bjk,k->bi", x, y, z),
                     [(2, 3, 4), (2, 4, 2), (2,)], _rnd),
    "einsum_diagonal": (lambda m, x: m.einsum("ii->i", x), [(4, 4)], _rnd),
    "kron": (lambda m, x, y: m.kron(x, y), [(2, 3), (2, 2)], _rnd),
    "addcmul": (lambda m, x, y, z: m.addcmul(x, y, z, value=0.5), [S, S, S], _rnd),
    "addcdiv": (lambda m, x, y, z: m.addcdiv(x, y, z, value=-1.5), [S, S, S], _rnd),
    "addcdiv_real_tensor": (lambda m, x, y, z: m.addcdiv(x, y.real, z, value=2), [S, S, S],
                            _rnd),
    "complex_times_real_matrix": (lambda m, x, y: x @ y.real.to(x.dtype), [(3, 4), (4, 2)], _rnd),
    # shape and selection ops
    "trace": (lambda m, x: m.trace(x), [(4, 4)], _rnd),
    "diag": (lambda m, x: m.diag(x), [(4, 4)], _rnd),
    "diag_embed": (lambda m, x: m.diag(x, 1), [(4,)], _rnd),
    "diagonal": (lambda m, x: m.diagonal(x, 1), [(4, 4)], _rnd),
    "tril": (lambda m, x: m.tril(x), [(4, 4)], _rnd),
    "triu": (lambda m, x: m.triu(x, 1), [(4, 4)], _rnd),
    "flip": (lambda m, x: m.flip(x, [0]), [S], _rnd),
    "roll": (lambda m, x: m.roll(x, 1, 1), [S], _rnd),
    "cat": (lambda m, x, y: m.cat([x, y], 0), [S, S], _rnd),
    "stack": (lambda m, x, y: m.stack([x, y], 1), [S, S], _rnd),
    "split": (lambda m, x: m.split(x, 2, 1)[1] * 2, [S], _rnd),
    "chunk": (lambda m, x: m.chunk(x, 2, 0)[0] * 2, [(4, 4)], _rnd),
    "index_select": (lambda m, x: m.index_select(x, 1, m.tensor(IDX["sel"])), [S], _rnd),
    "gather": (lambda m, x: m.gather(x, 1, m.tensor(IDX["gat"])), [S], _rnd),
    "masked_fill": (lambda m, x: x.masked_fill(m.tensor(IDX["mask"]), 1 + 1j), [S], _rnd),
    "where": (lambda m, x, y: m.where(m.tensor(IDX["mask"]), x, y), [S, S], _rnd),
    "pad": (lambda m, x: m.nn.functional.pad(x, (1, 2)), [S], _rnd),
    "pad_crop": (lambda m, x: m.nn.functional.pad(x, (-1, 2, 1, 0)), [S], _rnd),
    # views (complex_grad since the views' declaration)
    "reshape": (lambda m, x: x.reshape(4, 3) * 1, [S], _rnd),
    "transpose": (lambda m, x: x.transpose(0, 1) * 1, [S], _rnd),
    "permute": (lambda m, x: x.permute(1, 0) * 1, [S], _rnd),
    "expand": (lambda m, x: x[:, :1].expand(3, 5) * 1, [S], _rnd),
    "narrow": (lambda m, x: x.narrow(1, 1, 2) * 1, [S], _rnd),
    "select": (lambda m, x: x.select(1, 2) * 1, [S], _rnd),
    "slicing": (lambda m, x: x[1:, ::2] * 1, [S], _rnd),
    "unsqueeze_squeeze": (lambda m, x: x.unsqueeze(0).squeeze(0) * 1, [S], _rnd),
    "as_strided": (lambda m, x: x.as_strided((2, 2), (1, 2)) * 1, [S], _rnd),
    # a real input meeting complex operands
    "real_input_pow_complex": (lambda m, x: x.abs() ** (0.5 + 1j), [S], _real),
    "real_input_times_complex_sin": (lambda m, x: (x * (1 - 2j)).sin(), [S], _real),
}

ZERO_CASES = ("prod_dim", "prod_all", "cumprod", "sgn", "pow_tensors", "vector_norm_2",
              "vector_norm_1", "vector_norm_3", "pow_float", "sqrt")

LOSSES = {
    "abs2": lambda y: (y.abs() ** 2).sum() if y.is_complex() else (y * y).sum(),
    "re_im": lambda y: (y.real.sum() + 2 * y.imag.sum()) if y.is_complex() else y.sum() * 3,
}


def _run(m, name, vals, noncontig, loss):
    fn, _, _ = CASES[name]
    leaves, xs = [], []
    for v in vals:
        if noncontig:   # every second element of a wider leaf, then the op's input
            t = m.tensor(np.concatenate([v, v], -1), requires_grad=True)
            x = t[..., ::2]
        else:
            t = x = m.tensor(v, requires_grad=True)
        leaves.append(t)
        xs.append(x)
    y = fn(m, *xs)
    LOSSES[loss](y).backward()
    return y.detach().resolve_conj().numpy(), [t.grad.resolve_conj().numpy() for t in leaves]


def _compare(name, vals, noncontig, loss):
    ya, ga = _run(torch, name, vals, noncontig, loss)
    yb, gb = _run(ot, name, vals, noncontig, loss)
    assert ya.dtype == yb.dtype and ya.shape == yb.shape
    np.testing.assert_allclose(yb, ya, rtol=1e-12, atol=1e-12)
    for a, b in zip(ga, gb):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("wide", [False, True], ids=["near1", "wide"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_grad_matches_torch(name, wide, loss):
    _, shapes, make = CASES[name]
    vals = [make(s, 11 + i, wide) for i, s in enumerate(shapes)]
    for noncontig in (False, True):
        _compare(name, vals, noncontig, loss)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy's 1/0 where torch gives inf
@pytest.mark.parametrize("name", ZERO_CASES)
def test_complex_grad_with_zeros_matches_torch(name):
    _, shapes, make = CASES[name]
    # zeros in the first operand only: 0 ** 0 in complex is nan in torch, 1 in NumPy (a value
    # difference outside the gradients)
    vals = [make(s, 5 + i, True, zeros=i == 0) for i, s in enumerate(shapes)]
    for loss in LOSSES:
        _compare(name, vals, False, loss)


def test_complex_grad_complex64():
    vals = [_rnd(S, 3).astype(np.complex64)]
    for name in ("sin", "log", "cumprod", "pow_float", "sgn"):
        ya, ga = _run(torch, name, vals, False, "abs2")
        yb, gb = _run(ot, name, vals, False, "abs2")
        assert ga[0].dtype == gb[0].dtype == np.complex64
        np.testing.assert_allclose(gb[0], ga[0], rtol=2e-5, atol=1e-5)


def test_create_graph_second_order_sin():
    """The conjugated formulas are built from differentiable ops: a second derivative too."""
    v = _rnd((3,), 2)
    res = []
    for m in (torch, ot):
        x = m.tensor(v, requires_grad=True)
        y = (x.sin() ** 2).abs().sum()
        (g,) = m.autograd.grad(y, x, create_graph=True)
        (g.abs() ** 2).sum().backward()
        res.append(x.grad.resolve_conj().numpy())
    np.testing.assert_allclose(res[1], res[0], rtol=1e-10)


# ops these cases exercise: each is marked checked (a regression here would refuse them)
@pytest.mark.parametrize("op", ["log", "log1p", "log2", "log10", "expm1", "sqrt", "rsqrt",
                                "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
                                "atan", "asinh", "acosh", "atanh", "sigmoid", "square", "pow",
                                "sgn", "exp2", "prod", "cumsum", "cumprod", "dot", "vdot",
                                "mv", "trace", "diag", "tril", "triu", "roll", "index_select", "addcmul", "addcdiv",
                                "take_along_axis", "masked_fill", "where_self"])
def test_op_marked_checked(op):
    assert OPS[op].complex_grad


@pytest.mark.parametrize("call", [lambda z: ot.xlogy(z, z), lambda z: z.logsumexp(0),
                                  lambda z: z.nan_to_num()])
def test_still_unchecked_ops_refuse(call):
    z = ot.tensor(_rnd((3,), 1), requires_grad=True)
    with pytest.raises(DtypeNotImplementedError, match="derivative"):
        call(z)
    with ot.no_grad():
        call(z)   # the value is computed


def test_var_complex_refused_in_paddle_door_as_paddle():
    """paddle 3.3.1 has no complex var/std kernel; the Paddle door refuses, the torch door
    computes PyTorch's real variance."""
    x = oar.to_tensor(_rnd((3,), 1))
    with pytest.raises(TypeError, match="floating point"):
        oar.var(x)
    assert ot.tensor(_rnd((3,), 1)).var().dtype == ot.float64


# ------------------------------------------------------------------ the Paddle door
PADDLE_CASES = {
    "log": lambda m, x: x.log(),
    "sin": lambda m, x: m.sin(x),
    "tanh": lambda m, x: m.tanh(x),
    "sqrt": lambda m, x: m.sqrt(x),
    "pow": lambda m, x: m.pow(x, 3.0),
    "square": lambda m, x: m.square(x),
    "cumsum": lambda m, x: m.cumsum(x, axis=1),
    "matmul": lambda m, x: m.matmul(x, x.T),
    "concat_flip": lambda m, x: m.flip(m.concat([x, x * 2], axis=0), [1]),
}
# not here: paddle 3.3.1's prod gives a complex input a gradient that is not the conjugate
# one (it differs from torch's and from the finite differences of a real loss); oar's Paddle
# door keeps the conjugate gradient of every other op


def _paddle_loss(y):
    return (y.real() ** 2 + y.imag() ** 2).sum() + y.real().sum() - y.imag().sum()


@pytest.mark.parametrize("name", sorted(PADDLE_CASES))
def test_paddle_door_complex_grad_matches_paddle(name):
    paddle = pytest.importorskip("paddle")
    v = _rnd(S, 4)
    res = []
    for m in (paddle, oar):
        x = m.to_tensor(v, stop_gradient=False)
        _paddle_loss(PADDLE_CASES[name](m, x)).backward()
        res.append(np.asarray(x.grad.numpy()))
    assert res[0].dtype == res[1].dtype == np.complex128
    np.testing.assert_allclose(res[1], res[0], rtol=1e-10, atol=1e-12)
