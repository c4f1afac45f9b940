"""Every op of the table, in every spelling, against NumPy; and the table against the registry:
every declared op has a row or an exemption that names where it is tested."""
import dataclasses
import inspect
import operator as pyop
import pathlib
import re

import numpy as np
import pytest

import oar
from oar.autograd import gradcheck
from oar.ops.registry import FUNCTIONS, OPS
from tests.op_table import ALIASES, EXEMPT, INTERNAL, RANDOM_ROWS, ROWS, SAMPLERS, In

ROOT = pathlib.Path(__file__).resolve().parents[1]

BINARY_OPS = {"+": pyop.add, "-": pyop.sub, "*": pyop.mul, "/": pyop.truediv, "**": pyop.pow,
              "%": pyop.mod, "//": pyop.floordiv, "@": pyop.matmul, "&": pyop.and_,
              "|": pyop.or_, "^": pyop.xor, "==": pyop.eq, "!=": pyop.ne, ">=": pyop.ge,
              ">": pyop.gt, "<=": pyop.le, "<": pyop.lt}
IOPS = {"+": pyop.iadd, "-": pyop.isub, "*": pyop.imul, "/": pyop.itruediv, "**": pyop.ipow,
        "%": pyop.imod, "//": pyop.ifloordiv, "@": pyop.imatmul, "&": pyop.iand, "|": pyop.ior,
        "^": pyop.ixor}
UNARY_OPS = {"-": pyop.neg, "~": pyop.invert, "abs": abs}


# ---------------------------------------------------------------- helpers
def params(rows, driver, *, extra=None):
    """pytest params for `rows` (times `extra(row)` values), strict-xfail where the row says
    `driver` (or "*") hits a known bug. `driver` may be a function of the extra value."""
    out = []
    for r in rows:
        for e in (extra(r) if extra else [None]):
            d = driver(e) if callable(driver) else driver
            reason = r.xfail.get(d) or r.xfail.get("*")
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            values = (r,) if extra is None else (r, e)
            pid = r.id if extra is None else f"{r.id}-{e}"
            out.append(pytest.param(*values, id=pid, marks=marks))
    return out


def make_arrays(row, rng, fdt="float32", shapes=None):
    arrs = []
    for i, (sh, dt) in enumerate(zip(shapes or row.shapes, row.in_dtypes)):
        lo, hi = (row.domains[i] if row.domains and row.domains[i] else row.domain)
        if dt == "bool":
            a = rng.random(sh) < 0.5
        elif dt.startswith("int"):
            a = rng.integers(int(lo), int(hi), size=sh).astype(dt)
        else:
            a = rng.uniform(lo, hi, size=sh).astype(fdt)
        arrs.append(np.asarray(a))
    for prep in row.prepare:
        arrs = [np.asarray(a) for a in prep(arrs, rng)]
    return arrs


def result_dtype(row, fdt="float32"):
    if row.out_dtype:
        return row.out_dtype
    if "float" in row.in_dtypes:
        return fdt
    return row.in_dtypes[row.target]


def ref(row, arrs):
    return np.asarray(row.ref(*arrs, **row.kwargs))


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)


def check(out, expect, dtype):
    """`out` (an oar tensor) has `dtype`, the reference's shape and its values."""
    assert out.dtype == getattr(oar, dtype), (out.dtype, dtype)
    assert list(out.shape) == list(np.shape(expect))
    if dtype.startswith("float"):
        np.testing.assert_allclose(out.numpy(), expect, **tol(dtype))
    else:
        np.testing.assert_array_equal(out.numpy(), expect)


def noncontig(arr):
    """The same values as `arr`, as an oar tensor whose memory is not contiguous (any dtype)."""
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return oar.to_tensor(arr)
    other = np.ones_like(arr) if arr.dtype == bool else np.full_like(arr, 7)
    t = oar.to_tensor(np.stack([arr, other], axis=-1))[..., 0]
    assert not t.is_contiguous() or arr.size <= 1
    np.testing.assert_array_equal(t.numpy(), arr)
    return t


