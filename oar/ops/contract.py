"""Contractions: einsum (both doors: `torch.einsum(eq, *operands)`, `paddle.einsum(eq,
*operands)`), one op: Note [Einsum as one op]."""
from __future__ import annotations

import string

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor, wrap_as
from . import registry
from .pointwise import _cj

# Note [Einsum as one op]
# The public function parses the equation once into explicit form: every ellipsis becomes
# letters nobody used (right-aligned across operands, as broadcasting aligns dims), the implicit
# output (no '->') becomes the ellipsis letters then the letters seen exactly once, in
# alphabetical order (uppercase first), and an operand whose dim of size 1 meets a larger size of
# the same letter is broadcast (a view, whose backward sums). The core op then sees an explicit
# equation whose letters have one size each; its forward is NumPy's einsum with the contraction
# order optimised (np.einsum(optimize=True): the path is chosen once per call).
#
# The gradient of operand i is itself a contraction: of the cotangent (subscripts: the output)
# with every other operand, into operand i's subscripts. Two cases need a constant operand,
# because an einsum output names each letter once and only letters some input has:
#   * a letter repeated in operand i (a diagonal, 'ii->i'): the repeat is renamed to a fresh
#     letter and an identity matrix eye(n) joins with both letters, so the gradient lands on the
#     diagonal only;
#   * a letter only operand i has (summed away, 'ij->i'): a ones(n) vector with that letter
#     broadcasts the gradient along it.
# The constants need no gradient, so the backward is an einsum of differentiable operands:
# double backward works with no extra formula.


class _OperandDTypeError(ArgTypeError, ValueError):
    """Operands of different dtypes (PyTorch: RuntimeError; Paddle: ValueError)."""


_LETTERS = string.ascii_uppercase + string.ascii_lowercase   # torch's label order


def _k_einsum(*arrays_and_eq):
    *arrays, eq = arrays_and_eq
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.einsum(eq, *arrays, optimize=len(arrays) > 1)
    # einsum may return a view of an operand ('ij->ji'), a transposed layout or a NumPy scalar
    r = _xp.asarray(r)
    return _xp.ascontiguousarray(r) if r.ndim else r.copy()


def _b_einsum(ctx, g):
    eq = ctx.attrs[0]
    lhs, out = eq.split("->")
    subs = lhs.split(",")
    n = len(subs)
    grads = []
    for i in range(n):
        if not ctx.needs[i]:
            grads.append(None)
            continue
        shape = ctx.input_meta[i][0]
        others = [j for j in range(n) if j != i]
        # the other operands conjugated: Note [Complex autograd] (a real one as is)
        tensors = [g] + [_cj(ctx.input(j)) for j in others]
        in_subs = [out] + [subs[j] for j in others]
        seen_elsewhere = set(out).union(*(subs[j] for j in others))
        fresh = iter(c for c in _LETTERS if c not in eq)
        target = []
        dt = g._data.dtype
        for k, c in enumerate(subs[i]):
            if c in subs[i][:k]:       # a diagonal: the gradient lands where the letters agree
                f = next(fresh)
                target.append(f)
                tensors.append(wrap_as(g._result_class, np.eye(shape[k], dtype=dt)))
                in_subs.append(c + f)
            else:
                target.append(c)
                if c not in seen_elsewhere:   # summed away in the forward: broadcast back
                    tensors.append(wrap_as(g._result_class, np.ones(shape[k], dtype=dt)))
                    in_subs.append(c)
                    seen_elsewhere.add(c)
        grads.append(contract(tensors, in_subs, "".join(target)))
    return tuple(grads)


_OPS: dict = {}


def _einsum_op(n):
    """The declaration for n operands (the saved inputs differ by arity; one kernel and one
    backward for all, Note [Einsum as one op])."""
    op = _OPS.get(n)
    if op is None:
        names = tuple(f"x{i}" for i in range(n))
        op = _OPS[n] = registry.OpDef(
            "einsum", _k_einsum, _b_einsum, inputs=names,
            needs={a: tuple(b for b in names if b != a) for a in names} if n > 1 else None,
            attrs=(("equation", ""),), function=False, method=False,
            doc="The contraction of the operands given by an explicit einsum equation.")
        op.complex_grad = True   # Note [Complex autograd]: checked in tests/test_complex_autograd2.py
    return op


def contract(tensors, subs, out):
    """The core op on an explicit equation (letters only, one size per letter, output letters
    distinct): Note [Einsum as one op]."""
    return registry.dispatch(_einsum_op(len(tensors)), tuple(tensors),
                             (",".join(subs) + "->" + out,))


# ----------------------------------------------------------------------------- parsing
def _err(msg):
    return ArgValueError(f"einsum(): {msg}")


def _split_term(term, where):
    """A term's letters, and the position of its ellipsis among them (None when absent)."""
    letters, ell = [], None
    k = 0
    while k < len(term):
        c = term[k]
        if c == ".":
            if term[k:k + 3] != "..." or ell is not None:
                raise _err(f"found '.' for {where} that is not part of any ellipsis, or a "
                           f"second ellipsis, in {term!r}. Fix: at most one '...' per term.")
            ell = len(letters)
            k += 3
            continue
        if c not in _LETTERS:
            raise _err(f"invalid subscript {c!r} given in the equation for {where}; subscripts "
                       "must be letters in [a-zA-Z]")
        letters.append(c)
        k += 1
    return letters, ell


