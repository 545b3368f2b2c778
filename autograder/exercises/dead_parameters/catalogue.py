"""Practice exercise 3(d), ``dead_parameters``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    ("none_or_all_zero", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is None or (p.grad == 0).all()]
    """),
    ("norm_is_zero_loop", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or p.grad.norm().item() == 0:
                    dead.append(name)
            return dead
    """),
    ("count_nonzero_as_set", """
        def dead_parameters(model):
            return {name for name, p in model.named_parameters()
                    if p.grad is None or torch.count_nonzero(p.grad) == 0}
    """),
    ("forgets_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is not None and (p.grad == 0).all()]
    """, "missed_none", ["aux.weight", "is None"]),
    ("crashes_on_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad.abs().sum() == 0]
    """, "crashed", ["AttributeError", "line 2"]),
    ("any_zero_entry", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if p.grad is None or (p.grad == 0).any()]
    """, "extra_params", ["did receive a gradient"]),
    ("zero_parameters_not_gradients", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad is None or (p == 0).all()]
    """, "missed_zero", ["body.0.weight", "dead ReLU"]),
    ("only_weights", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters()
                    if name.endswith("weight") and (p.grad is None or (p.grad == 0).all())]
    """, "missed_zero", ["aux.bias"]),
    ("only_none", """
        def dead_parameters(model):
            return [name for name, p in model.named_parameters() if p.grad is None]
    """, "missed_zero", ["dead ReLU"]),
    ("returns_tensors", """
        def dead_parameters(model):
            return [p for p in model.parameters() if p.grad is None or (p.grad == 0).all()]
    """, "not_names", ["parameter names"]),
    # found by a probe of the grader: reading .grad must leave it as it was
    ("backward_again", """
        def dead_parameters(model):
            model(torch.randn(3, 4)).sum().backward()
            return [n for n, p in model.named_parameters() if p.grad is None or torch.all(p.grad == 0)]
    """, "changed_model", ["only read .grad", "head.weight"]),
    ("clears_after_reading", """
        def dead_parameters(model):
            dead = [n for n, p in model.named_parameters() if p.grad is None or torch.all(p.grad == 0)]
            model.zero_grad()
            return dead
    """, "changed_model", ["zero_grad()"]),
    ("gradient_sums_to_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.sum() == 0]
    """, "sums_to_zero", ["head.bias", "sum to 0 but are not all 0"]),
    ("gradient_mean_is_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.mean() == 0]
    """, "sums_to_zero", ["head.bias", "head.weight", "a mean of 0"]),
    ("sum_as_a_python_float", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or float(torch.sum(p.grad)) == 0.0:
                    dead.append(name)
            return dead
    """, "sums_to_zero", ["sum to 0"]),
    ("sum_is_falsy", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or not p.grad.sum()]
    """, "sums_to_zero", ["head.bias"]),
    ("sum_within_a_tolerance", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or abs(p.grad.sum().item()) < 1e-6]
    """, "sums_to_zero", ["head.weight"]),
    # a tiny gradient is still a gradient: the tiny scenario's body gets 1e-16 to 1e-8
    ("norm_below_a_threshold", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.norm() < 1e-3]
    """, "tiny_gradient", ["body.0.weight", "tiny but not 0", "no tolerance"]),
    ("allclose_to_zeros", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.allclose(p.grad, torch.zeros_like(p.grad))]
    """, "tiny_gradient", ["a very small one"]),
    ("isclose_entries", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.isclose(p.grad, torch.zeros_like(p.grad)).all()]
    """, "tiny_gradient", ["tiny"]),
    ("largest_entry_below_a_millionth", """
        def dead_parameters(model):
            dead = []
            for name, p in model.named_parameters():
                if p.grad is None or p.grad.abs().max().item() < 1e-6:
                    dead.append(name)
            return dead
    """, "tiny_gradient", ["body.4.bias"]),
    ("abs_sum_below_a_threshold", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.abs().sum() < 1e-5]
    """, "tiny_gradient", ["tiny"]),
    ("nothing_nonzero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or not p.grad.any()]
    """),
    ("equal_to_zeros", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or torch.equal(p.grad, torch.zeros_like(p.grad))]
    """),
    ("abs_sum_is_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters() if p.grad is None or p.grad.abs().sum() == 0]
    """),
    ("max_and_min_are_zero", """
        def dead_parameters(model):
            return [n for n, p in model.named_parameters()
                    if p.grad is None or (p.grad.max() == 0 and p.grad.min() == 0)]
    """),
    ("reads_a_copy", """
        def dead_parameters(model):
            grads = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
            return [n for n, g in grads.items() if g is None or not g.any()]
    """),
]