def tensors(arrs, make=oar.to_tensor, grad=False):
    """oar tensors of `arrs`; with grad, the float ones require grad."""
    out = []
    for a in arrs:
        if grad and a.dtype.kind == "f":
            out.append(oar.to_tensor(a, stop_gradient=False))
        else:
            out.append(make(a))
    return out


def _resolve(item, args):
    if isinstance(item, In):
        return args[item.i]
    if isinstance(item, tuple):
        return tuple(_resolve(a, args) for a in item)
    return item


def call(row, args, spelling, **extra):
    """One spelling of the op on the inputs `args`: "function", "method", "inplace_function",
    "inplace_method"; the arguments laid out as row.layout says."""
    inplace = spelling.startswith("inplace")
    name = row.name + ("_" if inplace else "")
    layout = row.layout or tuple(In(i) for i in range(row.n_inputs))
    if spelling.endswith("function"):
        return getattr(oar, name)(*[_resolve(a, args) for a in layout], **row.kwargs, **extra)
    assert In(row.target) in layout
    rest = [_resolve(a, args) for a in layout if a != In(row.target)]
    return getattr(args[row.target], name)(*rest, **row.kwargs, **extra)


def inplace_spellings(row):
    return ["inplace_function"] + (["inplace_method"] if row.method else [])


def float_inputs(row):
    return [i for i, d in enumerate(row.in_dtypes) if d == "float"]


OUTPLACE = [r for r in ROWS if r.outplace]
INPLACE = [r for r in ROWS if r.inplace]
GRAD = [r for r in ROWS if r.grad]


# ---------------------------------------------------------------- the table against the registry
def _universe():
    return set(FUNCTIONS) | set(OPS)


def _row_names():
    names = set()
    for r in ROWS:
        names |= r.spellings()
    names |= {r.name for r in RANDOM_ROWS} | {r.name for r in SAMPLERS}
    return names


def _exempt_names():
    out = {}
    for e in EXEMPT:
        for n in e.names:
            assert n not in out, f"{n} exempted twice"
            out[n] = e
    return out


def _alias_spellings():
    """alias spelling -> the spelling it stands for (ALIASES, and their in-place forms)."""
    out = {}
    for a, c in ALIASES.items():
        out[a] = c
        if a + "_" in FUNCTIONS and c + "_" in FUNCTIONS:
            out[a + "_"] = c + "_"
    return out


def _accounted():
    """name -> how: "row", "alias of X", "exempt"."""
    direct = {n: "row" for n in _row_names()}
    direct.update({n: "exempt" for n in _exempt_names()})
    direct.update({i.op: f"internal op of {i.spelling}" for i in INTERNAL})
    out = dict(direct)
    out.update({a: f"alias of {c}" for a, c in _alias_spellings().items()
                if a not in out and c in direct})
    for n, f in FUNCTIONS.items():
        if n in out:
            continue
        for m in direct:
            if FUNCTIONS.get(m) is f:   # the same function object: an alias spelling
                out[n] = f"alias of {m}"
                break
    return out


def test_every_registry_op_has_a_row_or_an_exemption():
    accounted = _accounted()
    missing = sorted(n for n in _universe() if n not in accounted)
    assert not missing, (f"{len(missing)} public ops have no row in tests/op_table.py and no "
                         f"exemption (add a row, or an Exempt naming where it is tested): "
                         f"{missing}")


def test_rows_and_exemptions_name_registry_ops():
    universe = _universe()
    stale = sorted(n for n in _row_names() | set(_exempt_names()) if n not in universe)
    assert not stale, f"rows/exemptions for names the registry does not declare: {stale}"
    both = sorted(_row_names() & set(_exempt_names()))
    assert not both, f"exempted although a row tests them (drop the exemption): {both}"


def test_aliases_name_registry_ops():
    for a, c in ALIASES.items():
        assert a in FUNCTIONS, f"alias {a} is not a registered function"
        assert any(r.name == c and r.outplace for r in ROWS), f"alias {a}: no row for {c}"


ALIAS_CASES = sorted(_alias_spellings().items())


