"""Exercise 2(c), ``weighted_grad``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (c) non-scalar backward
    ("backward_with_gradient", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=v)
            return x.grad
    """),
    ("weighted_sum", """
        def weighted_grad(f, x, v):
            (f(x) * v).sum().backward()
            return x.grad
    """),
    ("no_gradient_argument", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward()
            return x.grad
    """, "non_scalar_backward", ["more than one element", "line 3"]),
    ("ones_instead_of_v", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=torch.ones_like(y))
            return x.grad
    """, "ones_weights", ["weights each output"]),
    ("returns_output", """
        def weighted_grad(f, x, v):
            y = f(x)
            y.backward(gradient=v)
            return y
    """, "wrong_weighted", ["x.grad"]),
    # J·v instead of vᵀJ: equal for an elementwise f (x²), told apart by x·sum(x)
    ("jacobian_times_v", """
        def weighted_grad(f, x, v):
            return torch.autograd.functional.jacobian(f, x) @ v
    """, "transposed", ["J·v", "v times the Jacobian", "x·sum(x)"]),
    ("forward_mode_jvp", """
        def weighted_grad(f, x, v):
            _, jv = torch.func.jvp(f, (x.detach(),), (v,))
            return jv
    """, "transposed", ["J·v", "symmetric"]),
    ("autograd_functional_jvp", """
        def weighted_grad(f, x, v):
            return torch.autograd.functional.jvp(f, x, v)[1]
    """, "transposed", ["J·v"]),
    ("rows_of_the_jacobian_weighted", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return (J * v).sum(dim=1)
    """, "transposed", ["J·v"]),
    ("einsum_on_the_wrong_index", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return torch.einsum("ij,j->i", J, v)
    """, "transposed", ["J·v"]),
    ("v_times_the_jacobian", """
        def weighted_grad(f, x, v):
            return v @ torch.autograd.functional.jacobian(f, x)
    """),
    ("transposed_jacobian_times_v", """
        def weighted_grad(f, x, v):
            J = torch.autograd.functional.jacobian(f, x)
            return J.T @ v
    """),
    ("autograd_grad_with_grad_outputs", """
        def weighted_grad(f, x, v):
            (g,) = torch.autograd.grad(f(x), x, grad_outputs=v)
            return g
    """),
]
