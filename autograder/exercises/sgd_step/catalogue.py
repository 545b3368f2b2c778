"""Exercise 4(b), ``sgd_step``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (b) sgd_step
    ("in_place_under_no_grad", """
        def sgd_step(params, lr):
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
    """),
    ("add_with_alpha", """
        @torch.no_grad()
        def sgd_step(params, lr):
            for p in params:
                p.add_(p.grad, alpha=-lr)
    """),
    ("outside_no_grad", """
        def sgd_step(params, lr):
            for p in params:
                p -= lr * p.grad
    """, "inplace_on_leaf", ["torch.no_grad()", "line 3"]),
    ("rebinds", """
        def sgd_step(params, lr):
            for p in params:
                p = p - lr * p.grad
    """, "unchanged", ["only rebinds"]),
    ("through_data", """
        def sgd_step(params, lr):
            for p in params:
                p.data -= lr * p.grad
    """, "used_data", [".data"]),
    ("new_list_items", """
        def sgd_step(params, lr):
            for i, p in enumerate(params):
                params[i] = (p - lr * p.grad).detach().requires_grad_()
    """, "list_replaced", ["in place"]),
]