@pytest.mark.parametrize("alias,name", ALIAS_CASES, ids=[a for a, _ in ALIAS_CASES])
def test_alias_spelling_matches_numpy(alias, name):
    """Each alias spelling, run on its op's first row: the same values as NumPy's."""
    inplace = name.endswith("_")
    row = next(r for r in ROWS if r.name == name.rstrip("_") and r.outplace
               and (r.inplace or not inplace))
    arow = dataclasses.replace(row, name=alias.rstrip("_"))
    rng = np.random.default_rng(12)
    arrs = make_arrays(row, rng)
    expect = ref(row, arrs)
    dt = result_dtype(row)
    spellings = ["inplace_function"] if inplace else ["function"]
    if callable(getattr(oar.Tensor, alias, None)) and row.method:
        spellings.append("inplace_method" if inplace else "method")
    for sp in spellings:
        ts = tensors(arrs)
        out = call(arow, ts, sp)
        if inplace:
            assert out is ts[row.target] and out.inplace_version == 1
        check(out, expect, dt)


def test_row_spellings_exist():
    for r in ROWS:
        for n in r.spellings():
            assert n in FUNCTIONS, f"{r.id}: oar.{n} is not a registered function"
        if r.method:
            for n in r.spellings():
                assert callable(getattr(oar.Tensor, n, None)), f"{r.id}: Tensor.{n} is missing"
    ids = [r.id for r in ROWS]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"rows with the same id (make them differ, or drop one): {dup}"


_NOT_OAR = ("np", "numpy", "rng", "math", "random", "torch", "itertools", "os", "re")


def _calls(text, name):
    """Does `text` call `name` as an oar function or method (not np.name(...))?"""
    for m in re.finditer(r"(?:(\w+)\s*\.\s*)?(?<![\w])" + re.escape(name) + r"\(", text):
        if m.group(1) not in _NOT_OAR:
            return True
    return False


@pytest.mark.parametrize("exempt", EXEMPT, ids=[f"{e.names[0]}..." for e in EXEMPT])
def test_exemptions_name_files_that_test_the_op(exempt):
    """An exemption cannot be a lie: each named test file exists and calls every exempted op."""
    assert exempt.reason and exempt.files and exempt.names
    for f in exempt.files:
        path = ROOT / f
        assert path.is_file(), f"{f} does not exist"
        assert path.name.startswith("test_") or path.name in ("bad_inputs.py", "scenarios.py")
        text = path.read_text()
        missing = [n for n in exempt.names if not _calls(text, n)]
        assert not missing, f"{f} never calls {missing} (exempted as: {exempt.reason})"


@pytest.mark.parametrize("internal", INTERNAL, ids=[i.op for i in INTERNAL])
def test_internal_ops_have_no_spelling_and_their_spelling_is_tested(internal):
    """An internal op is really internal (no function or method of its name), and each named
    test file calls the spelling that dispatches it."""
    op = OPS[internal.op]
    assert not op.function and not op.method, f"{internal.op} has a spelling: give it a row"
    for f in internal.files:
        text = (ROOT / f).read_text()
        assert _calls(text, internal.spelling), f"{f} never calls {internal.spelling}"


def test_mention_check_can_fail():
    assert _calls("y = oar.exp(x)", "exp") and _calls("x.t_()", "t_")
    assert not _calls("y = np.exp(x)", "exp") and not _calls("rng.uniform(0, 1)", "uniform")
    assert not _calls("oar.expm1(x)", "exp") and not _calls("x.ut_()", "t_")


# ---------------------------------------------------------------- values, every spelling
@pytest.mark.parametrize("row", params(OUTPLACE, "values"))
def test_function_method_and_noncontiguous(row):
    rng = np.random.default_rng(1)
    arrs = make_arrays(row, rng)
    expect = ref(row, arrs)
    dt = result_dtype(row)
    for make in (oar.to_tensor, noncontig):
        ts = [make(a) for a in arrs]
        check(call(row, ts, "function"), expect, dt)
        if row.method:
            check(call(row, ts, "method"), expect, dt)
        for t, a in zip(ts, arrs):   # inputs untouched, versions unchanged
            np.testing.assert_array_equal(t.numpy(), a)
            assert t.inplace_version == 0
    if row.operator and row.n_inputs == 2:
        check(BINARY_OPS[row.operator](oar.to_tensor(arrs[0]), oar.to_tensor(arrs[1])), expect, dt)
    elif row.operator:
        check(UNARY_OPS[row.operator](oar.to_tensor(arrs[0])), expect, dt)


