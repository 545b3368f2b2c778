"""A catalogue of student solutions for the two training-loop exercises.

Each entry is code a student could write, with the verdict the grader must give and
words its message must contain (the mistake, the batch or step, the line). Line
numbers count from the ``def`` line, as in a notebook cell that starts with it.
"""
from __future__ import annotations

import linecache
import textwrap
from dataclasses import dataclass, field

import torch


@dataclass
class Entry:
    name: str
    source: str
    mistake: str | None  # None: must pass
    words: list = field(default_factory=list)
    cases: str = "visible"  # which grader cases show the mistake
    function: str = "train"

    def load(self):
        """Compile the source as its own 'cell', so the grader can quote its lines."""
        source = textwrap.dedent(self.source).lstrip("\n")
        filename = f"<cell {self.name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"torch": torch}
        exec(compile(source, filename, "exec"), namespace)
        return namespace[self.function]


def loop(name, source, mistake=None, words=(), cases="visible"):
    return Entry(name, source, mistake, list(words), cases, "train")


def accum(name, source, mistake=None, words=(), cases="visible"):
    return Entry(name, source, mistake, list(words), cases, "train_accumulate")


TRAIN_LOOP = [
    # ---- correct variants ----
    loop("canonical", """
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
    loop("model_zero_grad", """
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
    loop("grad_none_by_hand", """
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
    loop("grad_zero_in_place", """
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
    loop("set_to_none_false", """
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
    loop("clear_after_forward", """
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
    loop("while_loop", """
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
    loop("helper_function", """
        def one_step(model, optimizer, loss_fn, x, y):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()

        def train(model, optimizer, loss_fn, batches):
            return [one_step(model, optimizer, loss_fn, x, y) for x, y in batches]
    """),
    loop("generator_of_losses", """
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
    loop("float_of_loss_warns", """
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
    loop("clear_twice", """
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
    loop("manual_mse_and_autograd_backward", """
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
    loop("forward_method_called_directly", """
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
    loop("old_style_data_zero", """
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
    loop("closure_step", """
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
    loop("closure_keyword_and_set_to_none_false", """
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
    loop("never_cleared", """
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
    loop("cleared_once_before_loop", """
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
    loop("cleared_between_backward_and_step", """
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
    loop("data_zero_between_backward_and_step", """
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
    loop("step_before_backward", """
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
    loop("step_between_forward_and_backward", """
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
    loop("step_after_forward_with_stale_grads", """
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
    loop("cleared_after_step", """
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
    loop("backward_twice", """
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
    loop("never_steps", """
        def train(model, optimizer, loss_fn, batches):
            losses = []
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                losses.append(loss.item())
            return losses
    """, "never_stepped", ["never called"]),
    loop("steps_its_own_optimizer", """
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
    loop("clears_every_other_step", """
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
    loop("loss_built_once", """
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
    loop("returns_tensors", """
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
    loop("returns_nothing", """
        def train(model, optimizer, loss_fn, batches):
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
    """, "losses_not_list", ["NoneType"]),
    loop("loss_after_step", """
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
    loop("steps_once_at_the_end", """
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
    loop("scaled_loss", """
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
    loop("detached_prediction", """
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
    loop("grad_zero_before_any_backward", """
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
    loop("indexes_batches", """
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
    """, "batches_indexed", ["for x, y in batches", "generator"], cases="hidden"),
    loop("not_written_yet", """
        def train(model, optimizer, loss_fn, batches):
            # YOUR CODE HERE
            raise NotImplementedError()
    """, "not_implemented", ["not written yet", "NotImplementedError"]),
    loop("typo_crash", """
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
    loop("keeps_the_best_state", """
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
    loop("one_more_update_after_the_loop", """
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
    loop("clears_after_the_loop_too", """
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


TRAIN_ACCUMULATE = [
    accum("canonical", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """),
    accum("clear_at_group_start", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                if i % accum_steps == 0:
                    model.zero_grad()
                loss = loss_fn(model(x), y)
                (loss / accum_steps).backward()
                if i % accum_steps == accum_steps - 1:
                    optimizer.step()
    """),
    accum("divide_grads_before_step", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for p in model.parameters():
                p.grad = None
            count = 0
            for x, y in batches:
                loss_fn(model(x), y).backward()
                count += 1
                if count == accum_steps:
                    for p in model.parameters():
                        p.grad /= accum_steps
                    optimizer.step()
                    for p in model.parameters():
                        p.grad = None
                    count = 0
    """),
    accum("one_backward_per_group", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            group = []
            for x, y in batches:
                group.append((x, y))
                if len(group) == accum_steps:
                    optimizer.zero_grad()
                    loss = sum(loss_fn(model(gx), gy) for gx, gy in group) / accum_steps
                    loss.backward()
                    optimizer.step()
                    group = []
    """),
    accum("chunks_helper_while", """
        def chunks(iterable, size):
            chunk = []
            for item in iterable:
                chunk.append(item)
                if len(chunk) == size:
                    yield chunk
                    chunk = []

        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            groups = chunks(batches, accum_steps)
            while (group := next(groups, None)) is not None:
                optimizer.zero_grad(set_to_none=False)
                for x, y in group:
                    (loss_fn(model(x), y) * (1.0 / accum_steps)).backward()
                optimizer.step()
    """),
    accum("stacked_mean", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            pending = []
            for x, y in batches:
                pending.append(loss_fn(model(x), y))
                if len(pending) == accum_steps:
                    optimizer.zero_grad()
                    torch.stack(pending).mean().backward()
                    optimizer.step()
                    pending = []
    """),
    accum("closure_per_group", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            group = []
            for batch in batches:
                group.append(batch)
                if len(group) == accum_steps:
                    def closure():
                        optimizer.zero_grad()
                        for x, y in group:
                            (loss_fn(model(x), y) / accum_steps).backward()
                    optimizer.step(closure)
                    group = []
    """),
    # ---- mistakes ----
    accum("unscaled", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y)
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "unscaled_accumulation", ["4× too large", "step 1", "line 7", "Divide each micro-batch loss"]),
    accum("steps_every_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                optimizer.step()
    """, "stepped_every_micro_batch", ["after every micro-batch", "8 steps", "2 steps"]),
    accum("steps_after_the_first_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                (loss_fn(model(x), y) / accum_steps).backward()
                if i % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "stepped_mid_group", ["before its group", "batch 1", "batches 1 + 2 + 3 + 4", "(i + 1) % accum_steps"]),
    accum("clears_every_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                optimizer.zero_grad()
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "cleared_inside_group", ["inside a group", "batch 4", "batches 1 + 2 + 3 + 4", "line 7"]),
    accum("never_cleared", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "never_cleared", ["never cleared", "stale", "line 6"]),
    accum("cleared_once", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "cleared_once", ["only once", "step 2", "line 7"]),
    accum("clears_only_after_step", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "stale_first_step", ["first step", "stale", "line 6"]),
    accum("divides_by_number_of_batches", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            batches = list(batches)
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / len(batches)
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "wrong_scale", ["0.5×", "1/4", "line 8"]),
    accum("cleared_before_step", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.zero_grad()
                    optimizer.step()
    """, "cleared_before_step", ["between loss.backward() and optimizer.step()", "line 6", "line 7"]),
    accum("never_steps", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for x, y in batches:
                (loss_fn(model(x), y) / accum_steps).backward()
    """, "never_stepped", ["never called", "group of micro-batches"]),
    # ---- found by a probe of the grader ----
    accum("steps_twice_per_group", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                (loss_fn(model(x), y) / accum_steps).backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.step()
                    optimizer.zero_grad()
    """, "step_count", ["4 times"]),
    accum("restores_the_start_after_the_loop", """
        import copy
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            start = copy.deepcopy(model.state_dict())
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                (loss_fn(model(x), y) / accum_steps).backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            model.load_state_dict(start)
    """, "changed_after_loop", ["line 8"]),
    # ---- correct variants ----
]