def _from_sublists(args):
    """torch's sublist form einsum(op0, [0, 1], op1, [1, 2], [0, 2]) as an equation."""
    args = list(args)
    out = args.pop() if len(args) % 2 == 1 else None

    def term(sub):
        if not isinstance(sub, (list, tuple)):
            raise ArgTypeError("einsum(): in the sublist format each operand is followed by a "
                               f"list of subscripts, got {type(sub).__name__}")
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 52:
                s += _LETTERS[26 + v] if v < 26 else _LETTERS[v - 26]
            else:
                raise _err(f"subscript in the sublist format must be in range [0, 52), got {v!r}")
        return s
    eq = ",".join(term(s) for s in args[1::2])
    if out is not None:
        eq += "->" + term(out)
    return eq, args[0::2]


def _parse(equation, tensors):
    """Explicit subscripts for each operand, the output's, and each letter's size."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1 or eq.count("-") != eq.count("->") or eq.count(">") != eq.count("->"):
        raise _err(f"invalid equation {equation!r}: at most one '->' separates the operands "
                   "from the output")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(tensors):
        raise _err(f"fewer operands were provided than specified in the equation "
                   f"{equation!r} ({len(tensors)} operands for {len(terms)} terms)")
    if len(terms) < len(tensors):
        raise _err(f"more operands were provided than specified in the equation "
                   f"{equation!r} ({len(tensors)} operands for {len(terms)} terms)")
    parsed = [_split_term(t, f"operand {i}") for i, t in enumerate(terms)]
    used = {c for ls, _ in parsed for c in ls}
    ell_nd = 0
    for i, ((ls, ell), t) in enumerate(zip(parsed, tensors)):
        nd = t._data.ndim
        if ell is None and len(ls) != nd:
            raise _err(f"the number of subscripts in the equation ({len(ls)}) does not match "
                       f"the number of dimensions ({nd}) for operand {i} and no ellipsis was "
                       "given")
        if ell is not None and len(ls) > nd:
            raise _err(f"the number of subscripts in the equation ({len(ls)}) is more than "
                       f"the number of dimensions ({nd}) for operand {i}")
        if ell is not None:
            ell_nd = max(ell_nd, nd - len(ls))
    free = [c for c in _LETTERS if c not in used]
    if ell_nd > len(free):
        raise _err(f"too many dimensions: the ellipsis needs {ell_nd} letters, {len(free)} "
                   "are free")
    ell_letters = free[:ell_nd]
    subs = []
    for (ls, ell), t in zip(parsed, tensors):
        if ell is not None:
            k = t._data.ndim - len(ls)
            ls = ls[:ell] + ell_letters[ell_nd - k:] + ls[ell:]
        subs.append("".join(ls))
    if arrow:
        rl, rell = _split_term(rhs, "the output")
        for c in rl:
            if rl.count(c) > 1:
                raise _err(f"output subscript {c} appears more than once in the output")
            if c not in used:
                raise _err(f"output subscript {c} does not appear in the equation for any "
                           "input operand")
        if rell is not None:
            if not any(ell is not None for _, ell in parsed):
                raise _err("ellipsis is not allowed in the output when no operand has one "
                           f"({equation!r})")
            rl = rl[:rell] + ell_letters + rl[rell:]
        out = "".join(rl)
    else:
        counts = "".join(subs)
        out = "".join(ell_letters) + "".join(
            c for c in _LETTERS if c not in ell_letters and counts.count(c) == 1)
    sizes = {}
    for i, (s, t) in enumerate(zip(subs, tensors)):
        shape = t._data.shape
        own = {}
        for c, n in zip(s, shape):
            if c in own and own[c] != n:
                raise _err(f"subscript {c} is repeated for operand {i} but the sizes don't "
                           f"match, {own[c]} != {n}")
            own[c] = n
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = n
            elif n != 1 and n != prev:
                raise _err(f"subscript {c} has size {n} for operand {i} which does not "
                           f"broadcast with previously seen size {prev}")
    return subs, out, sizes


def einsum(equation, *operands):
    """The sum over the products of the operands' elements named by an Einstein-summation
    equation ('ij,jk->ik' is a matrix product): explicit ('->') or implicit output,
    '...' for broadcast dims, repeated letters for diagonals; operands as varargs or one list
    (torch's sublist form einsum(a, [0, 1], b, [1, 2]) too). Differentiable in every operand,
    to any order."""
    if not isinstance(equation, str):
        if isinstance(equation, Tensor):
            equation, operands = _from_sublists((equation,) + operands)
        else:
            raise ArgTypeError(f"einsum(): equation must be a str, got "
                               f"{type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise _err("must provide at least one operand")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"einsum(): operand {i} must be a Tensor, got "
                               f"{type(t).__name__}")
    tensors = list(operands)
    subs, out, sizes = _parse(equation, tensors)
    dt = tensors[0]._data.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != dt:
            raise _OperandDTypeError(
                f"einsum(): expected scalar type {dt} but found {t._data.dtype} (operand {i}); "
                "the operands must have one dtype. Fix: cast them, e.g. b.astype(a.dtype)")
    bt = registry.FUNCTIONS["broadcast_to"]
    for i, (s, t) in enumerate(zip(subs, tensors)):
        want = [sizes[c] for c in s]
        if list(t._data.shape) != want:
            t = bt(t, want)
        tensors[i] = t
    return contract(tensors, subs, out)


registry.register_function("einsum", einsum, method=False)
