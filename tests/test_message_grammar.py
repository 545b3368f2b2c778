"""The loop diagnosis reads as a careful speaker of each language would write it, once its
placeholders are filled: the batch lists (one, two, three batches, a batch counted twice),
the line a step ran at (or a line outside the student's function), the counts, and what a
wrong return value holds.

The pieces are rendered by the grader's own code (diagnose.describe, locations.Location),
each message through messages.render, and compared with the clause written out below for each
language. A message whose words around a placeholder do not agree with what fills it (a
missing article, "de el", "1 times", "at line outside") fails here."""
from __future__ import annotations

from collections import Counter

import pytest

from autograder import messages
from autograder.kernel import locations
from autograder.kernel.loop import diagnose
from autograder.kernel.loop.trace import STALE

# (1 batch, 2 batches, 3 batches, batch 3 counted twice, stale gradients + batch 1)
LISTS = {
    "en": ("batch 1", "batches 1 + 2", "batches 1 + 2 + 3", "2 × batch 3",
           "the stale gradients that were already in .grad before your function ran + batch 1"),
    "es": ("el lote 1", "los lotes 1 + 2", "los lotes 1 + 2 + 3", "2 veces el lote 3",
           "los gradientes obsoletos que ya estaban en .grad antes de que se ejecutara tu función + el lote 1"),
    "pt": ("o lote 1", "os lotes 1 + 2", "os lotes 1 + 2 + 3", "2 vezes o lote 3",
           "os gradientes antigos que já estavam em .grad antes de a sua função rodar + o lote 1"),
    "zh": ("批次 1", "批次 1 + 2", "批次 1 + 2 + 3", "批次 3 的梯度 ×2",
           "你的函数运行之前就已留在 .grad 中的过时梯度 + 批次 1"),
    "fr": ("le lot 1", "les lots 1 + 2", "les lots 1 + 2 + 3", "2 fois le lot 3",
           "les gradients périmés qui se trouvaient déjà dans .grad avant l'exécution de ta fonction + le lot 1"),
    "sv": ("batch 1", "batcharna 1 + 2", "batcharna 1 + 2 + 3", "2 × batch 3",
           "de inaktuella gradienterna som redan låg i .grad innan din funktion kördes + batch 1"),
}

# scenario → (message key, fields); "L7"/"L6" are lines of the student's code, "outside" a line
# outside their function, a tuple of batch indices a batch list (describe_group), "twice" batch 3
# counted twice
SCENARIOS = {
    "cleared_once": ("loop.cleared_once", dict(step=2, where="L7", used=(0, 1), expected=(1,), backward_where="L6")),
    "never_cleared": ("loop.never_cleared", dict(step=3, where="L7", used=(0, 1, 2), expected=(2,), backward_where="L6")),
    "lagging": ("loop.step_before_backward", dict(step=2, where="L7", used=(0,), expected=(1,), backward_where="L6")),
    "partial": ("loop.cleared_inside_group", dict(step=1, where="L7", used=(1,), expected=(0, 1), backward_where="L6")),
    "wrong_gradient_1": ("loop.wrong_gradient", dict(step=2, where="L7", used=(), expected=(1,))),
    "wrong_gradient_3": ("loop.wrong_gradient", dict(step=1, where="L7", used=(), expected=(0, 1, 2))),
    "wrong_scale": ("loop.wrong_scale", dict(step=1, where="L7", factor="0.25", expected=(0, 1, 2), accum=3)),
    "doubled": ("loop.backward_twice", dict(step=1, where="L7", used="twice", times="2")),
    "one_step": ("loop.step_count", dict(got=1, count=1, batches=4, expected=4, where="L7",
                                         rule={"$key": "loop.rule_batch"})),
    "five_steps": ("loop.step_count", dict(got=5, count=5, batches=4, expected=4, where="outside",
                                           rule={"$key": "loop.rule_batch"})),
    "crashed": ("loop.crashed", dict(error="ValueError", where="L7", text="boom")),
    "crashed_outside": ("loop.crashed", dict(error="ValueError", where="outside", text="boom")),
    "one_loss": ("loop.losses_length", dict(got=1, count=1, expected=4)),
    "list_of_ints": ("loop.losses_not_list", dict(got={"$key": "loop.list_holding", "fields": {"type": "int"}})),
}