def _has_out(row):
    return "out" in inspect.signature(FUNCTIONS[row.name]).parameters


OUT_ROWS = [r for r in OUTPLACE if _has_out(r)]


@pytest.mark.parametrize("row", params(OUT_ROWS, "out"))
def test_out_argument(row):
    """fn(..., out=t) writes into t (a view too) and returns it; refused while recording."""
    rng = np.random.default_rng(11)
    arrs = make_arrays(row, rng)
    expect = ref(row, arrs)
    dt = result_dtype(row)
    for make in (oar.to_tensor, noncontig):
        out = make(np.full(np.shape(expect), 7).astype(dt))
        ptr = out.data_ptr()
        r = call(row, tensors(arrs), "function", out=out)
        assert r is out and out.data_ptr() == ptr and out.inplace_version == 1
        check(out, expect, dt)
    if row.grad and float_inputs(row):
        out = oar.to_tensor(np.full(np.shape(expect), 7).astype(dt))
        with pytest.raises(RuntimeError, match="out="):
            call(row, tensors(arrs, grad=True), "function", out=out)
        assert out.inplace_version == 0
        np.testing.assert_array_equal(out.numpy(), np.full(np.shape(expect), 7).astype(dt))


NUMBER_ROWS = [r for r in ROWS if r.scalar_other is not None]


@pytest.mark.parametrize("row", params(NUMBER_ROWS, "number"))
def test_python_number_operand(row):
    """A Python number as the last operand: weak (the tensor's dtype wins), every spelling."""
    rng = np.random.default_rng(2)
    arrs = make_arrays(row, rng)
    s = row.scalar_other
    sa = np.asarray(s, dtype=arrs[-1].dtype)
    expect = np.asarray(row.ref(*arrs[:-1], sa, **row.kwargs))
    dt = result_dtype(row)
    args = lambda: tensors(arrs[:-1]) + [s]   # noqa: E731
    if row.outplace:
        check(call(row, args(), "function"), expect, dt)
        if row.method:
            check(call(row, args(), "method"), expect, dt)
    if row.operator and row.n_inputs == 2:
        x = oar.to_tensor(arrs[0])
        check(BINARY_OPS[row.operator](x, s), expect, dt)
        check(BINARY_OPS[row.operator](s, x), np.asarray(row.ref(np.asarray(s, arrs[0].dtype), arrs[0])), dt)
        if row.inplace:
            y = oar.to_tensor(arrs[0])
            alias = y
            y = IOPS[row.operator](y, s)
            assert y is alias and y.inplace_version == 1
            check(alias, expect, dt)
    if row.inplace:
        for sp in inplace_spellings(row):
            ts = args()
            r = call(row, ts, sp)
            assert r is ts[row.target] and r.inplace_version == 1
            check(r, expect, dt)


# ---------------------------------------------------------------- in place
def _inplace_cases(row):
    return inplace_spellings(row) + (["operator"] if row.operator in IOPS and row.n_inputs == 2 else [])


