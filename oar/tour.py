"""`python -m oar tour`: the core ideas by example, once through each door.

Each section below is a plain function. The tour prints its code, then runs it: what you read
is exactly what ran, and a traceback or a debugger points into this file.
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap

import oar
import oar as paddle            # the Paddle door: Paddle 3.3's API and meanings
import oar.torch as torch       # the PyTorch door: PyTorch 2.13's API and meanings


@contextlib.contextmanager
def shows_error():
    """Print an error as a user would see it, and go on with the section."""
    try:
        yield
    except BrokenPipeError:   # the reader went away (tour | head): __main__ stops quietly
        raise
    except Exception as e:
        print(f"{type(e).__name__}: {e}")


# -- the PyTorch door: `import oar.torch as torch` -------------------------------------------

def torch_three_kinds_of_op():
    """Three kinds of op (view / in-place / normal)"""
    a = torch.tensor([[1., 2.], [3., 4.]])
    v = a.view(4)               # view: shares data, own shape
    print("view:", v.data_ptr() == a.data_ptr(), v.shape, a.shape)
    y = a.mul_(2)               # in-place: the same object, its version counter moves on
    print("in-place:", y is a, a._version, v._version)
    n = a.mul(2)                # normal: new memory
    print("normal:", n.data_ptr() == a.data_ptr(), n._version)


def torch_autograd_through_inplace():
    """Autograd through an in-place op on a non-leaf"""
    a = torch.ones(3, 4, requires_grad=True)
    x = a * 2
    y = x.mul_(2)
    print(y is x, x.grad_fn)
    y.sum().backward()
    print(a.grad)


def torch_leaf_rule():
    """The leaf rule: refused before any write"""
    w = torch.randn(3, requires_grad=True)
    before = w.detach().clone()
    with shows_error():
        w.mul_(2)
    print("unchanged:", torch.equal(w, before), w._version)
    with torch.no_grad():
        _ = w.mul_(2)           # allowed: parameter updates, initialisation
    print("under no_grad:", w._version, w.is_leaf)


def torch_saved_tensor_modified():
    """A saved tensor modified in place: caught at backward, with its provenance"""
    x = torch.tensor([1., 2.], requires_grad=True)
    e = x.exp()                 # exp saves its result for backward
    e += 1                      # ...which this modifies
    with shows_error():
        e.sum().backward()


def torch_inplace_on_a_view():
    """In-place on a view rewrites the base's history (CopySlices)"""
    x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
    b = x * 1
    v = b[1:3]
    _ = v.mul_(10)
    print(b.grad_fn, v.grad_fn)
    b.sum().backward()
    print(x.grad)


# -- the Paddle door: `import oar as paddle` -------------------------------------------------

def paddle_three_kinds_of_op():
    """Three kinds of op (view / in-place / normal)"""
    a = paddle.to_tensor([[1., 2.], [3., 4.]])
    v = a.reshape([4])          # view: shares data, own shape
    print("view:", v._is_shared_buffer_with(a), v.shape, a.shape)
    y = a.scale_(2.0)           # in-place: the same object, its version counter moves on
    print("in-place:", y is a, a.inplace_version, v.inplace_version)
    n = a.scale(2.0)            # normal: new memory
    print("normal:", n._is_shared_buffer_with(a), n.inplace_version)


def paddle_memory():
    """Memory: in-place needs 1x, out-of-place 2x"""
    x = paddle.zeros([1_000_000])
    paddle.device.reset_max_memory_allocated()
    base = paddle.device.memory_allocated()
    _ = x.exp_()
    print("bytes added by exp_:", paddle.device.max_memory_allocated() - base)
    paddle.device.reset_max_memory_allocated()
    z = x.exp()
    print("bytes added by exp: ", paddle.device.max_memory_allocated() - base)


def paddle_autograd_through_inplace():
    """Autograd through an in-place op on a non-leaf"""
    a = paddle.ones([3, 4])
    a.stop_gradient = False
    x = a.scale(2.0)
    y = x.scale_(2.0)
    print(y is x, x.grad_fn)
    y.backward()
    print(a.grad)


def paddle_leaf_rule():
    """The leaf rule: refused before any write"""
    w = paddle.randn([3])
    w.stop_gradient = False
    before = w.numpy()
    with shows_error():
        w.scale_(2.0)
    print("unchanged:", (w.numpy() == before).all(), w.inplace_version)
    with paddle.no_grad():
        _ = w.scale_(2.0)       # allowed: parameter updates, initialisation
    print("under no_grad:", w.inplace_version, w.is_leaf)


def paddle_saved_tensor_modified():
    """A saved tensor modified in place: caught at backward, with its provenance"""
    x = paddle.to_tensor([1., 2.], stop_gradient=False)
    e = x.exp()                 # exp saves its result for backward
    _ = e.add_(paddle.ones([2]))    # ...which this modifies
    with shows_error():
        e.sum().backward()


# (door, the import that opens it, its sections): each door's sections use only its own name
DOORS = (
    ("The PyTorch door", "import oar.torch as torch",
     (torch_three_kinds_of_op, torch_autograd_through_inplace, torch_leaf_rule,
      torch_saved_tensor_modified, torch_inplace_on_a_view)),
    ("The Paddle door", "import oar as paddle",
     (paddle_three_kinds_of_op, paddle_memory, paddle_autograd_through_inplace,
      paddle_leaf_rule, paddle_saved_tensor_modified)),
)
SECTIONS = tuple(section for _, _, sections in DOORS for section in sections)


def code_of(section):
    """A section's body as it reads in this file: no `def` line, no docstring."""
    source = textwrap.dedent(inspect.getsource(section))
    function = ast.parse(source).body[0]
    first = function.body[1 if ast.get_docstring(function) else 0]
    return textwrap.dedent("\n".join(source.splitlines()[first.lineno - 1:]))


def main():
    oar.seed(2024)
    for door, opening, sections in DOORS:
        print(f"\n#### {door}: every example below runs after\n\n    {opening}")
        for section in sections:
            title = section.__doc__
            print(f"\n== {title} " + "=" * max(0, 70 - len(title)))
            print(textwrap.indent(code_of(section), "    "))
            print("-- prints:")
            section()
    print("\nSee docs/api-by-example.md for the rest of the API.")
    return 0
