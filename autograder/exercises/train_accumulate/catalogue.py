"""Practice exercise 3(e), ``train_accumulate``: code a student could write, each entry ``(name, source, mistake,
words, cases)``: the mistake the judge must name (none: it must pass), words its message must
contain (line numbers count from the first line of the source, as in a notebook cell that
starts with it) and the cases that show it ("visible" unless said). Read by the tests
(``tests/catalogue.py``); it imports nothing of the project."""

ENTRIES = [
    ("canonical", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """),
    ("clear_at_group_start", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                if i % accum_steps == 0:
                    model.zero_grad()
                loss = loss_fn(model(x), y)
                (loss / accum_steps).backward()
                if i % accum_steps == accum_steps - 1:
                    optimizer.step()
    """),
    ("divide_grads_before_step", """
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
    ("one_backward_per_group", """
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
    ("chunks_helper_while", """
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
    ("stacked_mean", """
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
    ("closure_per_group", """
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
    ("unscaled", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y)
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "unscaled_accumulation", ["4× too large", "step 1", "line 7", "Divide each micro-batch loss"]),
    ("steps_every_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for x, y in batches:
                optimizer.zero_grad()
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                optimizer.step()
    """, "stepped_every_micro_batch", ["after every micro-batch", "8 steps", "2 steps"]),
    ("steps_after_the_first_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                (loss_fn(model(x), y) / accum_steps).backward()
                if i % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "stepped_mid_group", ["before its group", "batch 1", "batches 1 + 2 + 3 + 4", "(i + 1) % accum_steps"]),
    ("clears_every_micro_batch", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                optimizer.zero_grad()
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "cleared_inside_group", ["inside a group", "batch 4", "batches 1 + 2 + 3 + 4", "line 7"]),
    ("never_cleared", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "never_cleared", ["never cleared", "stale", "line 6"]),
    ("cleared_once", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
    """, "cleared_once", ["only once", "step 2", "line 7"]),
    ("clears_only_after_step", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """, "stale_first_step", ["first step", "stale", "line 6"]),
    ("divides_by_number_of_batches", """
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
    ("cleared_before_step", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            for i, (x, y) in enumerate(batches):
                loss = loss_fn(model(x), y) / accum_steps
                loss.backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.zero_grad()
                    optimizer.step()
    """, "cleared_before_step", ["between loss.backward() and optimizer.step()", "line 6", "line 7"]),
    ("never_steps", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for x, y in batches:
                (loss_fn(model(x), y) / accum_steps).backward()
    """, "never_stepped", ["never called", "group of micro-batches"]),
    # ---- found by a probe of the grader ----
    ("steps_twice_per_group", """
        def train_accumulate(model, optimizer, loss_fn, batches, accum_steps):
            optimizer.zero_grad()
            for i, (x, y) in enumerate(batches):
                (loss_fn(model(x), y) / accum_steps).backward()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.step()
                    optimizer.zero_grad()
    """, "step_count", ["4 times"]),
    ("restores_the_start_after_the_loop", """
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
]
