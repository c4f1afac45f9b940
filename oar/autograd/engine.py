"""The backward engine: dependency-counted walk over the graph, latest node first.

run_backward has three parts: preparation (seed the roots' gradients, count each node's
dependencies, for oar.grad find the nodes that lead to an input), the walk (run each node
when its gradients are complete, route what it returns), and gradient ownership (Note
[Gradient ownership]: which gradients this run may keep as .grad or write into)."""
from __future__ import annotations

import heapq
import sys

from .._fpwarn import ensure as _fpwarn_ensure
from . import grad_mode
from .node import AccumulateGrad, OpNode, hook_result
from .node import np_sum_to_shape, sum_to_shape  # noqa: F401  (their old home)

_refcount = sys.getrefcount


def _np_add(a, b, out):
    """`out += b` as one recorded NumPy call (Note [Capture and replay])."""
    return out.__iadd__(b)
_TIMELINE = None   # the recording memory timeline, or None (device.py, Note [Memory timeline])
_RECORDER = None   # oar.jit's recorder while capturing, or None (Note [Capture and replay])


def _collect(roots):
    """Dependency counts: for every node reachable from the roots, the number of edges that
    lead into it. A root given twice (backward([y, y])) is walked once, as the walk runs it
    once: counted twice, its inputs would never become ready."""
    deps = {}
    stack = list({n for n in roots if n is not None})
    seen = set(stack)
    while stack:
        for edge in stack.pop().next_edges:
            if edge is None:
                continue
            nxt = edge[0]
            if nxt in deps:
                deps[nxt] += 1
            else:   # first edge into nxt: walk on from it, unless it is a root (walked anyway)
                deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return deps


def _reaches(roots, targets):
    """Nodes from which some target node is reachable (for oar.grad pruning)."""
    memo = {}
    stack = [(n, False) for n in roots if n is not None]
    while stack:
        node, done = stack.pop()
        if done:
            r = node in targets
            for e in node.next_edges:
                if e is not None and memo.get(e[0], False):
                    r = True
            memo[node] = r
            continue
        if node in memo:
            continue
        memo[node] = False
        stack.append((node, True))
        for e in node.next_edges:
            if e is not None and e[0] not in memo:
                stack.append((e[0], False))
    return {n for n, r in memo.items() if r}


