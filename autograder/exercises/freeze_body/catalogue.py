"""Exercise 1(b), ``freeze_body``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    ("requires_grad_on_body", """
        def freeze_body(model):
            model.body.requires_grad_(False)
    """),
    ("loop_over_body_parameters", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.requires_grad = False
    """),
    ("freeze_all_then_unfreeze_head", """
        def freeze_body(model):
            model.requires_grad_(False)
            for p in model.head.parameters():
                p.requires_grad_(True)
    """),
    ("by_parameter_name", """
        def freeze_body(model):
            for name, p in model.named_parameters():
                if name.startswith("body."):
                    p.requires_grad_(False)
    """),
    ("freezes_the_head", """
        def freeze_body(model):
            model.head.requires_grad_(False)
    """, "body_trains", ["model.body.0.weight", "requires_grad=False"]),
    ("freezes_everything", """
        def freeze_body(model):
            model.requires_grad_(False)
    """, "head_frozen", ["model.head", "must stay trainable"]),
    ("detach_does_nothing", """
        def freeze_body(model):
            for p in model.body.parameters():
                p = p.detach()
    """, "body_trains", ["still receives a gradient"]),
    ("no_grad_does_nothing_here", """
        def freeze_body(model):
            with torch.no_grad():
                for p in model.body.parameters():
                    pass
    """, "body_trains", ["still receives a gradient"]),
    ("only_first_layer", """
        def freeze_body(model):
            model.body[0].requires_grad_(False)
    """, "body_trains", ["model.body.2.weight"]),
    ("only_linear_layers", """
        def freeze_body(model):
            for layer in model.body:
                if isinstance(layer, torch.nn.Linear):
                    layer.requires_grad_(False)
    """, "body_trains", ["model.body.1.weight", "requires_grad=False"], "hidden"),
    ("replaces_parameters", """
        def freeze_body(model):
            for layer in model.body:
                if hasattr(layer, "weight"):
                    layer.weight = torch.nn.Parameter(layer.weight.detach(), requires_grad=False)
    """, "replaced", ["in place"]),
    ("flag_on_output", """
        def freeze_body(model):
            out = model.body(torch.zeros(1, 4))
            out.requires_grad = False
    """, "flag_on_non_leaf", ["leaf tensor", "line 3"]),
    # found by a probe of the grader: a gradient of zeros is still a gradient
    ("zeroing_hooks_on_body", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.register_hook(lambda g: torch.zeros_like(g))
    """, "body_trains", ["model.body.0.weight", "requires_grad=False"]),
    ("freezes_and_puts_the_body_in_eval_mode", """
        def freeze_body(model):
            model.body.requires_grad_(False)
            model.body.eval()
    """, "mode_changed", ["model.body", "batch norm"], "hidden"),
    ("multiplying_body_gradients_by_zero", """
        def freeze_body(model):
            for p in model.body.parameters():
                p.register_hook(lambda g: g * 0)
    """, "body_trains", ["still receives a gradient"]),
]
