"""Exercise 4(a), ``predict``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (a) predict
    ("no_grad_block", """
        def predict(model, x):
            with torch.no_grad():
                return model(x)
    """),
    ("decorated_helper", """
        @torch.no_grad()
        def run(model, x):
            return model(x)

        def predict(model, x):
            return run(model, x)
    """),
    ("inference_mode", """
        def predict(model, x):
            with torch.inference_mode():
                out = model(x)
            return out
    """),
    ("set_grad_enabled_block", """
        def predict(model, x):
            with torch.set_grad_enabled(False):
                return model(x)
    """),
    ("plain_forward", """
        def predict(model, x):
            return model(x)
    """, "graph_recorded", ["tensors were saved", "model.eval() alone"]),
    ("detach_afterwards", """
        def predict(model, x):
            return model(x).detach()
    """, "detached_after", ["already spent"]),
    ("eval_only", """
        def predict(model, x):
            model.eval()
            return model(x)
    """, "graph_recorded", ["model.eval() alone"]),
    ("switches_grad_off_for_good", """
        def predict(model, x):
            torch.set_grad_enabled(False)
            return model(x)
    """, "grad_mode_left_off", ["switched off"]),
    ("zero_grad_inside", """
        def predict(model, x):
            model.zero_grad()
            with torch.no_grad():
                return model(x)
    """, "touched_params", ["only reads"]),
    ("train_mode_changes_batchnorm", """
        def predict(model, x):
            model.train()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["from eval() mode to train() mode", "as you found it"]),
    # lesson 4, section 5: the mode is put back; predict leaves it as it found it
    ("eval_left_behind", """
        def predict(model, x):
            model.eval()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["switched `model` from train() mode to eval() mode", "left it there"]),
    ("eval_inside_no_grad", """
        def predict(model, x):
            with torch.no_grad():
                model.eval()
                out = model(x)
            return out
    """, "mode_switched", ["eval() mode"]),
    ("back_to_train_always", """
        def predict(model, x):
            model.eval()
            with torch.no_grad():
                out = model(x)
            model.train()
            return out
    """, "mode_switched", ["from eval() mode to train() mode"]),
    ("training_flag_assigned", """
        def predict(model, x):
            model.training = False
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["switched `model` from train() mode"]),
    ("one_submodule_switched", """
        def predict(model, x):
            for layer in model.modules():
                if isinstance(layer, torch.nn.Dropout):
                    layer.train()
            with torch.no_grad():
                return model(x)
    """, "mode_switched", ["`model.2` from eval() mode to train() mode"]),
    ("eval_then_mode_put_back", """
        def predict(model, x):
            was_training = model.training
            model.eval()
            try:
                with torch.no_grad():
                    return model(x)
            finally:
                model.train(was_training)
    """),
    ("inference_mode_decorator", """
        @torch.inference_mode()
        def predict(model, x):
            return model(x)
    """),
    # found by a probe of the grader: what a function leaves behind is part of its answer
    ("switches_requires_grad_off_for_good", """
        def predict(model, x):
            model.requires_grad_(False)
            return model(x)
    """, "requires_grad_off", ["next training step", "torch.no_grad()"]),
    ("switches_requires_grad_off_and_back", """
        def predict(model, x):
            model.requires_grad_(False)
            out = model(x)
            model.requires_grad_(True)
            return out
    """),
]
