"""In-place / view / autograd scenarios written once against the PyTorch spelling; each is
run on oar and on torch 2.13 and the observations are compared (harness.compare_logged).
A scenario is `s_name(L, log)`: it records observations into `log` and names the step it is
at in log["stage"] (where an error must happen, if one does)."""
from tests.reference.harness import obs


def s_nonleaf_chain(L, log):
    a = L.tensor([0.3, 0.7, -0.2], requires_grad=True)
    x = a * 1
    r = x.mul_(2)
    log["same"] = r is x
    x.add_(1).sin_().mul_(a)
    log["version"] = x._version
    log["stage"] = "backward"
    x.sum().backward()
    log["a.grad"] = obs(a.grad)


def s_leaf_inplace(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    log["stage"] = "forward"
    a.mul_(2)


def s_leaf_view_inplace(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    v = a[:1]
    a_before = obs(a)
    log["a"] = a_before
    a.requires_grad  # noqa: B018
    v.add_(1)


def s_leaf_no_grad(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    with L.no_grad():
        a.mul_(3)
    log["leaf"] = a.is_leaf
    log["version"] = a._version
    (a * a).sum().backward()
    log["a.grad"] = obs(a.grad)


def s_saved_output_modified(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    log["stage"] = "backward"
    y.sum().backward()


def s_saved_input_modified(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h.sin()
    h.add_(1)
    log["stage"] = "backward"
    y.sum().backward()


def s_input_modified_after_add_is_fine(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h + 2
    h.mul_(5)
    y.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_relu_inplace_chain(L, log):
    x = L.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = (x * 3).relu_()
    z = (y * y).sum()
    z.backward()
    log["x.grad"] = obs(x.grad)


def s_sin_inplace_exact(L, log):
    x = L.tensor([0.1, 0.5, 2.0], requires_grad=True)
    y = x * 2
    y.sin_()
    y.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_mul_inplace_both_need_grad(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0], requires_grad=True)
    y = a * 1
    y.mul_(b)
    (y * y).sum().backward()
    log["a.grad"] = obs(a.grad)
    log["b.grad"] = obs(b.grad)


def s_self_alias_mul(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    y = a * 1
    y.mul_(y)
    log["stage"] = "backward"
    y.sum().backward()


def s_self_alias_add(L, log):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    y = a * 1
    y.add_(y)
    y.sum().backward()
    log["a.grad"] = obs(a.grad)


def s_plain_becomes_nonleaf(L, log):
    x = L.tensor([1.0, 2.0])
    w = L.tensor([3.0, 4.0], requires_grad=True)
    x.mul_(w)
    log["x.leaf"] = x.is_leaf
    log["x.rg"] = x.requires_grad
    (x * x).sum().backward()
    log["w.grad"] = obs(w.grad)
    log["x.grad"] = obs(x.grad)


def s_view_inplace_copyslices(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    w = L.tensor([10.0, 20.0], requires_grad=True)
    a = x * 1
    v = a[1:3]
    v.mul_(w)
    log["versions"] = (a._version, v._version)
    (a * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["w.grad"] = obs(w.grad)


def s_other_view_sees_write(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a = x * 1
    v1 = a[0:3]
    v2 = a[2:4]
    v1.mul_(2)
    log["v2"] = obs(v2)
    v2.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_base_write_regenerates_view(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    v = a[:2]
    a.mul_(3)
    v.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_reshape_view_inplace_base_grad(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = x * 1
    v = b.view(2, 2)
    v.mul_(3)
    b.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_transpose_view_mul(L, log):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = L.tensor([[1.0, 10.0], [100.0, 1000.0]], requires_grad=True)
    b = x * 1
    t = b.t()
    t.mul_(w)
    (b * b).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["w.grad"] = obs(w.grad)


def s_view_of_view_inplace(L, log):
    x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = x * 2
    v = b[1][1:]
    v.exp_()
    log["b"] = obs(b)
    (b * L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    log["x.grad"] = obs(x.grad)


def s_view_sin_exact(L, log):
    x = L.tensor([0.1, 0.4, 0.9], requires_grad=True)
    a = x * 1
    a[:2].sin_()
    a.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_view_exp_then_other_write(L, log):
    x = L.tensor([0.1, 0.4, 0.9], requires_grad=True)
    a = x * 1
    a[:2].exp_()
    a[2:].mul_(2)
    log["stage"] = "backward"
    a.sum().backward()


def s_plain_base_view_with_grad_operand(L, log):
    base = L.ones(4)
    w = L.tensor([2.0, 3.0], requires_grad=True)
    v = base[:2]
    v.mul_(w)
    log["base.leaf"] = base.is_leaf
    log["base.rg"] = base.requires_grad
    (base * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    log["w.grad"] = obs(w.grad)


def s_split_output_inplace(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a = x * 1
    p = a.split([2, 2], 0)[0]   # sizes: one meaning in both frameworks
    log["stage"] = "forward"
    p.mul_(2)


def s_unbind_output_inplace(L, log):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a = x * 1
    p = a.unbind(0)[1]
    p.add_(1)


def s_split_output_inplace_no_grad_base(L, log):
    a = L.tensor([1.0, 2.0, 3.0, 4.0])
    p = a.split([2, 2], 0)[0]   # sizes: one meaning in both frameworks
    p.mul_(2)
    log["a"] = obs(a)
    log["version"] = a._version


def s_no_grad_view_modified(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    with L.no_grad():
        v = a[:2]
    log["v.rg"] = v.requires_grad
    log["v.leaf"] = v.is_leaf
    v.mul_(2)


def s_view_made_in_grad_written_in_no_grad(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a = x * 2
    v = a[:2]
    with L.no_grad():
        v.mul_(10)
    a.sum().backward()
    log["x.grad"] = obs(x.grad)
    log["a"] = obs(a)


def s_detach_shares_version(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    d = y.detach()
    d.add_(1)
    log["y.version"] = y._version
    log["stage"] = "backward"
    y.sum().backward()


def s_setitem_nonleaf(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    w = L.tensor([5.0, 6.0], requires_grad=True)
    a = x * 1
    a[1:3] = w
    log["version"] = a._version
    (a * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["w.grad"] = obs(w.grad)


def s_setitem_mask(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    a = x * 1
    a[a > 2.5] = 0.0
    a.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_setitem_leaf(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    x[0] = 5.0


def s_setitem_after_save(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = a.sin()
    a[0] = 0.0
    log["stage"] = "backward"
    y.sum().backward()


def s_iadd_operator(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    alias = a
    a += 1
    a *= x
    log["same"] = a is alias
    log["version"] = alias._version
    a.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_leaf_iadd(L, log):
    w = L.tensor([1.0, 2.0], requires_grad=True)
    w += 1


def s_backward_twice(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    log["stage"] = "backward2"
    y.backward()


def s_retain_graph(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    log["x.grad"] = obs(x.grad)


def s_grad_api(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = L.autograd.grad(y, x, create_graph=True)
    log["g"] = obs(g)
    (g2,) = L.autograd.grad(g.sum(), x)
    log["g2"] = obs(g2)
    log["x.grad"] = obs(x.grad)


def s_hook_before_inplace(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    seen = []
    a.register_hook(lambda g: seen.append(obs(g)))
    a.mul_(3)
    a.sum().backward()
    log["seen"] = seen
    log["x.grad"] = obs(x.grad)


def s_retain_grad_moves(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    a.retain_grad()
    a.mul_(3)
    (a * a).sum().backward()
    log["a.grad"] = obs(a.grad)


def s_matmul_chain(L, log):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = L.tensor([[0.5, -1.0], [2.0, 0.1]], requires_grad=True)
    h = (x @ w).tanh_()
    (h * h).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["w.grad"] = obs(w.grad)


def s_expanded_write(L, log):
    x = L.zeros(1).expand(3)
    x.add_(1)


def s_expanded_view_of_nonleaf(L, log):
    x = L.tensor([1.0], requires_grad=True)
    a = (x * 1).expand(3)
    a.add_(1)


def s_partial_overlap(L, log):
    x = L.tensor([1.0, 2.0, 3.0])
    x[1:].add_(x[:-1])


def s_disjoint_same_storage(L, log):
    z = L.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    z[3:].add_(z[:3])
    log["z"] = obs(z)


def s_broadcast_enlarge(L, log):
    x = L.zeros(3)
    x.add_(L.ones(2, 3))


def s_int_div(L, log):
    x = L.tensor([1, 2, 3])
    x.div_(2)


def s_float32_add_float64(L, log):
    x = L.tensor([1.0, 2.0])
    x.add_(L.tensor([0.5, 0.25], dtype=L.float64))
    log["dtype"] = str(x.dtype).split(".")[-1]
    log["x"] = obs(x)


def s_leaf_error_before_shape_error(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    before = obs(x)
    try:
        x.add_(L.ones(2, 3))
    finally:
        log["x_after"] = obs(x) == before
        log["version"] = x._version


def s_index_add_and_scatter(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    s = L.tensor([10.0, 20.0], requires_grad=True)
    a = x * 1
    a.index_add_(0, L.tensor([0, 0]), s)
    b = a * 1
    b.scatter_(0, L.tensor([1, 3]), s * 2)
    (b * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["s.grad"] = obs(s.grad)
    log["b"] = obs(b)


def s_masked_fill_and_clamp(L, log):
    x = L.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
    a = x * 1
    a.masked_fill_(a > 1.0, 0.0).clamp_(-1.0, 1.0)
    (a * a).sum().backward()
    log["x.grad"] = obs(x.grad)


def s_copy_into_nonleaf(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    src = L.tensor([5.0, 7.0], requires_grad=True)
    a = x * 1
    a.copy_(src * 2)
    (a * a).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["src.grad"] = obs(src.grad)


def s_zero_and_fill(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 2
    a[1:].zero_()
    a[:1].fill_(4.0)
    b = x * 3
    c = b + a
    c.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_sigmoid_tanh_exp_chain(L, log):
    x = L.tensor([0.2, -0.3], requires_grad=True)
    a = x * 1
    a.sigmoid_()
    b = a * 1
    b.tanh_()
    c = b * 1
    c.exp_()
    c.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_pow_and_sqrt(L, log):
    x = L.tensor([0.5, 1.5], requires_grad=True)
    a = x * 1
    a.pow_(3)
    a.sqrt_()
    a.sum().backward()
    log["x.grad"] = obs(x.grad)


def s_detach_inplace_no_history(L, log):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.mul_(2)
    log["x.version"] = x._version
    log["x"] = obs(x)
    log["d.rg"] = d.requires_grad


def s_metadata_inplace_on_view(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    w = L.tensor([[1.0, 10.0], [100.0, 1000.0]])
    a = x * 1
    b = a.view(2, 2)
    b.t_()
    b.mul_(w)
    log["stride"] = list(b.stride())
    log["version"] = a._version
    (a * L.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    log["x.grad"] = obs(x.grad)
    log["a"] = obs(a)


def s_base_transposed_in_place_then_old_view(L, log):
    x = L.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], requires_grad=True)
    a = (x * 2).view(2, 3)
    v = a[0]
    a.t_()
    a.mul_(L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    log["v"] = obs(v)
    (v * L.tensor([1.0, 10.0, 100.0])).sum().backward()
    log["x.grad"] = obs(x.grad)


def s_second_order_through_inplace_chain(L, log):
    x = L.tensor([0.3, 1.1, -0.7], requires_grad=True)
    w = L.tensor([0.5, -1.5, 2.0], requires_grad=True)
    h = x * 1
    h.sin_()
    h.mul_(w)
    h.pow_(2)
    h.exp_()
    gx, gw = L.autograd.grad(h.sum(), [x, w], create_graph=True)
    hx, hw = L.autograd.grad((gx * gw).sum(), [x, w])
    log["g"] = [obs(gx), obs(gw)]
    log["h"] = [obs(hx), obs(hw)]


def s_nograd_view_of_stale_unbind_output(L, log):
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    base = x * 1
    piece = base.unbind(0)[0]
    base.add_(0.25)                       # the unbind output is now stale
    with L.no_grad():
        v = piece[..., :1]                # making a view of it under no_grad is fine
    log["v.rg"] = v.requires_grad
    log["piece.rg"] = piece.requires_grad
    base.sum().backward()
    log["x.grad"] = obs(x.grad)
    log["stage"] = "use"
    piece * 1                             # using it in a recorded op is refused


# ---- issue 8, autograd: retained gradients, detach_, second backward, hooks, .grad setter
def s_retain_grad_views_after_base_inplace(L, log):
    base = L.tensor([1.0], requires_grad=True).clone()
    v, v2 = base[:], base[:]
    v.retain_grad()
    v2.retain_grad()
    v.mul_(2)
    log["stage"] = "backward"
    (v + v2).sum().backward()
    log["v.grad"] = obs(v.grad)
    log["v2.grad"] = obs(v2.grad)


def s_retain_grad_base_through_copy_slices(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    b.retain_grad()
    v = b[1:]
    v.retain_grad()
    v.mul_(3)
    log["stage"] = "backward"
    (b * b).sum().backward()
    log["b.grad"] = obs(b.grad)
    log["v.grad"] = obs(v.grad)
    log["x.grad"] = obs(x.grad)


def s_custom_function_two_outputs_retain(L, log):
    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = L.tensor([1.0, 1.0, 1.0], requires_grad=True)
    o1, o2 = Two.apply(x)
    o1.retain_grad()
    o2.retain_grad()
    o1.mul_(2)
    log["stage"] = "backward"
    (o1 + o2).sum().backward()
    log["o1.grad"] = obs(o1.grad)
    log["o2.grad"] = obs(o2.grad)
    log["x.grad"] = obs(x.grad)


def s_detach_inplace_of_saved_input(L, log):
    x = L.tensor(1.0, requires_grad=True).clone()
    b = x.sin()
    x.detach_()
    log["version"] = x._version
    log["stage"] = "backward"
    b.backward()


def s_second_backward_through_advanced_index(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[L.tensor([0, 2])].sum()
    y.backward()
    log["x.grad"] = obs(x.grad)
    log["stage"] = "second backward"
    y.backward()


def s_second_backward_through_copy_slices(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    y[1:].add_(1)
    s = y.sum()
    s.backward()
    log["x.grad"] = obs(x.grad)
    log["stage"] = "second backward"
    s.backward()


def s_second_backward_without_saved_tensors(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = (x[1:] + 1).sum()
    s.backward()
    s.backward()
    log["x.grad"] = obs(x.grad)


def s_hook_changes_gradient_size(L, log):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g[:2])
    log["stage"] = "backward"
    y.sum().backward()


def s_grad_setter_wrong_shape(L, log):
    w = L.tensor([1.0, 2.0], requires_grad=True)
    log["stage"] = "set grad"
    w.grad = L.tensor([1.0, 2.0, 3.0])


def s_leaf_detached_after_use_gets_no_grad(L, log):
    w = L.tensor([1.0, 2.0], requires_grad=True)
    b = (w * w).sum()
    w.detach_()
    b.backward()
    log["w.grad"] = obs(w.grad)
    log["requires_grad"] = w.requires_grad


SCENARIOS = {k: v for k, v in globals().items() if k.startswith("s_")}
