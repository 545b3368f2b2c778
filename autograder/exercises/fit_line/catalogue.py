"""Exercise 3(c), ``fit_line``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # found by a probe of the grader: one step moves w and b together; clearing has its moment
    ("one_parameter_at_a_time", """
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
    ("clears_between_backward_and_update", """
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
    ("zeroes_between_backward_and_update", """
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
    ("rebinds_b_only", """
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
    ("in_place_under_no_grad", """
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
    ("sub_and_zero_", """
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
    ("copy_under_a_decorated_helper", """
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
    ("foreach_add", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad, b.grad = None, None
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    torch._foreach_add_([w, b], [w.grad, b.grad], alpha=-lr)
    """),
    # the exercise is the update by hand: an optimizer is named, whatever the values
    ("sgd_optimizer", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                optimizer.step()
    """, "used_optimizer", ["SGD.zero_grad()", "by hand", "without one"]),
    ("optimizer_only_to_clear", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    w -= lr * w.grad
                    b -= lr * b.grad
    """, "used_optimizer", ["SGD.zero_grad()", "Clear the gradients yourself"]),
    ("sgd_step_after_clearing_by_hand", """
        def fit_line(w, b, xs, ys, lr, steps):
            opt = torch.optim.SGD([w, b], lr)
            for _ in range(steps):
                w.grad = None
                b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                opt.step()
    """, "used_optimizer", ["SGD.step()"]),
    ("adam_made_each_step", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                torch.optim.Adam([w, b], lr=lr).step()
    """, "used_optimizer", ["Adam.step()"]),
    ("optimizer_that_never_clears", """
        def fit_line(w, b, xs, ys, lr, steps):
            optimizer = torch.optim.SGD([w, b], lr=lr)
            for _ in range(steps):
                ((w * xs + b - ys) ** 2).mean().backward()
                optimizer.step()
    """, "used_optimizer", ["optimizer"]),
    # one rule with lesson 4's sgd_step: in place under no_grad, never through .data
    ("through_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = None
                b.grad = None
                loss = ((w * xs + b - ys) ** 2).mean()
                loss.backward()
                w.data -= lr * w.grad
                b.data -= lr * b.grad
    """, "used_data", ["`w` through `.data`", "version counter", "with torch.no_grad():"]),
    ("assigns_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                w.data = w.data - lr * w.grad
                b.data = b.data - lr * b.grad
    """, "used_data", [".data"]),
    ("sub_on_data", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                for p in (w, b):
                    p.data.sub_(lr * p.grad)
    """, "used_data", [".data"]),
    ("data_for_b_only", """
        def fit_line(w, b, xs, ys, lr, steps):
            for _ in range(steps):
                w.grad = b.grad = None
                ((w * xs + b - ys) ** 2).mean().backward()
                with torch.no_grad():
                    w -= lr * w.grad
                b.data -= lr * b.grad
    """, "used_data", ["`b` through `.data`"]),
]