@pytest.mark.parametrize("row,spelling", params(INPLACE, "inplace", extra=_inplace_cases))
@pytest.mark.parametrize("contiguous", [True, False])
def test_inplace_identity_storage_version(row, spelling, contiguous):
    rng = np.random.default_rng(3)
    arrs = make_arrays(row, rng)
    expect = ref(row, arrs)
    make = oar.to_tensor if contiguous else noncontig
    ts = [make(a) for a in arrs]
    x = ts[row.target]
    ptr, storage, shape, strides, dtype = x.data_ptr(), x._storage, x.shape, x.stride(), x.dtype
    base_version = x.inplace_version
    if spelling == "operator":
        alias = x
        x = IOPS[row.operator](x, ts[1])
        r = x
        assert x is alias
    else:
        r = call(row, ts, spelling)
    assert r is ts[row.target]
    assert x.data_ptr() == ptr and x._storage is storage
    assert x.shape == shape and x.stride() == strides and x.dtype == dtype
    assert x.inplace_version == base_version + 1 and x._version == base_version + 1
    check(x, expect, result_dtype(row))
    if not contiguous and x.ndim:   # the write went through the view into the base
        assert x._base is not None
        np.testing.assert_allclose(x._base.numpy()[..., 0], expect, **tol("float32"))
    for i, (t, a) in enumerate(zip(ts, arrs)):   # the other operands are untouched
        if i != row.target:
            np.testing.assert_array_equal(t.numpy(), a)
            assert t.inplace_version == 0


def _target_is_float(row):
    return row.in_dtypes[row.target] == "float"


@pytest.mark.parametrize("row", params(INPLACE, "refusals"))
def test_inplace_refusals_change_nothing(row):
    rng = np.random.default_rng(4)
    arrs = make_arrays(row, rng)
    t = row.target
    if _target_is_float(row):
        # 1. a leaf that requires grad
        ts = tensors(arrs)
        x = ts[t] = oar.to_tensor(arrs[t], stop_gradient=False)
        before = x.numpy()
        with pytest.raises(ValueError, match="Leaf Var.*doesn't stop gradient can't use inplace strategy"):
            call(row, ts, inplace_spellings(row)[-1])
        np.testing.assert_array_equal(x.numpy(), before)
        assert x.inplace_version == 0 and x.is_leaf
        # the same error is a RuntimeError for PyTorch users
        with pytest.raises(RuntimeError):
            call(row, ts, "inplace_function")
        # 2. allowed under no_grad
        with oar.no_grad():
            call(row, ts, inplace_spellings(row)[-1])
        assert x.inplace_version == 1 and x.is_leaf and not x.stop_gradient
    # 3. an expanded destination (several elements share one memory location)
    if len(row.shapes[t]) >= 1 and row.shapes[t][0] > 1:
        ts = tensors(arrs)
        e = ts[t] = oar.to_tensor(arrs[t][:1]).expand(list(row.shapes[t]))
        if row.expanded_destination == "refused":
            with pytest.raises(RuntimeError, match="single memory location"):
                call(row, ts, "inplace_function")
            assert e.inplace_version == 0
            np.testing.assert_array_equal(e.numpy(), np.broadcast_to(arrs[t][:1], row.shapes[t]))
        else:   # every element gets the same value: the write is well defined
            assert row.expanded_destination == "written"
            call(row, ts, "inplace_function")
            assert e.inplace_version == 1
            check(e, ref(row, arrs), result_dtype(row))


def _other(row):
    """The first operand that is not the destination."""
    return next(i for i in range(row.n_inputs) if i != row.target)


BROADCAST_ROWS = [r for r in INPLACE if r.pointwise and r.n_inputs >= 2]


@pytest.mark.parametrize("row", params(BROADCAST_ROWS, "broadcast"))
def test_inplace_broadcast_refusal(row):
    """x_(4,).op_(other_(3, 4)): the result would not fit; nothing changes."""
    rng = np.random.default_rng(5)
    shapes = list(row.shapes)
    shapes[row.target], shapes[_other(row)] = (4,), (3, 4)
    ts = tensors(make_arrays(row, rng, shapes=shapes))
    x = ts[row.target]
    before = x.numpy()
    with pytest.raises(ValueError, match=r"\[3, 4\].*\[4\]"):
        call(row, ts, inplace_spellings(row)[-1])
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.inplace_version == 0 and list(x.shape) == [4]


CAST_ROWS = [r for r in INPLACE if _target_is_float(r) and any(i != r.target for i in float_inputs(r))]


