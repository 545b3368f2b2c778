"""Catalogues of student solutions for lessons 1, 2 and 4 and lesson 3's exercise (e), with the
verdict each must get.

As in tests/catalogue.py, line numbers in expected messages count from the ``def`` line.
"""
from __future__ import annotations

import textwrap

from catalogue import Entry


def sol(function, name, source, mistake=None, words=(), cases="visible"):
    return Entry(name, source, mistake, list(words), cases, function)


LESSON1 = [
    sol("freeze_body", "requires_grad_on_body", """
        def freeze_body(model):
            model.body.requires_grad_(False)
    """),
    sol("freeze_body", "loop_over_body_parameters", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.requires_grad = False
    """),
    sol("freeze_body", "freeze_all_then_unfreeze_head", """
        def freeze_body(model):
            model.requires_grad_(False)
            for p in model.head.parameters():
                p.requires_grad_(True)
    """),
    sol("freeze_body", "by_parameter_name", """
        def freeze_body(model):
            for name, p in model.named_parameters():
                if name.startswith("body."):
                    p.requires_grad_(False)
    """),
    sol("freeze_body", "freezes_the_head", """
        def freeze_body(model):
            model.head.requires_grad_(False)
    """, "body_trains", ["model.body.0.weight", "requires_grad=False"]),
    sol("freeze_body", "freezes_everything", """
        def freeze_body(model):
            model.requires_grad_(False)
    """, "head_frozen", ["model.head", "must stay trainable"]),
    sol("freeze_body", "detach_does_nothing", """
        def freeze_body(model):
            for p in model.body.parameters():
                p = p.detach()
    """, "body_trains", ["still receives a gradient"]),
    sol("freeze_body", "no_grad_does_nothing_here", """
        def freeze_body(model):
            with torch.no_grad():
                for p in model.body.parameters():
                    pass
    """, "body_trains", ["still receives a gradient"]),
    sol("freeze_body", "only_first_layer", """
        def freeze_body(model):
            model.body[0].requires_grad_(False)
    """, "body_trains", ["model.body.2.weight"]),
    sol("freeze_body", "only_linear_layers", """
        def freeze_body(model):
            for layer in model.body:
                if isinstance(layer, torch.nn.Linear):
                    layer.requires_grad_(False)
    """, "body_trains", ["model.body.1.weight", "requires_grad=False"], cases="hidden"),
    sol("freeze_body", "replaces_parameters", """
        def freeze_body(model):
            for layer in model.body:
                if hasattr(layer, "weight"):
                    layer.weight = torch.nn.Parameter(layer.weight.detach(), requires_grad=False)
    """, "replaced", ["in place"]),
    sol("freeze_body", "flag_on_output", """
        def freeze_body(model):
            out = model.body(torch.zeros(1, 4))
            out.requires_grad = False
    """, "flag_on_non_leaf", ["leaf tensor", "line 3"]),
    # found by a probe of the grader: a gradient of zeros is still a gradient
    sol("freeze_body", "zeroing_hooks_on_body", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.register_hook(lambda g: torch.zeros_like(g))
    """, "body_trains", ["model.body.0.weight", "requires_grad=False"]),
    sol("freeze_body", "freezes_and_puts_the_body_in_eval_mode", """
        def freeze_body(model):
            model.body.requires_grad_(False)
            model.body.eval()
    """, "mode_changed", ["model.body", "batch norm"], cases="hidden"),
    sol("freeze_body", "multiplying_body_gradients_by_zero", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.register_hook(lambda g: g * 0)
    """, "body_trains", ["still receives a gradient"]),
]


# (d) the backward step of a tiny Value class: the class as the notebook gives it, with the
# three parts a student writes filled in (the right ones unless an entry says otherwise)
_value_class = '''
class Value:
    def __init__(self, data, children=()):
        self.data = data
        self.grad = 0.0
        self._children = children
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={{self.data}}, grad={{self.grad}})"

    def __add__(self, other):
        out = Value(self.data + other.data, (self, other))

        def _backward():
{add}

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other))

        def _backward():
{mul}

        out._backward = _backward
        return out

    def backward(self):
{backward}
'''
_add = """
    self.grad += out.grad
    other.grad += out.grad
"""
_mul = """
    self.grad += other.data * out.grad
    other.grad += self.data * out.grad
"""
_topological = """
order, seen = [], set()

def visit(node):
    if node not in seen:
        seen.add(node)
        for child in node._children:
            visit(child)
        order.append(node)

visit(self)
self.grad = 1.0
for node in reversed(order):
    node._backward()
"""


def value(name, backward=_topological, add=_add, mul=_mul, mistake=None, words=(), cases="visible"):
    """A catalogue entry for ``Value``: the given class with these three parts (line numbers in
    its messages count from the ``class`` line: ``add`` starts on line 15, ``mul`` on line 25,
    ``backward`` on line 32)."""
    def part(body, spaces):
        return textwrap.indent(textwrap.dedent(body).strip("\n"), " " * spaces)

    source = _value_class.format(add=part(add, 12), mul=part(mul, 12), backward=part(backward, 8))
    return Entry(name, source, mistake, list(words), cases, "Value")


LESSON2 = [
    # (a) derivative with autograd
    sol("derivative", "backward_and_grad", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            f(t).backward()
            return t.grad.item()
    """),
    sol("derivative", "autograd_grad_float64", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            (g,) = torch.autograd.grad(f(t), t)
            return float(g)
    """),
    sol("derivative", "finite_difference_instead", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64)
            h = 1e-6
            return ((f(t + h) - f(t - h)) / (2 * h)).item()
    """, "no_autograd", ["2 times", "requires_grad=True"]),
    sol("derivative", "returns_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            f(t).backward()
            return t.grad
    """, "returns_tensor", ["Python float"]),
    sol("derivative", "reads_grad_of_output", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            y = f(t)
            y.backward()
            return y.item()
    """, "wrong_derivative", ["f'(x)"]),
    sol("derivative", "backward_on_item", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            y = torch.tensor(f(t).item())
            y.backward()
            return t.grad.item()
    """, "backward_without_graph", ["not connected", "line 4"]),
    # (b) finite differences
    sol("numerical_grad", "central_loop", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
            return grad
    """),
    sol("numerical_grad", "in_place_and_restore", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.empty_like(x)
            for i in range(len(x)):
                old = x[i].item()
                x[i] = old + eps
                up = f(x).item()
                x[i] = old - eps
                down = f(x).item()
                x[i] = old
                grad[i] = (up - down) / (2 * eps)
            return grad
    """),
    sol("numerical_grad", "forward_difference", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x)) / eps
            return grad
    """, "forward_difference", ["central difference", "ε²"]),
    sol("numerical_grad", "forgets_factor_two", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x - step)) / eps
            return grad
    """, "divisor", ["2.0×", "2ε"]),
    sol("numerical_grad", "does_not_restore", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(len(x)):
                x[i] += eps
                up = f(x)
                x[i] -= 2 * eps
                grad[i] = (up - f(x)) / (2 * eps)
            return grad
    """, "changed_input", ["in place"]),
    sol("numerical_grad", "uses_autograd", """
        def numerical_grad(f, x, eps=1e-6):
            t = x.clone().requires_grad_(True)
            f(t).backward()
            return t.grad
    """, "used_autograd", ["independent check"]),
    # (c) non-scalar backward
    sol("weighted_grad", "backward_with_gradient", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=v)
            return x.grad
    """),
    sol("weighted_grad", "weighted_sum", """
        def weighted_grad(f, x, v):
            (f(x) * v).sum().backward()
            return x.grad
    """),
    sol("weighted_grad", "no_gradient_argument", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward()
            return x.grad
    """, "non_scalar_backward", ["more than one element", "line 3"]),
    sol("weighted_grad", "ones_instead_of_v", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=torch.ones_like(y))
            return x.grad
    """, "ones_weights", ["weights each output"]),
    sol("weighted_grad", "returns_output", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=v)
            return y
    """, "wrong_weighted", ["x.grad"]),
    # J·v instead of vᵀJ: equal for an elementwise f (x²), told apart by x·sum(x)
    sol("weighted_grad", "jacobian_times_v", """
        def weighted_grad(f, x, v):
            return torch.autograd.functional.jacobian(f, x) @ v
    """, "transposed", ["J·v", "v times the Jacobian", "x·sum(x)"]),
    sol("weighted_grad", "forward_mode_jvp", """
        def weighted_grad(f, x, v):
            _, jv = torch.func.jvp(f, (x.detach(),), (v,))
            return jv
    """, "transposed", ["J·v", "symmetric"]),
    sol("weighted_grad", "autograd_functional_jvp", """
        def weighted_grad(f, x, v):
            return torch.autograd.functional.jvp(f, x, v)[1]
    """, "transposed", ["J·v"]),
    sol("weighted_grad", "rows_of_the_jacobian_weighted", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return (J * v).sum(dim=1)
    """, "transposed", ["J·v"]),
    sol("weighted_grad", "einsum_on_the_wrong_index", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return torch.einsum("ij,j->i", J, v)
    """, "transposed", ["J·v"]),
    sol("weighted_grad", "v_times_the_jacobian", """
        def weighted_grad(f, x, v):
            return v @ torch.autograd.functional.jacobian(f, x)
    """),
    sol("weighted_grad", "transposed_jacobian_times_v", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return J.T @ v
    """),
    sol("weighted_grad", "autograd_grad_with_grad_outputs", """
        def weighted_grad(f, x, v):
            (g,) = torch.autograd.grad(f(x), x, grad_outputs=v)
            return g
    """),
    # (d) the backward step of Value
    value("micrograd"),
    value("seen_by_value_not_by_node", """
        order, seen = [], set()

        def visit(node):
            if node.data not in seen:
                seen.add(node.data)
                for child in node._children:
                    visit(child)
                order.append(node)
        visit(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
    """, mistake="not_visited", words=["e = b * c"], cases="hidden"),
    value("kahn_counts_users", """
        users, stack, seen = {}, [self], {self}
        while stack:
            node = stack.pop()
            for child in node._children:
                users[child] = users.get(child, 0) + 1
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            node._backward()
            for child in node._children:
                users[child] -= 1
                if users[child] == 0:
                    ready.append(child)
    """),
    value("sorted_by_height", """
        nodes, stack = set(), [self]
        while stack:
            node = stack.pop()
            if node not in nodes:
                nodes.add(node)
                stack.extend(node._children)

        def height(node):
            return 1 + max((height(child) for child in node._children), default=0)

        self.grad = 1
        for node in sorted(nodes, key=height, reverse=True):
            node._backward()
    """),
    value("explicit_sums", add="""
        self.grad = self.grad + 1.0 * out.grad
        other.grad = other.grad + 1.0 * out.grad
    """, mul="""
        self.grad = self.grad + out.grad * other.data
        other.grad = other.grad + out.grad * self.data
    """, backward="""
        order = []

        def visit(node):
            if node not in order:
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad += 1.0
        for node in order[::-1]:
            node._backward()
    """),
    value("assigns_everywhere", add="""
        self.grad = out.grad
        other.grad = out.grad
    """, mul="""
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["a = Value(", "b = a + a", "`a.grad` is 1", "used 2 times", "passes back: 2.",
                                          "`_backward` of `+`", "(`+=`)"]),
    value("assigns_in_mul", mul="""
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["b = a * a", "used 2 times", "`_backward` of `*`", "(`+=`)"]),
    value("assigns_the_other_input", add="""
        self.grad += out.grad
        other.grad = out.grad
    """, mul="""
        self.grad += other.data * out.grad
        other.grad = self.data * out.grad
    """, mistake="overwrote_grad", words=["b = a + a", "`a.grad` is 1", "`_backward` of `+`"]),
    value("own_value_in_mul", mul="""
        self.grad += self.data * out.grad
        other.grad += other.data * out.grad
    """, mistake="mul_own_value", words=["c = a * b", "d(out)/d(self) = other.data"]),
    value("mul_like_add", mul="""
        self.grad += out.grad
        other.grad += out.grad
    """, mistake="wrong_local", words=["c = a * b", "`_backward` of `*`", "other.data · out.grad"]),
    value("mul_without_out_grad", mul="""
        self.grad += other.data
        other.grad += self.data
    """, mistake="no_upstream", words=["e = c * d", "`_backward` of `*`", "`out.grad`"]),
    value("add_without_out_grad", add="""
        self.grad += 1.0
        other.grad += 1.0
    """, mistake="no_upstream", words=["d = c + b", "`_backward` of `+`", "`out.grad`"]),
    value("no_seed", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        for node in reversed(order):
            node._backward()
    """, mistake="no_seed", words=["every gradient is 0", "`self.grad = 1.0`"]),
    value("seed_after_the_loop", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        for node in reversed(order):
            node._backward()
        self.grad = 1.0
    """, mistake="late_seed", words=["only the output has a gradient", "not after"]),
    value("seed_only", """
        self.grad = 1.0
    """, mistake="not_visited", words=["never called a node's `_backward()`"]),
    value("only_the_output", """
        self.grad = 1.0
        self._backward()
    """, mistake="not_visited", words=["e = c * d", "`d` never passed its gradient on"]),
    value("forgets_reversed", """
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        self.grad = 1.0
        for node in order:
            node._backward()
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`", "`d = c + b` uses `c`"]),
    value("depth_first_preorder", """
        seen = set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                node._backward()
                for child in node._children:
                    visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`", "walk that list backwards"]),
    value("breadth_first", """
        self.grad = 1.0
        queue, seen = [self], {self}
        while queue:
            node = queue.pop(0)
            node._backward()
            for child in node._children:
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
    """, mistake="topological_order", words=["`c._backward()` ran before `d._backward()`"]),
    value("recursion_on_every_path", """
        def visit(node):
            node._backward()
            for child in node._children:
                visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="visited_twice", words=["`c._backward()` ran 2 times", "once per path"]),
    value("preorder_other_input_first", """
        seen = set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                node._backward()
                for child in reversed(node._children):
                    visit(child)

        self.grad = 1.0
        visit(self)
    """, mistake="topological_order", words=["f = e + c", "`c._backward()` ran before"], cases="hidden"),
    value("not_written_yet", add="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, mul="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, backward="""
        # YOUR CODE HERE
        raise NotImplementedError()
    """, mistake="not_implemented", words=["class `Value` is not finished", "in `backward()`"]),
    value("typo_in_mul", mul="""
        self.grad += other.data * out.grad
        other.grad += self.value * out.grad
    """, mistake="crashed", words=["AttributeError", "line 26", "self.value"]),
    sol("Value", "a_function_not_a_class", """
        def Value(data):
            return data
    """, "not_callable", ["is not a class"]),
    # found by a probe of the grader: calling f on a tensor that requires grad is not enough
    sol("derivative", "finite_difference_on_a_grad_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            h = 1e-6
            return ((f(t + h) - f(t - h)) / (2 * h)).item()
    """, "not_from_autograd", ["no gradient ever flowed back", "backward()"]),
    sol("derivative", "one_sided_difference_on_a_grad_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            return ((f(t + 1e-3) - f(t)) / 1e-3).item()
    """, "not_from_autograd", ["did not come from autograd"]),
    sol("derivative", "torch_func_grad", """
        def derivative(f, x):
            return torch.func.grad(f)(torch.tensor(x)).item()
    """),
    sol("derivative", "grad_under_no_grad", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            with torch.no_grad():
                y = f(t)
            return float(y)
    """, "not_from_autograd", ["no gradient ever flowed back"]),
    sol("numerical_grad", "ignores_eps", """
        def numerical_grad(f, x, eps=1e-6):
            h = 1e-5
            g = torch.zeros_like(x)
            for i in range(x.numel()):
                e = torch.zeros_like(x)
                e[i] = h
                g[i] = (f(x + e) - f(x - e)) / (2 * h)
            return g
    """, "ignored_eps", ["eps = 0.01", "±eps"]),
    sol("numerical_grad", "own_step_of_a_thousandth", """
        def numerical_grad(f, x, eps=1e-6):
            h = 1e-3
            return torch.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in torch.eye(len(x), dtype=x.dtype)])
    """, "ignored_eps", ["eps = 0.01"]),
    sol("numerical_grad", "step_of_a_millionth_written_in", """
        def numerical_grad(f, x, eps=1e-6):
            return torch.stack([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in torch.eye(len(x), dtype=x.dtype)])
    """, "ignored_eps", ["eps = 0.01"]),
    sol("numerical_grad", "shift_and_shift_back", """
        def numerical_grad(f, x, eps=1e-6):
            g = torch.zeros_like(x)
            for i in range(len(x)):
                x[i] += eps
                up = f(x).item()
                x[i] -= 2 * eps
                down = f(x).item()
                x[i] += eps
                g[i] = (up - down) / (2 * eps)
            return g
    """, "input_rounded", ["not exactly", "x[i] = old"]),
]


# Lesson 3, exercise (e): reading .grad to find the parameters that received no gradient
LESSON3 = [
    sol("dead_parameters", "none_or_all_zero", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is None or (p.grad == 0).all()]
    """),
    sol("dead_parameters", "norm_is_zero_loop", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or p.grad.norm().item() == 0:
                    dead.append(name)
            return dead
    """),
    sol("dead_parameters", "count_nonzero_as_set", """
        def dead_parameters(model):
            return {name for name, p in model.named_parameters()
                    if p.grad is None or torch.count_nonzero(p.grad) == 0}
    """),
    sol("dead_parameters", "forgets_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is not None and (p.grad == 0).all()]
    """, "missed_none", ["aux.weight", "is None"]),
    sol("dead_parameters", "crashes_on_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad.abs().sum() == 0]
    """, "crashed", ["AttributeError", "line 2"]),
    sol("dead_parameters", "any_zero_entry", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is None or (p.grad == 0).any()]
    """, "extra_params", ["did receive a gradient"]),
    sol("dead_parameters", "zero_parameters_not_gradients", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad is None or (p == 0).all()]
    """, "missed_zero", ["body.0.weight", "dead ReLU"]),
    sol("dead_parameters", "only_weights", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if name.endswith("weight") and (p.grad is None or (p.grad == 0).all())]
    """, "missed_zero", ["aux.bias"]),
    sol("dead_parameters", "only_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad is None]
    """, "missed_zero", ["dead ReLU"]),
    sol("dead_parameters", "returns_tensors", """
        def dead_parameters(model):
            return [p for p in model.parameters() if p.grad is None or (p.grad == 0).all()]
    """, "not_names", ["parameter names"]),
    # found by a probe of the grader: one step moves w and b together; clearing has its moment
    sol("fit_line", "one_parameter_at_a_time", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                for p in (w, b):
                    w.grad = None
                    b.grad = None
                    loss = ((w * xs + b - ys) ** 2).mean()
                    loss.backward()
                    with torch.no_grad():
                        p -= lr * p.grad
    """, "wrong_values", ["gradient descent from the same start"]),
    sol("fit_line", "clears_between_backward_and_update", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                w.grad = None
                b.grad = None
                with torch.no_grad():
                    w -= lr * w.grad
                    b -= lr * b.grad
    """, "cleared_before_step", ["between backward() and the update"]),
    sol("fit_line", "zeroes_between_backward_and_update", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                w.grad.zero_()
                b.grad.zero_()
                with torch.no_grad():
                    w -= lr * w.grad
                    b -= lr * b.grad
    """, "cleared_before_step", ["never between backward() and the update"]),
    sol("fit_line", "rebinds_b_only", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = None
                b.grad = None
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= lr * w.grad
                b = b - lr * b.grad
    """, "not_leaf", ["`b` is no longer the leaf"]),
    sol("fit_line", "in_place_under_no_grad", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = None
                b.grad = None
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                with torch.no_grad():
                    w -= lr * w.grad
                    b -= lr * b.grad
    """),
    sol("fit_line", "sub_and_zero_", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                for p in (w, b):
                    if p.grad is not None:
                        p.grad.zero_()
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    w.sub_(lr * w.grad)
                    b.sub_(w.new_tensor(lr) * b.grad)
    """),
    sol("fit_line", "copy_under_a_decorated_helper", """
        @torch.no_grad()
        def step(p, lr):
            p.copy_(p - lr * p.grad)

        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                loss = torch.nn.functional.mse_loss(w * xs + b, ys)
                loss.backward()
                step(w, lr)
                step(b, lr)
    """),
    sol("fit_line", "foreach_add", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad, b.grad = None, None
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    torch._foreach_add_([w, b], [w.grad, b.grad], alpha=-lr)
    """),
    # the exercise is the update by hand: an optimizer is named, whatever the values
    sol("fit_line", "sgd_optimizer", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                optimizer.step()
    """, "used_optimizer", ["SGD.zero_grad()", "by hand", "without one"]),
    sol("fit_line", "optimizer_only_to_clear", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    w -= lr * w.grad
                    b -= lr * b.grad
    """, "used_optimizer", ["SGD.zero_grad()", "Clear the gradients yourself"]),
    sol("fit_line", "sgd_step_after_clearing_by_hand", """
        def fit_line(w, b, xs, ys, lr, steps):
            opt = torch.optim.SGD([w, b], lr)
            for _ in range(steps):
                w.grad = None
                b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                opt.step()
    """, "used_optimizer", ["SGD.step()"]),
    sol("fit_line", "adam_made_each_step", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                torch.optim.Adam([w, b], lr=lr).step()
    """, "used_optimizer", ["Adam.step()"]),
    sol("fit_line", "optimizer_that_never_clears", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                ((w * xs + b - ys) ** 2).mean().backward()
                optimizer.step()
    """, "used_optimizer", ["optimizer"]),
    # one rule with lesson 4's sgd_step: in place under no_grad, never through .data
    sol("fit_line", "through_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = None
                b.grad = None
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                w.data -= lr * w.grad
                b.data -= lr * b.grad
    """, "used_data", ["`w` through `.data`", "version counter", "with torch.no_grad():"]),
    sol("fit_line", "assigns_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                w.data = w.data - lr * w.grad
                b.data = b.data - lr * b.grad
    """, "used_data", [".data"]),
    sol("fit_line", "sub_on_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                for p in (w, b):
                    p.data.sub_(lr * p.grad)
    """, "used_data", [".data"]),
    sol("fit_line", "data_for_b_only", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    w -= lr * w.grad
                b.data -= lr * b.grad
    """, "used_data", ["`b` through `.data`"]),
    # found by a probe of the grader: reading .grad must leave it as it was
    sol("dead_parameters", "backward_again", """
        def dead_parameters(model):
            model(torch.randn(3, 4)).sum().backward()
            return [n for n, p in model.named_parameters() if p.grad is None or torch.all(p.grad == 0)]
    """, "changed_model", ["only read .grad", "head.weight"]),
    sol("dead_parameters", "clears_after_reading", """
        def dead_parameters(model):
            dead = [n for n, p in model.named_parameters() if p.grad is None or torch.all(p.grad == 0)]
            model.zero_grad()
            return dead
    """, "changed_model", ["zero_grad()"]),
    sol("dead_parameters", "gradient_sums_to_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.sum() == 0]
    """, "sums_to_zero", ["head.bias", "sum to 0 but are not all 0"]),
    sol("dead_parameters", "gradient_mean_is_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.mean() == 0]
    """, "sums_to_zero", ["head.bias", "head.weight", "a mean of 0"]),
    sol("dead_parameters", "sum_as_a_python_float", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or float(torch.sum(p.grad)) == 0.0:
                    dead.append(name)
            return dead
    """, "sums_to_zero", ["sum to 0"]),
    sol("dead_parameters", "sum_is_falsy", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or not p.grad.sum()]
    """, "sums_to_zero", ["head.bias"]),
    sol("dead_parameters", "sum_within_a_tolerance", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or abs(p.grad.sum().item()) < 1e-6]
    """, "sums_to_zero", ["head.weight"]),
    # a tiny gradient is still a gradient: the tiny scenario's body gets 1e-16 to 1e-8
    sol("dead_parameters", "norm_below_a_threshold", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.norm() < 1e-3]
    """, "tiny_gradient", ["body.0.weight", "tiny but not 0", "no tolerance"]),
    sol("dead_parameters", "allclose_to_zeros", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.allclose(p.grad, torch.zeros_like(p.grad))]
    """, "tiny_gradient", ["a very small one"]),
    sol("dead_parameters", "isclose_entries", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.isclose(p.grad, torch.zeros_like(p.grad)).all()]
    """, "tiny_gradient", ["tiny"]),
    sol("dead_parameters", "largest_entry_below_a_millionth", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or p.grad.abs().max().item() < 1e-6:
                    dead.append(name)
            return dead
    """, "tiny_gradient", ["body.4.bias"]),
    sol("dead_parameters", "abs_sum_below_a_threshold", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.abs().sum() < 1e-5]
    """, "tiny_gradient", ["tiny"]),
    sol("dead_parameters", "nothing_nonzero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or not p.grad.any()]
    """),
    sol("dead_parameters", "equal_to_zeros", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.equal(p.grad, torch.zeros_like(p.grad))]
    """),
    sol("dead_parameters", "abs_sum_is_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.abs().sum() == 0]
    """),
    sol("dead_parameters", "max_and_min_are_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or (p.grad.max() == 0 and p.grad.min() == 0)]
    """),
    sol("dead_parameters", "reads_a_copy", """
        def dead_parameters(model):
            grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
            return [n for n, g in grads.items() if g is None or not g.any()]
    """),
]

LESSON4 = [
    # (a) predict
    sol("predict", "no_grad_block", """
        def predict(model, x):
            with torch.no_grad():
                return model(x)
    """),
    sol("predict", "decorated_helper", """
        @torch.no_grad()
        def run(model, x):
            return model(x)

        def predict(model, x):
            return run(model, x)
    """),
    sol("predict", "inference_mode", """
        def predict(model, x):
            with torch.inference_mode():
                out = model(x)
            return out
    """),
    sol("predict", "set_grad_enabled_block", """
        def predict(model, x):
            with torch.set_grad_enabled(False):
                return model(x)
    """),
    sol("predict", "plain_forward", """
        def predict(model, x):
            return model(x)
    """, "graph_recorded", ["tensors were saved", "model.eval() alone"]),
    sol("predict", "detach_afterwards", """
        def predict(model, x):
            return model(x).detach()
    """, "detached_after", ["already spent"]),
    sol("predict", "eval_only", """
        def predict(model, x):
            model.eval()
            return model(x)
    """, "graph_recorded", ["model.eval() alone"]),
    sol("predict", "switches_grad_off_for_good", """
        def predict(model, x):
            torch.set_grad_enabled(False)
            return model(x)
    """, "grad_mode_left_off", ["switched off"]),
    sol("predict", "zero_grad_inside", """
        def predict(model, x):
            model.zero_grad()
            with torch.no_grad():
                return model(x)
    """, "touched_params", ["only reads"]),
    sol("predict", "train_mode_changes_batchnorm", """
        def predict(model, x):
            model.train()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["from eval() mode to train() mode", "as you found it"]),
    # lesson 4, section 5: the mode is put back; predict leaves it as it found it
    sol("predict", "eval_left_behind", """
        def predict(model, x):
            model.eval()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["switched `model` from train() mode to eval() mode", "left it there"]),
    sol("predict", "eval_inside_no_grad", """
        def predict(model, x):
            with torch.no_grad():
                model.eval()
                out = model(x)
            return out
    """, "mode_switched", ["eval() mode"]),
    sol("predict", "back_to_train_always", """
        def predict(model, x):
            model.eval()
            with torch.no_grad():
                out = model(x)
            model.train()
            return out
    """, "mode_switched", ["from eval() mode to train() mode"]),
    sol("predict", "training_flag_assigned", """
        def predict(model, x):
            model.training = False
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["switched `model` from train() mode"]),
    sol("predict", "one_submodule_switched", """
        def predict(model, x):
            for layer in model.modules():
                if isinstance(layer, torch.nn.Dropout):
                    layer.train()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["`model.2` from eval() mode to train() mode"]),
    sol("predict", "eval_then_mode_put_back", """
        def predict(model, x):
            was_training = model.training
            model.eval()
            try:
                with torch.no_grad():
                    return model(x)
            finally:
                model.train(was_training)
    """),
    sol("predict", "inference_mode_decorator", """
        @torch.inference_mode()
        def predict(model, x):
            return model(x)
    """),
    # (b) sgd_step
    sol("sgd_step", "in_place_under_no_grad", """
        def sgd_step(params, lr):
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
    """),
    sol("sgd_step", "add_with_alpha", """
        @torch.no_grad()
        def sgd_step(params, lr):
            for p in params:
                p.add_(p.grad, alpha=-lr)
    """),
    sol("sgd_step", "outside_no_grad", """
        def sgd_step(params, lr):
            for p in params:
                p -= lr * p.grad
    """, "inplace_on_leaf", ["torch.no_grad()", "line 3"]),
    sol("sgd_step", "rebinds", """
        def sgd_step(params, lr):
            for p in params:
                p = p - lr * p.grad
    """, "unchanged", ["only rebinds"]),
    sol("sgd_step", "through_data", """
        def sgd_step(params, lr):
            for p in params:
                p.data -= lr * p.grad
    """, "used_data", [".data"]),
    sol("sgd_step", "new_list_items", """
        def sgd_step(params, lr):
            for i, p in enumerate(params):
                params[i] = (p - lr * p.grad).detach().requires_grad_()
    """, "list_replaced", ["in place"]),
    # (c) evaluate
    sol("evaluate", "eval_no_grad_restore", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            model.train(was_training)
            return correct / total
    """),
    sol("evaluate", "try_finally", """
        def evaluate(model, batches):
            mode = model.training
            model.eval()
            try:
                with torch.inference_mode():
                    hits = [(model(x).argmax(1) == y).float() for x, y in batches]
                return torch.cat(hits).mean().item()
            finally:
                model.train(mode)
    """),
    sol("evaluate", "forgets_eval", """
        def evaluate(model, batches):
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            return correct / total
    """, "no_eval", ["dropout", "model.eval()"]),
    sol("evaluate", "forgets_no_grad", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            correct = total = 0
            for x, y in batches:
                correct += (model(x).argmax(dim=1) == y).sum().item()
                total += len(y)
            model.train(was_training)
            return correct / total
    """, "eval_graph", ["torch.no_grad()"]),
    sol("evaluate", "leaves_eval_mode", """
        def evaluate(model, batches):
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            return correct / total
    """, "mode_not_restored", ["train() mode before", "eval() mode after"]),
    sol("evaluate", "always_back_to_train", """
        def evaluate(model, batches):
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            model.train()
            return correct / total
    """, "mode_not_restored", ["eval() mode before", "train() mode after"]),
    sol("evaluate", "train_true_in_finally", """
        def evaluate(model, batches):
            model.eval()
            try:
                with torch.no_grad():
                    hits = sum((model(x).argmax(1) == y).sum().item() for x, y in batches)
                return hits / sum(len(y) for _, y in batches)
            finally:
                model.train(mode=True)
    """, "mode_not_restored", ["eval() mode before", "train() mode after"]),
    sol("evaluate", "restores_the_opposite", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            model.train(not was_training)
            return correct / total
    """, "mode_not_restored", ["train() mode before", "eval() mode after"]),
    sol("evaluate", "restores_only_when_it_was_training", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                correct = sum((model(x).argmax(1) == y).sum().item() for x, y in batches)
            if was_training:
                model.train()
            return correct / sum(len(y) for _, y in batches)
    """),
    sol("evaluate", "mean_of_batch_accuracies", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            accs = []
            with torch.no_grad():
                for x, y in batches:
                    accs.append((model(x).argmax(dim=1) == y).float().mean().item())
            model.train(was_training)
            return sum(accs) / len(accs)
    """, "mean_of_batches", ["the mean of the per-batch accuracies", "The batches differ in size",
                             "as much weight as a large one", "divide by the total number of examples"]),
    sol("evaluate", "mean_of_batch_accuracies_torch", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                accs = torch.stack([(model(x).argmax(1) == y).float().mean() for x, y in batches])
            model.train(was_training)
            return accs.mean().item()
    """, "mean_of_batches", ["mean of the per-batch accuracies"]),
    sol("evaluate", "divides_by_the_last_batch_size", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            correct = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
            model.train(was_training)
            return correct / len(y)
    """, "wrong_accuracy", ["total number of examples"]),
    sol("evaluate", "returns_tensor", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                hits = torch.cat([(model(x).argmax(1) == y).float() for x, y in batches])
            model.train(was_training)
            return hits.mean()
    """, "accuracy_tensor", ["Python float"]),
    # found by a probe of the grader: what a function leaves behind is part of its answer
    sol("predict", "switches_requires_grad_off_for_good", """
        def predict(model, x):
            model.requires_grad_(False)
            return model(x)
    """, "requires_grad_off", ["next training step", "torch.no_grad()"]),
    sol("predict", "switches_requires_grad_off_and_back", """
        def predict(model, x):
            model.requires_grad_(False)
            out = model(x)
            model.requires_grad_(True)
            return out
    """),
    sol("evaluate", "restores_by_assigning_training", """
        def evaluate(model, batches):
            was = model.training
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(1) == y).sum().item()
                    total += y.numel()
            model.training = was
            return correct / total
    """, "submodules_not_restored", ["model.2", "model.train(was_training)"]),
    sol("evaluate", "assigns_training_instead_of_eval", """
        def evaluate(model, batches):
            was = model.training
            model.training = False
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(1) == y).sum().item()
                    total += y.numel()
            model.train(was)
            return correct / total
    """, "no_eval", ["dropout"]),
]
