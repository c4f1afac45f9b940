"""A compiled forward whose backward runs outside it: torch.compile(model)."""

# Note [Compiled forward]
# ~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's most common use of compile: `model = torch.compile(model)`, then
# `loss_fn(model(x), y).backward()` outside. A whole-step replay (Note [Capture and
# replay]) cannot serve it: the replay returns tensors without history. Here the forward is
# replayed, and its outputs come back with one autograd node, CompiledFunctionBackward,
# whose backward is itself a replay:
#   - a capture call runs the forward eagerly while a recorder listens (the caller gets
#     this eager result, with its ordinary graph), marks the split, then runs one backward
#     of the outputs with seed gradients of ones (retain_graph=True, so the caller's own
#     backward later works) into the tensors the graph starts from: leaves that require a
#     gradient (parameters) and the call's tensor arguments. That backward writes no .grad
#     (oar.grad's route) and touches nothing outside, so the capture call has no side effect
#     an eager call lacks;
#   - the planner keeps every buffer the forward writes and the backward reads alive to the
#     end of the program (so a backward with retain_graph=True can run again), and the seed
#     gradients are inputs of the program, copied in when backward comes;
#   - a replay runs the forward part and returns copies of the outputs through a PyLayer
#     (oar.autograd.Function) whose saved tensors are the arguments and external tensors the
#     backward part reads: modifying one in place before backward raises as eager does. Its
#     backward runs the backward part and returns copies of the gradients; the engine
#     routes them to .grad and to the arguments' own history as for any node;
#   - the planned buffers serve one pending backward at a time: while a replay's node still
#     waits for its backward (or is kept by retain_graph), another call runs eagerly;
#   - double backward (create_graph=True) through the node raises, as PyTorch's compiled
#     autograd does; a tensor with history that is not an argument (a closure's), a hook,
#     or anything the recorder cannot capture is a graph break: that guard key runs eagerly
#     (with a warning), or raises under fullgraph=True.
# Under no_grad the forward alone is captured and replayed (a Captured of the same function).
from __future__ import annotations

import collections
import warnings
import weakref

from .. import _xp
from . import (CaptureError, Captured, Program, _Tensor, _first_difference, _flatten,
               _guard_key, _layer_state, _layers_of, _record, _signature, _unflatten,
               cache_entry)
from ..autograd import engine as _E
from ..autograd import grad_mode
from ..autograd import node as _node
from ..autograd.errors import GraphReleasedError
from ..autograd.function import PyLayer, PyLayerNode
from ..autograd.node import AccumulateGrad, _released_message
from ..ops import registry as _R


class CompiledFunction(PyLayer):
    """The node of a compiled forward's outputs (PyTorch's name): its backward replays the
    recorded backward (Note [Compiled forward])."""

    @staticmethod
    def forward(ctx, run, *tensors):
        plan = run.plan
        outs = plan.program.run_forward(run.inputs, plan.n_out)
        ctx.run = run
        n_in = len(run.inputs)   # (the slots after the arguments are the seeds)
        ctx.save_for_backward(*(run.inputs[k] for k in plan.program.bwd_inputs if k < n_in),
                              *plan.program.bwd_ext)
        nondiff = [o for i, o in enumerate(outs) if i not in plan.diff_set]
        if nondiff:
            ctx.mark_non_differentiable(*nondiff)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        run = ctx.run
        if run.done:
            raise GraphReleasedError(_released_message("CompiledFunctionBackward"))
        if grad_mode.is_grad_enabled():
            raise RuntimeError("torch.compile with aot_autograd does not currently support "
                               "double backward (oar replays the compiled backward without "
                               "a graph). Fix: run the model uncompiled for create_graph=True.")
        ctx.saved_tensors   # the version check of Note [Saved tensors are versioned]
        plan = run.plan
        seeds = [grads[i]._data for i in plan.diff]
        got = iter(plan.program.run_backward(seeds, plan.n_out))
        res = [next(got) if has else None for has in plan.has_grad]
        return (None, *res)


class CompiledFunctionBackward(PyLayerNode):
    __slots__ = ()

    def release(self):
        super().release()
        self.ctx.run.finish()


CompiledFunction._backward_cls = CompiledFunctionBackward


