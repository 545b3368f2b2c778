"""Exercise 4(c), ``evaluate``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # (c) evaluate
    ("eval_no_grad_restore", """
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
    ("try_finally", """
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
    ("forgets_eval", """
        def evaluate(model, batches):
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            return correct / total
    """, "no_eval", ["dropout", "model.eval()"]),
    ("forgets_no_grad", """
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
    ("leaves_eval_mode", """
        def evaluate(model, batches):
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in batches:
                    correct += (model(x).argmax(dim=1) == y).sum().item()
                    total += len(y)
            return correct / total
    """, "mode_not_restored", ["train() mode before", "eval() mode after"]),
    ("always_back_to_train", """
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
    ("train_true_in_finally", """
        def evaluate(model, batches):
            model.eval()
            try:
                with torch.no_grad():
                    hits = sum((model(x).argmax(1) == y).sum().item() for x, y in batches)
                return hits / sum(len(y) for _, y in batches)
            finally:
                model.train(mode=True)
    """, "mode_not_restored", ["eval() mode before", "train() mode after"]),
    ("restores_the_opposite", """
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
    ("restores_only_when_it_was_training", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                correct = sum((model(x).argmax(1) == y).sum().item() for x, y in batches)
            if was_training:
                model.train()
            return correct / sum(len(y) for _, y in batches)
    """),
    ("mean_of_batch_accuracies", """
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
    ("mean_of_batch_accuracies_torch", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                accs = torch.stack([(model(x).argmax(1) == y).float().mean() for x, y in batches])
            model.train(was_training)
            return accs.mean().item()
    """, "mean_of_batches", ["mean of the per-batch accuracies"]),
    ("divides_by_the_last_batch_size", """
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
    ("returns_tensor", """
        def evaluate(model, batches):
            was_training = model.training
            model.eval()
            with torch.no_grad():
                hits = torch.cat([(model(x).argmax(1) == y).float() for x, y in batches])
            model.train(was_training)
            return hits.mean()
    """, "accuracy_tensor", ["Python float"]),
    ("restores_by_assigning_training", """
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
    ("assigns_training_instead_of_eval", """
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