def _add(a, b):
    """a + b where either may be None (no gradient)."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, inputs=None,
                 allow_unused=False, accumulate_into=None):
    """roots: list of (node, out_nr); root_grads: matching Tensors.

    With `inputs` (a list of Tensors) the gradients reaching them are returned instead of
    being accumulated into .grad (oar.grad). With `accumulate_into` (a list of Tensors:
    backward(inputs=...)) they are accumulated into those tensors' .grad only.
    """
    _fpwarn_ensure()   # Note [Floating-point warnings]
    buffers, root_nodes = _root_buffers(roots, root_grads)
    deps = _collect(root_nodes)
    if accumulate_into is not None:
        capture = _Into(accumulate_into, root_nodes)
    else:
        capture = None if inputs is None else _Capture(inputs, root_nodes)
    token = None if create_graph else object()   # this run's mark: Note [Gradient ownership]
    prev = grad_mode.STATE.enabled
    grad_mode.STATE.enabled = create_graph   # the formulas record a graph only for create_graph
    timeline = _TIMELINE   # Note [Memory timeline]
    if timeline is not None:
        timeline.backward_begins(root_nodes)
    try:
        _walk(root_nodes, buffers, deps, token, retain_graph, capture)
    finally:
        grad_mode.STATE.enabled = prev
        if timeline is not None:
            timeline.backward_ends()
    return None if inputs is None else capture.results_for(inputs, allow_unused)


# --------------------------------------------------------------------------- preparation
def _root_buffers(roots, root_grads):
    """The gradient buffers seeded with the roots' gradients (node -> {out_nr: grad}; a
    root given twice gets the sum), and the root nodes."""
    buffers = {}
    root_nodes = []
    for (node, nr), g in zip(roots, root_grads):
        if node is None:
            continue
        buf = buffers.setdefault(node, {})
        buf[nr] = _add(buf.get(nr), g)
        root_nodes.append(node)
    return buffers, root_nodes


class _Capture:
    """oar.grad: the gradients reaching `inputs` are collected here instead of going into
    .grad, and only nodes from which an input is reachable run."""

    def __init__(self, inputs, root_nodes):
        self.where = {}   # (node, out_nr) an input's gradient flows into -> input positions
        for i, t in enumerate(inputs):
            edge = t._edge()
            if edge is not None:
                self.where.setdefault(edge, []).append(i)
        # a node runs when it leads to an input's edge; an input's own grad_fn does not run
        # unless another input lies behind it (PyTorch stops at the input's edge)
        self.reach = reach = _reaches(root_nodes, {e[0] for e in self.where})
        self.useful = {n for n in reach
                       if any(e is not None and e[0] in reach for e in n.next_edges)}
        self.results = [None] * len(inputs)

    def step(self, node, grads_in, token, retain_graph):
        """Collect what reaches an input, then run the node if it leads to another input."""
        if node.__class__ is AccumulateGrad and node.variable._hooks:
            # a leaf's hooks see its gradient in oar.grad too, as in PyTorch (there
            # AccumulateGrad is not run, so they run here, once)
            _run_leaf_hooks(node.variable, grads_in)
            _disown(grads_in)
        results = self.results
        for nr, g in grads_in.items():
            for i in self.where.get((node, nr), ()):
                results[i] = _add(results[i], g)
                g._storage.owner = None    # returned to the caller
        if isinstance(node, AccumulateGrad) or node not in self.useful:
            return ()
        return _run_node(node, grads_in, token, retain_graph)

    def results_for(self, inputs, allow_unused):
        for i, (t, r) in enumerate(zip(inputs, self.results)):
            if r is None and not allow_unused:
                from .errors import ArgValueError
                raise ArgValueError(
                    f"(InvalidArgument) The {i}-th input does not appear in the backward graph "
                    f"(input of shape {list(t.shape)}). One of the differentiated Tensors "
                    "appears to not have been used in the graph. Check the input or set "
                    "allow_unused=True to get None for it.")
        return self.results


class _Into(_Capture):
    """backward(inputs=...), as PyTorch: the gradients reaching `inputs` accumulate into
    their .grad (a leaf through its own AccumulateGrad, so its hooks and post-accumulate
    hooks run; a non-leaf as a retained gradient), no other leaf's .grad changes, and a
    node runs only when one of its next nodes leads to an input (an input's own grad_fn
    runs only when another input lies behind it)."""

    def __init__(self, inputs, root_nodes):
        _Capture.__init__(self, inputs, root_nodes)   # (its `useful` is this rule too)
        self.tensors = inputs

    def step(self, node, grads_in, token, retain_graph):
        if node.__class__ is AccumulateGrad:
            if (node, 0) in self.where:
                return _run_node(node, grads_in, token, retain_graph)
            return ()
        for nr, g in grads_in.items():
            for i in self.where.get((node, nr), ()):
                self.tensors[i]._retain(g)   # a copy: g flows on unchanged
        if node not in self.useful:
            return ()
        return _run_node(node, grads_in, token, retain_graph)


# --------------------------------------------------------------------------- the walk
def _walk(root_nodes, buffers, deps, token, retain_graph, capture):
    """Run each node once every node feeding it a gradient has run, latest node first among
    the ready ones (the forward order, reversed), and route each gradient it returns into
    the buffer of the node that input's edge leads to.

    This loop runs once per node of every backward: rare work (hooks, retained gradients,
    oar.grad, ownership) is in helpers, the common path stays inline."""
    ready = []
    push, pop = heapq.heappush, heapq.heappop
    for node in set(root_nodes):
        if deps.get(node, 0) == 0:
            push(ready, (-node.seq, id(node), node))
    while ready:
        node = pop(ready)[2]
        grads_in = buffers.pop(node, None)
        if grads_in is None:
            out = ()   # no gradient reached it: none flows on from it either
        else:
            if node.pre_hooks or node.retained is not None:
                _before_node(node, grads_in)
            if capture is None:
                out = _run_node(node, grads_in, token, retain_graph)
            else:
                out = capture.step(node, grads_in, token, retain_graph)
        n_out = len(out)
        for k, edge in enumerate(node.next_edges):
            if edge is None:
                continue
            nxt = edge[0]
            g = out[k] if k < n_out else None
            if g is not None:
                buf = buffers.get(nxt)
                if buf is None:
                    buffers[nxt] = {edge[1]: g}
                else:
                    nr = edge[1]
                    old = buf.get(nr)
                    buf[nr] = g if old is None else _sum(old, g, token)
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                push(ready, (-nxt.seq, id(nxt), nxt))
        if _TIMELINE is not None:   # Note [Memory timeline]
            _TIMELINE.node(node)


def _run_node(node, grads_in, token, retain_graph):
    """One node's backward on its incoming gradients (grads_in: out_nr -> gradient); the
    gradients for its inputs, in input order. A leaf's sink writes .grad and returns none."""
    if _RECORDER is not None:   # Note [Capture and replay]
        return _RECORDER.run_node(node, grads_in, token, retain_graph)
    cls = node.__class__
    g = grads_in.get(0) if len(grads_in) == 1 else None
    if g is None:   # a multi-output node: it takes the dict out_nr -> grad
        if cls is AccumulateGrad:
            node.variable._accumulate_grad(grads_in[0], False)
            return ()
        out = node.apply(grads_in)
    else:
        # the engine owns g when this run made it and nothing else has seen it (Note
        # [Gradient ownership]): .grad may then become g itself, a backward may write into it
        owned = token is not None and g._storage.owner is token
        if cls is AccumulateGrad:
            node.variable._accumulate_grad(g, owned)
            return ()
        if cls.__base__ is OpNode:   # per-name subclasses (MulBackward0)
            node.grad_owned = owned
            # released right after this apply (Note [Overwriting a dead saved output])
            node.releasing = token is not None and not retain_graph
        out = node.apply(g)
    if not retain_graph:
        node.release()
    if token is not None and cls.__base__ is OpNode:
        _claim(out, grads_in, token)
    return out