# scenario → the clause its message must contain, as a speaker of the language writes it
CLAUSES = {
    "en": {
        "cleared_once": "step 2 (line 7: `optimizer.step()`) used batches 1 + 2 instead of batch 2 alone, "
                        "because backward() adds into .grad. Move optimizer.zero_grad() inside the loop, before the "
                        "backward pass (line 6: `loss.backward()`).",
        "never_cleared": "step 3 (line 7: `optimizer.step()`) used batches 1 + 2 + 3 instead of batch 3 alone",
        "lagging": "step 2 (line 7: `optimizer.step()`) used batch 1 instead of batch 2, so every update lags one "
                   "batch behind",
        "partial": "step 1 (line 7: `optimizer.step()`) used batch 2 instead of batches 1 + 2.",
        "wrong_gradient_1": "is not the gradient of the loss of batch 2 at the current parameters",
        "wrong_gradient_3": "is not the gradient of the loss of batches 1 + 2 + 3 at the current parameters",
        "wrong_scale": "is 0.25× the gradient of the mean loss over batches 1 + 2 + 3.",
        "doubled": "step 1 (line 7: `optimizer.step()`) used 2 × batch 3, a gradient 2× too large.",
        "one_step": "optimizer.step() ran once for 4 batches; expected 4 (one per batch). The last step was at "
                    "line 7: `optimizer.step()`.",
        "five_steps": "optimizer.step() ran 5 times for 4 batches; expected 4 (one per batch). The last step was at "
                      "a line outside your function.",
        "crashed": "Your function raised ValueError at line 7: `optimizer.step()`: boom",
        "crashed_outside": "Your function raised ValueError at a line outside your function: boom",
        "one_loss": "train() returned 1 loss for 4 batches: append one loss per batch.",
        "list_of_ints": "; it returned a list holding int.",
    },
    "es": {
        "cleared_once": "el paso 2 (en la línea 7: `optimizer.step()`) usó los lotes 1 + 2 en lugar de solo el "
                        "lote 2, porque backward() suma en .grad. Mueve optimizer.zero_grad() dentro del bucle, antes "
                        "de la pasada hacia atrás (en la línea 6: `loss.backward()`).",
        "never_cleared": "el paso 3 (en la línea 7: `optimizer.step()`) usó los lotes 1 + 2 + 3 en lugar de solo el "
                         "lote 3",
        "lagging": "el paso 2 (en la línea 7: `optimizer.step()`) usó el lote 1, no el lote 2, así que cada "
                   "actualización va un lote por detrás",
        "partial": "el paso 1 (en la línea 7: `optimizer.step()`) usó el lote 2, no los lotes 1 + 2.",
        "wrong_gradient_1": "no es el gradiente de la pérdida calculada en el lote 2 con los parámetros actuales",
        "wrong_gradient_3": "no es el gradiente de la pérdida calculada en los lotes 1 + 2 + 3 con los parámetros "
                            "actuales",
        "wrong_scale": "es 0.25× el gradiente de la pérdida media sobre los lotes 1 + 2 + 3.",
        "doubled": "el paso 1 (en la línea 7: `optimizer.step()`) usó 2 veces el lote 3, un gradiente 2× más grande "
                   "de lo debido.",
        "one_step": "optimizer.step() se ejecutó 1 vez para 4 lotes; se esperaban 4 (uno por lote). El último paso "
                    "fue en la línea 7: `optimizer.step()`.",
        "five_steps": "optimizer.step() se ejecutó 5 veces para 4 lotes; se esperaban 4 (uno por lote). El último "
                      "paso fue en una línea fuera de tu función.",
        "crashed": "Tu función lanzó ValueError en la línea 7: `optimizer.step()`: boom",
        "crashed_outside": "Tu función lanzó ValueError en una línea fuera de tu función: boom",
        "one_loss": "train() devolvió 1 pérdida para 4 lotes: añade una pérdida por lote.",
        "list_of_ints": "; devolvió una lista que contiene un int.",
    },
    "pt": {
        "cleared_once": "o passo 2 (na linha 7: `optimizer.step()`) usou os lotes 1 + 2 em vez de apenas o lote 2, "
                        "porque backward() soma em .grad. Mova optimizer.zero_grad() para dentro do loop, antes da "
                        "passagem para trás (na linha 6: `loss.backward()`).",
        "never_cleared": "o passo 3 (na linha 7: `optimizer.step()`) usou os lotes 1 + 2 + 3 em vez de apenas o "
                         "lote 3",
        "lagging": "o passo 2 (na linha 7: `optimizer.step()`) usou o lote 1, e não o lote 2, então cada "
                   "atualização fica um lote atrasada",
        "partial": "o passo 1 (na linha 7: `optimizer.step()`) usou o lote 2, e não os lotes 1 + 2.",
        "wrong_gradient_1": "não é o gradiente da perda calculada sobre o lote 2 nos parâmetros atuais",
        "wrong_gradient_3": "não é o gradiente da perda calculada sobre os lotes 1 + 2 + 3 nos parâmetros atuais",
        "wrong_scale": "é 0.25× o gradiente da perda média sobre os lotes 1 + 2 + 3.",
        "doubled": "o passo 1 (na linha 7: `optimizer.step()`) usou 2 vezes o lote 3, um gradiente 2 vezes maior do "
                   "que deveria.",
        "one_step": "optimizer.step() rodou 1 vez para 4 lotes; o esperado era 4 (um por lote). O último passo foi "
                    "na linha 7: `optimizer.step()`.",
        "five_steps": "optimizer.step() rodou 5 vezes para 4 lotes; o esperado era 4 (um por lote). O último passo "
                      "foi em uma linha fora da sua função.",
        "crashed": "Sua função levantou ValueError (na linha 7: `optimizer.step()`): boom",
        "crashed_outside": "Sua função levantou ValueError (em uma linha fora da sua função): boom",
        "one_loss": "A lista que train() retornou tem tamanho 1, mas há 4 lotes: adicione uma perda por lote.",
        "list_of_ints": "; ela retornou uma lista que contém um int.",
    },
    "zh": {
        "cleared_once": "第 2 步（第 7 行：`optimizer.step()`）用的是批次 1 + 2，而不只是批次 2，因为 backward() 会累加到 "
                        ".grad 中。请把 optimizer.zero_grad() 移到循环内部、反向传播（第 6 行：`loss.backward()`）之前。",
        "never_cleared": "第 3 步（第 7 行：`optimizer.step()`）用的是批次 1 + 2 + 3，而不只是批次 3",
        "lagging": "第 2 步（第 7 行：`optimizer.step()`）用的是批次 1，而不是批次 2，所以每次更新都落后一个批次",
        "partial": "第 1 步（第 7 行：`optimizer.step()`）用的是批次 2，而不是批次 1 + 2。",
        "wrong_gradient_1": "它的值并不是批次 2 的损失在当前参数下的梯度",
        "wrong_gradient_3": "它的值并不是批次 1 + 2 + 3 的损失在当前参数下的梯度",
        "wrong_scale": "的梯度是批次 1 + 2 + 3 上平均损失梯度的 0.25 倍。",
        "doubled": "第 1 步（第 7 行：`optimizer.step()`）用的是批次 3 的梯度 ×2，即应有大小的 2 倍。",
        "one_step": "对 4 个批次，optimizer.step() 运行了 1 次；应为 4 次（每个批次一次）。最后一步位于第 7 行："
                    "`optimizer.step()`。",
        "five_steps": "对 4 个批次，optimizer.step() 运行了 5 次；应为 4 次（每个批次一次）。最后一步位于你的函数之外的某一行。",
        "crashed": "你的函数抛出了 ValueError（第 7 行：`optimizer.step()`）：boom",
        "crashed_outside": "你的函数抛出了 ValueError（你的函数之外的某一行）：boom",
        "one_loss": "对 4 个批次，train() 返回了 1 个损失：每个批次追加一个损失。",
        "list_of_ints": "；它返回的是 list（其中有 int 类型的元素）。",
    },
    "fr": {
        "cleared_once": "l'étape 2 (ligne 7 : `optimizer.step()`) a utilisé les lots 1 + 2, alors qu'elle ne devait "
                        "utiliser que le lot 2, car backward() ajoute dans .grad. Déplace optimizer.zero_grad() dans la "
                        "boucle, avant la passe arrière (ligne 6 : `loss.backward()`).",
        "never_cleared": "l'étape 3 (ligne 7 : `optimizer.step()`) a utilisé les lots 1 + 2 + 3, alors qu'elle ne "
                         "devait utiliser que le lot 3",
        "lagging": "l'étape 2 (ligne 7 : `optimizer.step()`) a utilisé le lot 1, alors qu'elle devait utiliser le "
                   "lot 2, donc chaque mise à jour a un lot de retard",
        "partial": "l'étape 1 (ligne 7 : `optimizer.step()`) a utilisé le lot 2, alors qu'elle devait utiliser les "
                   "lots 1 + 2.",
        "wrong_gradient_1": "n'est pas le gradient de la perte calculée sur le lot 2 avec les paramètres actuels",
        "wrong_gradient_3": "n'est pas le gradient de la perte calculée sur les lots 1 + 2 + 3 avec les paramètres "
                            "actuels",
        "wrong_scale": "vaut 0.25× le gradient de la perte moyenne sur les lots 1 + 2 + 3.",
        "doubled": "l'étape 1 (ligne 7 : `optimizer.step()`) a utilisé 2 fois le lot 3, un gradient 2× trop grand.",
        "one_step": "optimizer.step() s'est exécuté 1 fois pour 4 lots ; attendu : 4 (une par lot). La dernière "
                    "étape s'est produite ici (ligne 7 : `optimizer.step()`).",
        "five_steps": "optimizer.step() s'est exécuté 5 fois pour 4 lots ; attendu : 4 (une par lot). La dernière "
                      "étape s'est produite ici (une ligne en dehors de ta fonction).",
        "crashed": "Ta fonction a levé ValueError (ligne 7 : `optimizer.step()`) : boom",
        "crashed_outside": "Ta fonction a levé ValueError (une ligne en dehors de ta fonction) : boom",
        "one_loss": "train() a renvoyé 1 perte pour 4 lots : ajoute une perte par lot.",
        "list_of_ints": " ; elle a renvoyé une liste contenant un élément de type int.",
    },
    "sv": {
        "cleared_once": "steg 2 (rad 7: `optimizer.step()`) använde batcharna 1 + 2 i stället för enbart batch 2, "
                        "eftersom backward() adderar till .grad. Flytta in optimizer.zero_grad() i loopen, före "
                        "bakåtpasseringen (rad 6: `loss.backward()`).",
        "never_cleared": "steg 3 (rad 7: `optimizer.step()`) använde batcharna 1 + 2 + 3 i stället för enbart batch 3",
        "lagging": "steg 2 (rad 7: `optimizer.step()`) använde batch 1 i stället för batch 2, så varje uppdatering "
                   "ligger en batch efter",
        "partial": "steg 1 (rad 7: `optimizer.step()`) använde batch 2 i stället för batcharna 1 + 2.",
        "wrong_gradient_1": "är inte gradienten av förlusten för batch 2 vid de aktuella parametrarna",
        "wrong_gradient_3": "är inte gradienten av förlusten för batcharna 1 + 2 + 3 vid de aktuella parametrarna",
        "wrong_scale": "är 0.25× gradienten av medelförlusten över batcharna 1 + 2 + 3.",
        "doubled": "steg 1 (rad 7: `optimizer.step()`) använde 2 × batch 3, en gradient som är 2× för stor.",
        "one_step": "optimizer.step() kördes 1 gång för 4 batchar; förväntat var 4 (ett per batch). Det sista "
                    "steget togs på rad 7: `optimizer.step()`.",
        "five_steps": "optimizer.step() kördes 5 gånger för 4 batchar; förväntat var 4 (ett per batch). Det sista "
                      "steget togs på en rad utanför din funktion.",
        "crashed": "Din funktion gav ValueError på rad 7: `optimizer.step()`: boom",
        "crashed_outside": "Din funktion gav ValueError på en rad utanför din funktion: boom",
        "one_loss": "train() returnerade 1 förlust för 4 batchar: lägg till en förlust per batch.",
        "list_of_ints": "; den returnerade en lista med ett element av typen int.",
    },
}