@pytest.mark.parametrize("row", params(CAST_ROWS, "cast"))
def test_inplace_float_operand_into_int_destination(row):
    """An int64 destination with a float operand: refused where PyTorch refuses it (the
    float result can't be cast), else written with the values truncated (PyTorch's cast)."""
    rng = np.random.default_rng(5)
    arrs = make_arrays(row, rng)
    xi = np.arange(1, 1 + int(np.prod(row.shapes[row.target]))).reshape(row.shapes[row.target])
    ts = tensors(arrs)
    x = ts[row.target] = oar.to_tensor(xi)
    if row.float_into_int_error is None:
        call(row, ts, inplace_spellings(row)[-1])
        arrs[row.target] = xi
        assert x.inplace_version == 1
        check(x, np.trunc(ref(row, arrs)).astype(np.int64), "int64")
        return
    # a float tensor operand meets Paddle's promotion rule first (Note [Paddle type
    # promotion]): the same TypeError class, Paddle's words
    with pytest.raises(TypeError, match=f"{row.float_into_int_error}|Type promotion only "
                       "support") as info:
        call(row, ts, inplace_spellings(row)[-1])
    assert isinstance(info.value, RuntimeError)   # PyTorch raises RuntimeError
    np.testing.assert_array_equal(x.numpy(), xi)
    assert x.inplace_version == 0 and x.dtype == oar.int64


def _overlap_operand(row):
    """A non-destination operand of the destination's dtype and shape, if any."""
    t = row.target
    for i in range(row.n_inputs):
        if i != t and row.in_dtypes[i] == row.in_dtypes[t] and row.shapes[i] == row.shapes[t]:
            return i
    return None


OVERLAP_ROWS = [r for r in INPLACE if r.pointwise and _overlap_operand(r) is not None]


@pytest.mark.parametrize("row", params(OVERLAP_ROWS, "overlap"))
def test_inplace_partial_overlap_refused_full_overlap_fine(row):
    rng = np.random.default_rng(5)
    t, k = row.target, _overlap_operand(row)
    dt = row.in_dtypes[t]
    if dt == "float":
        zb = rng.uniform(0.5, 2, size=(5,)).astype("float32")
    elif dt == "bool":
        zb = rng.random(5) < 0.5
    else:
        zb = rng.integers(1, 8, size=(5,)).astype(dt)
    shapes = [(4,)] * row.n_inputs
    ts = tensors(make_arrays(row, rng, shapes=shapes))
    z = oar.to_tensor(zb)
    ts[t], ts[k] = z[1:], z[:-1]
    with pytest.raises(RuntimeError, match="single memory location"):
        call(row, ts, inplace_spellings(row)[-1])
    np.testing.assert_array_equal(z.numpy(), zb)
    assert z.inplace_version == 0
    arrs = make_arrays(row, rng, shapes=[(5,)] * row.n_inputs)
    arrs[t] = arrs[k] = zb
    ts = tensors(arrs)
    ts[t] = ts[k] = z
    call(row, ts, inplace_spellings(row)[-1])
    check(z, ref(row, arrs), result_dtype(row))


# ---------------------------------------------------------------- gradients (finite differences)
@pytest.mark.parametrize("row", params([r for r in GRAD if r.outplace], "grad"))
def test_gradcheck_out_of_place(row):
    rng = np.random.default_rng(6)
    ts = tensors(make_arrays(row, rng, "float64"), grad=True)
    assert gradcheck(lambda *xs: call(row, xs, "function"), ts)


GRAD_INPLACE = [r for r in GRAD if r.inplace and _target_is_float(r)]


@pytest.mark.parametrize("row,spelling", params(GRAD_INPLACE, "grad_inplace", extra=inplace_spellings))
def test_gradcheck_inplace_on_non_leaf(row, spelling):
    rng = np.random.default_rng(7)
    ts = tensors(make_arrays(row, rng, "float64"), grad=True)
    t = row.target

    def f(*xs):
        xs = list(xs)
        y = xs[t] = xs[t] * 1.0        # a non-leaf to modify
        r = call(row, xs, spelling)
        assert r is y
        return y
    assert gradcheck(f, ts)