def _before_node(node, grads_in):
    """The node's pre-hooks (they may replace its incoming gradients), then the .grad of
    tensors retaining its outputs' gradients (Note [Retained gradients])."""
    if node.pre_hooks:
        _run_pre_hooks(node, grads_in)
        _disown(grads_in)          # a hook may keep what it saw
    if node.retained is not None:
        for nr, ref in list(node.retained.items()):
            t = ref()
            g = grads_in.get(nr)
            if t is not None and g is not None:
                t._retain(g)


# --------------------------------------------------------------------------- ownership
# Note [Gradient ownership]
# A gradient that this run's own op formulas created, that was returned once and that
# only the engine's buffers hold has its storage's `owner` set to this run's token.
# AccumulateGrad may then keep it as .grad instead of copying it (tensor.py
# _accumulate_grad), and a backward may write into it (OpNode.may_overwrite), unless a
# hook or oar.grad's capture has seen it or another tensor shares its storage.
def _claim(out, grads_in, token):
    """Mark what an OpNode's formula returned (Note [Gradient ownership]). A gradient the
    formula made is owned by this run. One object returned for two inputs is shared, so
    nobody owns it. An incoming gradient passed on unchanged (add, expand) keeps the
    ownership it had. Only OpNodes: other nodes (custom Functions, CopySlices) may return
    tensors that live on elsewhere."""
    n = len(out)
    if n == 2:   # mul, add, sub...: the common case without building a set
        shared = out[0] is out[1] and out[0] is not None
    else:
        shared = n > 2 and _repeats(out)
    if shared:
        for g in out:
            if g is not None:
                g._storage.owner = None
        return
    incoming = grads_in.values()
    for g in out:
        if g is not None:
            for v in incoming:
                if g is v:
                    break
            else:
                g._storage.owner = token


def _repeats(out):
    """True when one gradient object appears twice among `out` (Nones aside)."""
    ids = [id(g) for g in out if g is not None]
    return len(set(ids)) < len(ids)


def _sum(old, g, token):
    """Two gradients for one buffer slot: their sum, owned by this run (Note [Gradient
    ownership]) unless the run records a graph (create_graph)."""
    if token is None:
        return old + g
    # Note [Accumulate in place]
    # When this run owns `old` (made by its formulas, seen by nothing else, so only this
    # buffer slot holds it), nothing else references its storage (no view, no alias, no
    # saved tensor), its memory is writable, and g has its shape and dtype (so old + g has
    # them), the sum is written into old's memory instead of a new tensor, as PyTorch's
    # InputBuffer does.
    # A gradient that is not owned may also sit in another slot (add returns g for both
    # of its inputs): writing into it would change that slot's gradient too.
    od, gd = old._data, g._data
    if (old._storage.owner is token
            and _refcount(old._storage) == 2   # old's reference and the argument's
            and od.shape == gd.shape and od.dtype == gd.dtype and od.flags.writeable):
        od += gd
        old._storage.version += 1
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.step("w", _np_add, (od, gd), {"out": od}, (od,), False)
        return old
    new = old + g
    new._storage.owner = token
    return new


def _run_leaf_hooks(leaf, grads_in):
    """A leaf's hooks, run on the gradient oar.grad collects for it."""
    g = grads_in[0]
    for hook in leaf._hooks:
        r = hook(g)
        if r is not None:
            g = hook_result(hook, g, r)
    grads_in[0] = g


def _disown(grads_in):
    for g in grads_in.values():
        if g is not None:
            g._storage.owner = None


# Note [Hooks on an output without a gradient]
# When a node with several outputs runs (unbind, split, var_mean, a custom Function), some of
# its outputs may have received no gradient. PyTorch still calls the tensor hooks registered
# on those outputs, with None, and refuses a hook that answers None with a tensor ("can't
# replace a None gradient..."). The engine stays door-agnostic: a hook object whose class
# sets `sees_none = True` (the torch door wraps Tensor.register_hook's hooks on non-leaf
# tensors in one, oar/torch/_tensor.py) is called with None; every other hook, so the
# Paddle door's, only with a gradient, as before. (Paddle 3.3 itself calls such hooks too:
# with zeros after unbind/split, with None after a PyLayer; the Paddle door does not follow
# that yet.) unbind/split outputs in oar each have their own view node, which never runs
# without a gradient: their hooks are not called (PyTorch's one UnbindBackward0 node is).
def _run_pre_hooks(node, grads_in):
    for nr, hooks in node.pre_hooks.items():
        g = grads_in.get(nr)
        if g is None:
            for hook in hooks:
                if getattr(hook, "sees_none", False) and hook(None) is not None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
            continue
        for hook in hooks:
            r = hook(g)
            if r is not None:
                g = hook_result(hook, g, r)
        grads_in[nr] = g
