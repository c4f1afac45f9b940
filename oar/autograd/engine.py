"""The backward engine: dependency-counted walk over the graph, latest node first."""
from __future__ import annotations

import heapq

import numpy as np

from . import grad_mode
from .node import AccumulateGrad, OpNode, hook_result


def _collect(roots):
    """Dependency counts of every node reachable from the roots."""
    deps = {}
    seen = set()
    stack = [n for n in roots if n is not None]
    for n in stack:
        seen.add(n)
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            nxt = edge[0]
            deps[nxt] = deps.get(nxt, 0) + 1
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
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def run_backward(roots, root_grads, retain_graph=False, create_graph=False, inputs=None,
                 allow_unused=False):
    """roots: list of (node, out_nr); root_grads: matching Tensors.

    With `inputs` (a list of Tensors) the gradients reaching them are returned instead of
    being accumulated into .grad (oar.grad).
    """
    capture = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            edge = t._edge()
            if edge is None:
                continue
            capture.setdefault(edge, []).append(i)
    buffers = {}
    root_nodes = []
    for (node, nr), g in zip(roots, root_grads):
        if node is None:
            continue
        buf = buffers.setdefault(node, {})
        buf[nr] = _add(buf.get(nr), g)
        root_nodes.append(node)
    deps = _collect(root_nodes)
    useful = None
    if capture is not None:
        useful = _reaches(root_nodes, {e[0] for e in capture})
    results = [None] * len(inputs) if inputs is not None else None

    # Note [Gradient ownership]: a gradient that this run's own op formulas created, that
    # was returned once and that only the engine's buffers hold has its storage's `owner` set
    # to this run's token. AccumulateGrad may then keep it as .grad instead of copying it
    # (tensor.py _accumulate_grad), and a backward may write into it (OpNode.may_overwrite),
    # unless a hook or oar.grad's capture has seen it or another tensor shares its storage.
    token = None if create_graph else object()
    ready = []
    push, pop = heapq.heappush, heapq.heappop
    for node in set(root_nodes):
        if deps.get(node, 0) == 0:
            push(ready, (-node.seq, id(node), node))
    prev = grad_mode.STATE.enabled
    grad_mode.STATE.enabled = create_graph
    try:
        while ready:
            node = pop(ready)[2]
            grads_in = buffers.pop(node, None)
            if node.pre_hooks and grads_in:
                _run_pre_hooks(node, grads_in)
                _disown(grads_in)          # a hook may keep what it saw
            if node.retained is not None and grads_in:
                # Note [Retained gradients]
                for nr, ref in list(node.retained.items()):
                    t = ref()
                    g = grads_in.get(nr)
                    if t is not None and g is not None:
                        t._retain(g)
            run = grads_in is not None
            if capture is not None:
                if grads_in and node.__class__ is AccumulateGrad and node.variable._hooks:
                    # a leaf's hooks see its gradient in oar.grad too, as in PyTorch (there
                    # AccumulateGrad is not run, so they run here, once)
                    _run_leaf_hooks(node.variable, grads_in)
                    _disown(grads_in)
                for nr, g in (grads_in or {}).items():
                    for i in capture.get((node, nr), ()):
                        results[i] = _add(results[i], g)
                        g._storage.owner = None    # returned to the caller
                run = run and not isinstance(node, AccumulateGrad) and node in useful
            # the incoming gradient (single-output nodes) and whether this run owns it
            g0 = None
            own0 = False
            if grads_in and len(grads_in) == 1:
                g0 = grads_in.get(0)
                own0 = token is not None and g0 is not None and g0._storage.owner is token

            if run and node.__class__ is AccumulateGrad:
                node.variable._accumulate_grad(grads_in[0], bool(own0))
                out = ()
            elif run:
                if len(grads_in) == 1 and 0 in grads_in:
                    if node.__class__ is OpNode:
                        # the backward may reuse an owned gradient's buffer (Note [Gradient
                        # ownership]; hooks and oar.grad's capture disowned what they saw)
                        node.grad_owned = own0
                    out = node.apply(grads_in[0])
                else:
                    out = node.apply(grads_in)   # multi-output node: dict out_nr -> grad
                if not retain_graph:
                    node.release()
            else:
                out = ()
            n_out = len(out)
            fresh = token is not None and node.__class__ is OpNode
            if fresh and n_out > 1:   # a gradient returned twice is shared: never owned
                ids = [id(o) for o in out if o is not None]
                dup = len(set(ids)) < len(ids)
            else:
                dup = False
            for k, edge in enumerate(node.next_edges):
                if edge is None:
                    continue
                nxt = edge[0]
                g = out[k] if k < n_out else None
                if g is not None:
                    buf = buffers.get(nxt)
                    nr = edge[1]
                    old = buf.get(nr) if buf is not None else None
                    if old is None:
                        if buf is None:
                            buffers[nxt] = {nr: g}
                        else:
                            buf[nr] = g
                        # owned: made in this run by our formulas, returned once, and
                        # either new or the node's own owned incoming gradient passed on
                        if fresh:
                            if dup:
                                g._storage.owner = None          # shared: nobody owns it
                            elif g is not g0 if g0 is not None else all(g is not v for v in grads_in.values()):
                                g._storage.owner = token         # made by this formula
                            # g is g0: stays owned exactly when it was (own0)
                    else:
                        new = old + g
                        buf[nr] = new
                        if token is not None:
                            new._storage.owner = token
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    push(ready, (-nxt.seq, id(nxt), nxt))
    finally:
        grad_mode.STATE.enabled = prev
    if inputs is not None:
        for i, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                from .errors import ArgValueError
                raise ArgValueError(
                    f"(InvalidArgument) The {i}-th input does not appear in the backward graph "
                    f"(input of shape {list(t.shape)}). One of the differentiated Tensors "
                    "appears to not have been used in the graph. Check the input or set "
                    "allow_unused=True to get None for it.")
        return results
    return None


def _run_leaf_hooks(leaf, grads_in):
    from .node import hook_result
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


def _run_pre_hooks(node, grads_in):
    for nr, hooks in node.pre_hooks.items():
        g = grads_in.get(nr)
        if g is None:
            continue
        for hook in hooks:
            r = hook(g)
            if r is not None:
                g = hook_result(hook, g, r)
        grads_in[nr] = g


def sum_to_shape(g, shape):
    """Reduce a broadcast gradient (an oar Tensor) back to `shape`."""
    gshape = g.shape
    if tuple(gshape) == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        g = g.sum(axis=axes, keepdim=True)
    if tuple(g.shape) != tuple(shape):
        g = g.reshape(list(shape))   # drop the leading broadcast dims
    return g


def np_sum_to_shape(g: np.ndarray, shape):
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape)
