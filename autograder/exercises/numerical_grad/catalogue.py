"""Exercise 2(b), ``numerical_grad``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (b) finite differences
    ("central_loop", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
            return grad
    """),
    ("in_place_and_restore", """
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
    ("forward_difference", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x)) / eps
            return grad
    """, "forward_difference", ["central difference", "ε²"]),
    ("forgets_factor_two", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(x.numel()):
                step = torch.zeros_like(x)
                step[i] = eps
                grad[i] = (f(x + step) - f(x - step)) / eps
            return grad
    """, "divisor", ["2.0×", "2ε"]),
    ("does_not_restore", """
        def numerical_grad(f, x, eps=1e-6):
            grad = torch.zeros_like(x)
            for i in range(len(x)):
                x[i] += eps
                up = f(x)
                x[i] -= 2 * eps
                grad[i] = (up - f(x)) / (2 * eps)
            return grad
    """, "changed_input", ["in place"]),
    ("uses_autograd", """
        def numerical_grad(f, x, eps=1e-6):
            t = x.clone().requires_grad_(True)
            f(t).backward()
            return t.grad
    """, "used_autograd", ["independent check"]),
    ("ignores_eps", """
        def numerical_grad(f, x, eps=1e-6):
            h = 1e-5
            g = torch.zeros_like(x)
            for i in range(x.numel()):
                e = torch.zeros_like(x)
                e[i] = h
                g[i] = (f(x + e) - f(x - e)) / (2 * h)
            return g
    """, "ignored_eps", ["eps = 0.01", "±eps"]),
    ("own_step_of_a_thousandth", """
        def numerical_grad(f, x, eps=1e-6):
            h = 1e-3
            return torch.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in torch.eye(len(x), dtype=x.dtype)])
    """, "ignored_eps", ["eps = 0.01"]),
    ("step_of_a_millionth_written_in", """
        def numerical_grad(f, x, eps=1e-6):
            return torch.stack([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in torch.eye(len(x), dtype=x.dtype)])
    """, "ignored_eps", ["eps = 0.01"]),
    ("shift_and_shift_back", """
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