@pytest.fixture
def student_code(tmp_path):
    """A student's function on disk: line 6 is its backward pass, line 7 its step."""
    path = tmp_path / "cell.py"
    path.write_text("def train(model, optimizer, loss_fn, batches):\n    for x, y in batches:\n"
                    "        optimizer.zero_grad()\n        out = model(x)\n        loss = loss_fn(out, y)\n"
                    "        loss.backward()\n        optimizer.step()\n")
    return path


def _fields(spec: dict, code) -> dict:
    """The fields of a scenario, each piece rendered by the grader's own code."""
    places = {"L7": locations.Location(str(code), 7), "L6": locations.Location(str(code), 6), "outside": None}
    fields = {}
    for name, value in spec.items():
        if name in ("where", "backward_where"):
            value = locations.describe(places[value])
        elif name == "used" and value == "twice":
            value = diagnose.describe(Counter({2: 2.0}))
        elif name == "used" and value == ():
            value = messages.text("general.unknown")
        elif isinstance(value, tuple):
            value = diagnose.describe_group(list(value))
        fields[name] = value
    return fields


def test_every_language_has_every_scenario():
    assert sorted(CLAUSES) == sorted(LISTS) == sorted(messages.LANGUAGES)
    assert all(sorted(clauses) == sorted(SCENARIOS) for clauses in CLAUSES.values())


@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_batch_lists_read_naturally(lang, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", lang)
    rendered = (*(diagnose.describe(Counter({b: 1.0 for b in range(n)})) for n in (1, 2, 3)),
                diagnose.describe(Counter({2: 2.0})), diagnose.describe(Counter({STALE: 1.0, 0: 1.0})))
    assert rendered == LISTS[lang]
    assert tuple(diagnose.describe_group(list(range(n))) for n in (1, 2, 3)) == LISTS[lang][:3]


@pytest.mark.parametrize("lang", messages.LANGUAGES)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_loop_diagnosis_reads_naturally(lang, scenario, student_code, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_LESSONS_LANG", lang)  # the kernel renders the pieces in it
    key, spec = SCENARIOS[scenario]
    message = messages.render(key, _fields(spec, student_code), lang)
    assert "{" not in message and message != messages.render("judge.malformed", {}, lang)
    assert CLAUSES[lang][scenario] in message, message