class _Run:
    """One replayed forward: its inputs, and whether its buffers are still needed."""
    __slots__ = ("plan", "inputs", "done", "__weakref__")

    def __init__(self, plan, inputs):
        self.plan, self.inputs, self.done = plan, inputs, False

    def finish(self):
        if not self.done:
            self.done = True
            self.plan.program.release()
            if self.plan.active is self:
                self.plan.active = None


class _Plan:
    """A captured forward for one guard key: the program and how its outputs and the
    tensors the graph starts from map to the call."""

    def __init__(self, program, spec, n_out, diff, wrt, has_grad, layers, ext):
        self.program, self.spec, self.n_out = program, spec, n_out
        # whether each external tensor the forward read (through its root: a view made
        # inside the call is a new object each call) requires a gradient: one that starts
        # to would be missing from the node's inputs
        roots = {id(b): b for b in (t._base if t._view is not None else t for t in ext)}
        self.flags = [(b, b._requires_grad) for b in roots.values()]
        self.diff, self.diff_set = diff, frozenset(diff)
        self.wrt, self.has_grad = wrt, has_grad
        self.active = None
        program.layers = layers
        program.layer_state = _layer_state(layers)

    def ok(self):
        for b, rg in self.flags:
            if b._requires_grad is not rg:
                return False
        return self.program.guards_ok()

    def replay(self, in_tensors):
        run = _Run(self, in_tensors)
        wrt = [in_tensors[v] if isinstance(v, int) else v for v in self.wrt]
        if not self.diff or not any(t.requires_grad for t in wrt) or not \
                grad_mode.is_grad_enabled():
            outs = self.program.run_forward(in_tensors, self.n_out)
            self.program.release()
            return _unflatten(self.spec, outs)
        self.active = run
        try:
            outs = CompiledFunction.apply(run, *wrt)
        except BaseException:
            run.finish()
            raise
        node = outs[self.diff[0]]._grad_fn
        # the pool is free again once the graph is gone: no cycle node -> ctx -> node may
        # keep it waiting for the cyclic collector
        node.ctx._node = weakref.proxy(node)
        weakref.finalize(node, run.finish)
        return _unflatten(self.spec, list(outs))


class CompiledForward:
    """fn compiled for a backward outside it (Note [Compiled forward]); `.stats` counts
    eager calls, captures, replays, and calls run eagerly because a previous replay's
    backward was still pending ("busy")."""

    def __init__(self, fn, cache_size=8, warmup=1, on_error="eager"):
        self._fn = fn
        self._soft = on_error == "eager"
        self._cache = collections.OrderedDict()
        self._cache_size = int(cache_size)
        self._warmup = int(warmup)
        self._infer = Captured(fn, cache_size=cache_size, warmup=warmup, on_error=on_error)
        self.stats = {"eager": 0, "captures": 0, "replays": 0, "busy": 0}

    def _eager(self, args, kwargs):
        self.stats["eager"] += 1
        return self._fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        if kwargs or _R._RECORDER is not None:
            return self._eager(args, kwargs)
        if not grad_mode.STATE.enabled:
            return self._infer(*args)
        key, in_tensors = _guard_key(args, kwargs)
        if len(in_tensors) != len(args):   # a non-tensor argument: keyed by value, eager
            return self._eager(args, kwargs)
        entry = cache_entry(self._cache, self._cache_size, key, "plan")
        if entry["eager"]:
            return self._eager(args, kwargs)
        plan = entry["plan"]
        if plan is not None:
            if plan.ok():
                if plan.active is not None and not plan.active.done:
                    self.stats["busy"] += 1
                    return self._eager(args, kwargs)
                self.stats["replays"] += 1
                return plan.replay(in_tensors)
            entry["plan"], entry["calls"], entry["prev"] = None, self._warmup, None
        entry["calls"] += 1
        if entry["calls"] <= self._warmup:
            return self._eager(args, kwargs)
        return self._capture(entry, args, in_tensors)

    def _capture(self, entry, args, in_tensors):
        info = {}
        result, rec = _record(_forward_then_backward, (self._fn, args, info), {}, self._soft)
        self.stats["captures"] += 1
        try:
            if rec.error is not None:
                raise CaptureError(f"oar.jit cannot capture {rec.error}")
            if "error" in info:
                raise CaptureError(f"torch.compile: oar cannot capture {info['error']}")
            seeds = info["seeds"]
            sig = _signature(rec, in_tensors + seeds)
            if entry["prev"] is None or entry["prev"] != sig:
                if entry["prev"] is not None and entry["calls"] > self._warmup + 3:
                    raise CaptureError(
                        "torch.compile: consecutive recordings of the forward differ "
                        f"({_first_difference(entry['prev'], sig)}); running it eagerly")
                entry["prev"] = sig
                return result
            prog = Program(rec, in_tensors + seeds, None, None, info["outs"], split=True)
            prog.seed_slots = range(len(in_tensors), len(in_tensors) + len(seeds))
            entry["plan"] = _Plan(prog, info["spec"], info["n_out"], info["diff"], info["wrt"],
                                  info["has_grad"], _layers_of(self._fn, args, {}),
                                  [t for t, d in rec.ext_tensors.values()])
            entry["prev"] = None
        except CaptureError as e:
            if not self._soft:
                raise
            entry["eager"] = True
            warnings.warn(f"{e} -- running it eagerly", RuntimeWarning, stacklevel=3)
        return result


