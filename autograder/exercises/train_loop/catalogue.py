"""Exercise 3(b), ``train_loop``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    # ---- correct variants ----
    ("canonical", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("model_zero_grad", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                model.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("grad_none_by_hand", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                for p in model.parameters():
                    p.grad = None
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("grad_zero_in_place", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.zero_()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("set_to_none_false", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad(set_to_none=False)
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("clear_after_forward", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                prediction = model(x)
                loss = loss_fn(prediction, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("while_loop", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            it = iter(batches)
            while True:
                try:
                    x, y = next(it)
                except StopIteration:
                    break
                optimizer.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(float(loss.detach()))
            return losses
    """),
    ("helper_function", """
        def one_step(model, optimizer, loss_fn, x, y):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()

        def train(model, optimizer, loss_fn, batches):
            return [one_step(model, optimizer, loss_fn, x, y) for x, y in batches]
    """),
    ("generator_of_losses", """
        def steps(model, optimizer, loss_fn, batches):
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                yield loss.item()

        def train(model, optimizer, loss_fn, batches):
            return list(steps(model, optimizer, loss_fn, batches))
    """),
    ("float_of_loss_warns", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(float(loss))
            return losses
    """),
    ("clear_twice", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            optimizer.zero_grad()
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                losses.append(loss.item())
            return losses
    """),
    ("manual_mse_and_autograd_backward", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = ((model(x) - y) ** 2).mean()
                torch.autograd.backward(loss)
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("forward_method_called_directly", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model.forward(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("old_style_data_zero", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.data.zero_()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """),
    ("closure_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                def closure():
                    optimizer.zero_grad()
                    loss = loss_fn(model(x), y)
                    loss.backward()
                    return loss
                loss = optimizer.step(closure)
                losses.append(loss.item())
            return losses
    """),
    ("closure_keyword_and_set_to_none_false", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                def closure():
                    optimizer.zero_grad(set_to_none=False)
                    loss = loss_fn(model(x), y)
                    loss.backward()
                    losses.append(loss.item())
                    return loss
                optimizer.step(closure=closure)
            return losses
    """),
    # ---- mistakes ----
    ("never_cleared", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "never_cleared", ["never cleared", "batches 1 + 2 + 3 + 4", "batch 4 alone", "line 6",
                           "line 5: `loss.backward()`", "stale"]),
    ("cleared_once_before_loop", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            optimizer.zero_grad()
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "cleared_once", ["only once", "step 2", "batches 1 + 2", "batch 2 alone", "line 7"]),
    ("cleared_between_backward_and_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.zero_grad()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "cleared_before_step", ["between loss.backward() and optimizer.step()", "line 6",
                                 "line 7", "step 1"]),
    ("data_zero_between_backward_and_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                for p in model.parameters():
                    p.grad.data.zero_()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "cleared_before_step", ["between loss.backward() and optimizer.step()", "line 8"]),
    ("step_before_backward", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.step()
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
            return losses
    """, "step_before_backward", ["before loss.backward()", "lags", "step 2", "line 4",
                                  "used batch 1 instead of batch 2"]),
    ("step_between_forward_and_backward", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                optimizer.step()
                loss.backward()
                losses.append(loss.item())
            return losses
    """, "step_before_backward", ["step 1", "line 6", "line 7", "nothing was learned"]),
    ("step_after_forward_with_stale_grads", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                optimizer.step()
                optimizer.zero_grad()
                loss.backward()
                losses.append(loss.item())
            return losses
    """, "inplace_on_saved_tensor", ["changed in place", "line 7", "zero_grad → forward"]),
    ("cleared_after_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                losses.append(loss.item())
            return losses
    """, "stale_first_step", ["first step", "stale", "line 6", "before the backward pass (line 5"]),
    ("backward_twice", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward(retain_graph=True)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "backward_twice", ["2 times", "2 × batch 1", "line 8"]),
    ("never_steps", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
            return losses
    """, "never_stepped", ["never called"]),
    ("steps_its_own_optimizer", """
        def train(model, optimizer, loss_fn, batches):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            losses = []
            for x, y in batches:
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                losses.append(loss.item())
            return losses
    """, "other_optimizer", ["different optimizer", "line 8"]),
    ("clears_every_other_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for i, (x, y) in enumerate(batches):
                if i % 2 == 0:
                    optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "cleared_some_steps", ["some iterations", "step 2", "batches 1 + 2", "line 8"]),
    ("loss_built_once", """
        def train(model, optimizer, loss_fn, batches):
            batches = list(batches)
            x0, y0 = batches[0]
            loss = loss_fn(model(x0), y0)
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "backward_through_freed_graph", ["already freed", "line 8"]),
    ("returns_tensors", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss)
            return losses
    """, "losses_tensors", ["tensors", "loss.item()"]),
    ("returns_nothing", """
        def train(model, optimizer, loss_fn, batches):
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
    """, "losses_not_list", ["NoneType"]),
    ("loss_after_step", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss_fn(model(x), y).item())
            return losses
    """, "losses_values", ["batch 1", "before optimizer.step()"]),
    ("steps_once_at_the_end", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            optimizer.zero_grad()
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
            optimizer.step()
            return losses
    """, "step_count", ["ran once for 4 batches", "one per batch", "line 8"]),
    ("scaled_loss", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                (loss * 2).backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "wrong_gradient", ["not the gradient of the loss of batch 1", "line 7"]),
    ("detached_prediction", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x).detach(), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "backward_without_graph", ["not connected", "line 6"]),
    ("grad_zero_before_any_backward", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                for p in model.parameters():
                    p.grad.zero_()
                losses.append(loss.item())
            return losses
    """, "stale_first_step", ["first step", "line 6"]),
    ("indexes_batches", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for i in range(len(batches)):
                x, y = batches[i]
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "batches_indexed", ["for x, y in batches", "generator"], "hidden"),
    ("not_written_yet", """
        def train(model, optimizer, loss_fn, batches):
            # YOUR CODE HERE
            raise NotImplementedError()
    """, "not_implemented", ["not written yet", "NotImplementedError"]),
    ("typo_crash", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(modle(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return losses
    """, "crashed", ["NameError", "line 5", "modle"]),
    # ---- found by a probe of the grader: the model the caller gets back is the one trained ----
    ("keeps_the_best_state", """
        import copy
        def train(model, optimizer, loss_fn, batches):
            losses, best, best_state = [], float("inf"), None
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                if loss.item() < best:
                    best, best_state = loss.item(), copy.deepcopy(model.state_dict())
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            model.load_state_dict(best_state)
            return losses
    """, "changed_after_loop", ["After the last optimizer.step()", "line 10"]),
    ("one_more_update_after_the_loop", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            return losses
    """, "changed_after_loop", ["a model that is not the one your loop trained"]),
    ("clears_after_the_loop_too", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            optimizer.zero_grad()
            model.eval()
            return losses
    """),
]