VIEW_GRAD = [r for r in GRAD_INPLACE if r.shapes[r.target] == (3, 4)
             and all(len(s) == 0 for i, s in enumerate(r.shapes) if i != r.target)]


@pytest.mark.parametrize("row", params(VIEW_GRAD, "grad_view"))
def test_gradcheck_inplace_through_view(row):
    """In-place on a view of a non-leaf: the base's gradient includes the change."""
    rng = np.random.default_rng(8)
    ts = tensors(make_arrays(row, rng, "float64"), grad=True)
    t = row.target

    def f(*xs):
        xs = list(xs)
        y = xs[t] * 1.0
        xs[t] = y.t()[1:3]          # a non-contiguous view of y
        call(row, xs, "inplace_function")
        return y * oar.to_tensor(np.arange(12.0).reshape(3, 4))
    assert gradcheck(f, ts)


def _one_grad_cases(row):
    return [(w, ip) for w in float_inputs(row) for ip in (False, True)
            if (row.inplace and _target_is_float(row) if ip else row.outplace)]


MULTI_GRAD = [r for r in GRAD if len(float_inputs(r)) > 1]


@pytest.mark.parametrize("row,case", params(MULTI_GRAD, lambda c: "grad_one_inplace" if c[1] else "grad_one",
                                            extra=_one_grad_cases))
def test_gradcheck_one_input_needing_grad(row, case):
    """Only the inputs whose gradients are needed are saved: each alone must still work."""
    which, inplace = case
    rng = np.random.default_rng(9)
    arrs = make_arrays(row, rng, "float64")
    ts = [oar.to_tensor(a, stop_gradient=(i != which)) for i, a in enumerate(arrs)]
    t = row.target

    def f(*xs):
        if not inplace:
            return call(row, xs, "function")
        xs = list(xs)
        xs[t] = xs[t] * 1.0
        return call(row, xs, "inplace_function")
    assert gradcheck(f, ts)


# ---------------------------------------------------------------- 0-d operands
@pytest.mark.parametrize("row", params([r for r in ROWS if r.zero_dim], "zero_dim"))
def test_zero_dim_operands(row):
    """Every op on 0-d tensors, in function and in-place form."""
    rng = np.random.default_rng(10)
    arrs = [np.asarray(a.reshape(-1)[0]) for a in make_arrays(row, rng, "float64")]
    expect = ref(row, arrs)
    dt = result_dtype(row, "float64")
    if row.outplace:
        check(call(row, tensors(arrs), "function"), expect, dt)   # 0-d in, NumPy's shape out
    if row.inplace:
        ts = tensors(arrs)
        r = call(row, ts, "inplace_function")
        x = ts[row.target]
        assert r is x and x.shape == [] and x.inplace_version == 1
        check(x, expect, dt)


@pytest.mark.parametrize("dtype,step", [("float32", 4), ("float64", 8), ("float32", 3), ("float64", 2)])
@pytest.mark.parametrize("op", ["neg_", "sigmoid_", "neg", "exp_"])
def test_unary_ops_on_strided_views_read_the_right_elements(dtype, step, op):
    """Note [NumPy 2.4 negative]: NumPy's negative into a strided output misreads for these
    strides; every unary op must give NumPy's value of each element, in place or not."""
    base = np.linspace(-1, 1, 5 * step + 3).astype(dtype)
    x = oar.to_tensor(base)
    v = x[1::step]
    r = base[1::step].astype(np.float64)
    expect = {"neg_": -r, "neg": -r, "sigmoid_": 1 / (1 + np.exp(-r)), "exp_": np.exp(r)}[op]
    out = getattr(v, op)()
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-3 if dtype == "float32" else 1e-12)
    if op.endswith("_"):
        np.testing.assert_allclose(x.numpy()[1::step], expect, rtol=1e-3 if dtype == "float32" else 1e-12)


# ---------------------------------------------------------------- random in-place fills
N_RANDOM = 20000


