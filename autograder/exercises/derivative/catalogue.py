"""Exercise 2(a), ``derivative``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (a) derivative with autograd
    ("backward_and_grad", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            f(t).backward()
            return t.grad.item()
    """),
    ("autograd_grad_float64", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            (g,) = torch.autograd.grad(f(t), t)
            return float(g)
    """),
    ("finite_difference_instead", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64)
            h = 1e-6
            return ((f(t + h) - f(t - h)) / (2 * h)).item()
    """, "no_autograd", ["2 times", "requires_grad=True"]),
    ("returns_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            f(t).backward()
            return t.grad
    """, "returns_tensor", ["Python float"]),
    ("reads_grad_of_output", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            y = f(t)
            y.backward()
            return y.item()
    """, "wrong_derivative", ["f'(x)"]),
    ("backward_on_item", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            y = torch.tensor(f(t).item())
            y.backward()
            return t.grad.item()
    """, "backward_without_graph", ["not connected", "line 4"]),
    # found by a probe of the grader: calling f on a tensor that requires grad is not enough
    ("finite_difference_on_a_grad_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
            h = 1e-6
            return ((f(t + h) - f(t - h)) / (2 * h)).item()
    """, "not_from_autograd", ["no gradient ever flowed back", "backward()"]),
    ("one_sided_difference_on_a_grad_tensor", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            return ((f(t + 1e-3) - f(t)) / 1e-3).item()
    """, "not_from_autograd", ["did not come from autograd"]),
    ("torch_func_grad", """
        def derivative(f, x):
            return torch.func.grad(f)(torch.tensor(x)).item()
    """),
    ("grad_under_no_grad", """
        def derivative(f, x):
            t = torch.tensor(x, requires_grad=True)
            with torch.no_grad():
                y = f(t)
            return float(y)
    """, "not_from_autograd", ["no gradient ever flowed back"]),
]