def _forward_then_backward(fn, args, info):
    """What a capture call records (Note [Compiled forward]): the forward, the split, and
    one backward with seeds of ones into the tensors the graph starts from. Returns the
    forward's result, with its graph intact."""
    start = next(_node._seq)
    before = [t._grad_fn for t in args]
    result = fn(*args)
    rec = _R._RECORDER
    if rec is None:   # the recording stopped (a graph break under on_error="eager")
        return result
    outs = []
    info["spec"] = _flatten(result, outs)
    info["n_out"] = len(outs)
    rec.steps.append(("split",))
    diff = [i for i, t in enumerate(outs) if t.requires_grad]
    if any(t._grad_fn is not b for t, b in zip(args, before)):
        info["error"] = "a function that modifies its argument in place"
        return result
    wrt, what = _graph_inputs([outs[i] for i in diff], args, start)
    if what is not None:
        info["error"] = what
        return result
    rec.unit += 1   # the seeds are inputs of the program, not recorded constants
    try:
        seeds = [_Tensor._wrap(_xp.array_module(outs[i]._data).ones(
                     outs[i]._data.shape, outs[i]._data.dtype)) for i in diff]   # its place
    finally:
        rec.unit -= 1
    tensors = [args[v] if isinstance(v, int) else v for v in wrt]
    try:
        grads = _E.run_backward([outs[i]._edge() for i in diff], seeds, retain_graph=True,
                                inputs=tensors, allow_unused=True) if tensors else []
    except Exception as e:   # the caller's own backward will meet the same error
        info["error"] = f"its backward ({type(e).__name__}: {e})"
        return result
    info.update(seeds=seeds, diff=diff, wrt=wrt,
                has_grad=[g is not None for g in grads],
                outs=outs + [g for g in grads if g is not None])
    return result


def _graph_inputs(roots, args, start):
    """Where the forward's graph starts: the leaves that require a gradient (as tensors) and
    the arguments with history (as their positions), in first-reached order; or an error
    for a tensor with history made outside the function that is not an argument."""
    by_edge = {}
    for k, a in enumerate(args):
        if a.requires_grad and a._grad_fn is not None:
            by_edge.setdefault(a._edge(), k)
    wrt, seen_edges = [], set()
    stack = [t._grad_fn for t in roots if t._grad_fn is not None]
    seen = set(stack)
    for t in roots:
        if t._grad_fn is None:   # an output that is itself a leaf (an argument returned)
            stack.append(None)
            if t._edge() not in seen_edges:
                seen_edges.add(t._edge())
                wrt.append(_leaf_or_arg(t._edge(), by_edge, args))
    while stack:
        node = stack.pop()
        if node is None:
            continue
        for e in node.next_edges:
            if e is None:
                continue
            n = e[0]
            if n.__class__ is AccumulateGrad or n.seq < start:
                if e not in seen_edges:
                    seen_edges.add(e)
                    wrt.append(_leaf_or_arg(e, by_edge, args))
            elif n not in seen:
                seen.add(n)
                stack.append(n)
    if any(w is None for w in wrt):
        return None, ("a tensor with autograd history made outside the function that is "
                      "not one of its arguments (pass it as an argument)")
    return wrt, None


def _leaf_or_arg(edge, by_edge, args):
    node = edge[0]
    if node.__class__ is AccumulateGrad:
        v = node.variable
        for k, a in enumerate(args):
            if a is v:
                return k
        return v
    return by_edge.get(edge)