@pytest.mark.parametrize("row", RANDOM_ROWS, ids=[r.name for r in RANDOM_ROWS])
@pytest.mark.parametrize("spelling", ["function", "method"])
def test_random_fill_distribution_identity_version(row, spelling):
    """Sample moments within 6 standard errors of the distribution's; support respected;
    written in place (a strided view: only its elements) with one version bump."""
    base = oar.to_tensor(np.full((N_RANDOM, 2), 7.0))
    x = base[:, 0]
    ptr = x.data_ptr()
    r = getattr(oar, row.name)(x, **row.kwargs) if spelling == "function" else \
        getattr(x, row.name)(**row.kwargs)
    assert r is x and x.data_ptr() == ptr and x.inplace_version == 1 and x.dtype == oar.float64
    np.testing.assert_array_equal(base.numpy()[:, 1], 7.0)     # the other column untouched
    s = x.numpy()
    assert np.all((s >= row.support[0]) & (s <= row.support[1]))
    if row.values is not None:
        assert set(np.unique(s)) <= set(row.values)
    se_mean = np.sqrt(row.var / N_RANDOM)
    assert abs(s.mean() - row.mean) < 6 * se_mean, (s.mean(), row.mean)
    # the variance's standard error, bounded by a 4th moment of at most 9 * var^2
    assert abs(s.var() - row.var) < 6 * np.sqrt(9 * row.var ** 2 / N_RANDOM), (s.var(), row.var)


@pytest.mark.parametrize("row", RANDOM_ROWS, ids=[r.name for r in RANDOM_ROWS])
def test_random_fill_seeded_refusals_and_gradient(row):
    oar.seed(123)
    a = getattr(oar.zeros([50], dtype="float64"), row.name)(**row.kwargs).numpy()
    oar.seed(123)
    b = getattr(oar.zeros([50], dtype="float64"), row.name)(**row.kwargs).numpy()
    np.testing.assert_array_equal(a, b)
    if row.values is None:
        assert len(np.unique(a)) == 50
    # a leaf that requires grad is refused and unchanged
    w = oar.to_tensor(np.ones(4), stop_gradient=False)
    with pytest.raises(RuntimeError, match="Leaf Var"):
        getattr(w, row.name)(**row.kwargs)
    np.testing.assert_array_equal(w.numpy(), 1.0)
    assert w.inplace_version == 0
    # an expanded destination is refused
    e = oar.ones([1]).expand([4])
    with pytest.raises(RuntimeError, match="single memory location"):
        getattr(e, row.name)(**row.kwargs)
    # on a non-leaf: the overwritten values get no gradient, the rest of the graph does
    y = w * 3.0
    getattr(y[:2], row.name)(**row.kwargs)
    (y * oar.to_tensor(np.arange(1.0, 5.0))).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0, 9.0, 12.0])


# ---------------------------------------------------------------- random sampling functions
def _moments_ok(s, mean, var, n):
    se_mean = np.sqrt(var / n)
    return (abs(s.mean() - mean) < 6 * se_mean
            and abs(s.var() - var) < 6 * np.sqrt(9 * var ** 2 / n))


@pytest.mark.parametrize("row", SAMPLERS, ids=[r.name for r in SAMPLERS])
def test_sampler_distribution_dtype_and_seeding(row):
    t = row.draw(oar, N_RANDOM)
    assert t.dtype == getattr(oar, row.dtype) and t.numel() == N_RANDOM
    s = t.numpy().reshape(-1).astype(np.float64)
    assert np.all((s >= row.support[0]) & (s <= row.support[1]))
    if row.values is not None:
        assert set(np.unique(s)) == set(row.values)
    if row.mean is not None:
        assert _moments_ok(s, row.mean, row.var, N_RANDOM), (s.mean(), s.var())
    if row.exact is not None:
        assert row.exact(s)
    # seeding: the same seed (either spelling) gives the same draw, the next draw differs
    oar.manual_seed(7)
    a = row.draw(oar, 50).numpy()
    b = row.draw(oar, 50).numpy()
    oar.seed(7)
    np.testing.assert_array_equal(row.draw(oar, 50).numpy(), a)
    assert not np.array_equal(a, b)
