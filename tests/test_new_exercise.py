"""Adding an exercise the way CONTRIBUTING.md says, for real, in a throw-away copy of the packages:
one folder, ``autograder/exercises/squares_grad/`` (its declaration, judge, observer, catalogue,
and its words, three hint tiers and the translations of its task cell included, in all six
languages), and the cells of a real assignment's notebook, released with nbgrader. Nothing else
of the packages changes.

Then, as the course would: the exercise's files keep to their sides of the trust boundary
(``test_architecture``'s rules, on the copy); its catalogue gets from the judge the mistake each
entry names; a class of six students, one a language, is graded with ``autograder grade`` in
the sandbox, the points and every message from the judge, in each student's language, a crash
included (a kernel's reported error takes the one path every exercise takes,
``judges.verdict``); and a student working alone runs the released notebook in a kernel, with
no grader: the check, a hint and ``exercises.squares_grad.check()`` answer in Swedish, from the
same judge in their own kernel."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest
from helpers import BIN, ROOT, isolated_env, nbgrader, page_text
from nbgrader.api import Gradebook
from test_architecture import ALLOWED, _part, import_graph

pytestmark = pytest.mark.slow

NAME = "squares_grad"
ASSIGNMENT = "99_squares"
LANGS = ("en", "es", "pt", "zh", "fr", "sv")

# Step 1 (spec.py, the wire's): the declaration.
SPEC = '''"""Exercise 2(z): ``squares_grad(x)``, the gradient of the sum of the squares of ``x``, by autograd."""
from ...wire.spec import Exercise

EXERCISE = Exercise(
    "squares_grad", lesson=2, letter="z", kind="function", answer=("squares_grad",),
    cells=("squares_grad", "squares_grad_tests"), task=("squares_grad_task",), messages="squares_grad",
    summary="Exercise 2(z): the gradient of a sum of squares, by autograd.")
'''

# Step 2 (judge.py, the judge's): scenarios from seeds, verdicts from data. A kernel's reported
# error never reaches verify: judges.verdict turns it into the verdict, for every exercise.
JUDGE = '''"""The judge of exercise 2(z): recomputes 2·x and compares."""
from ...judges.seeds import generator
from ...wire.codec import decode
from ...wire.verdict import PASS, Verdict

CASES = {"visible": [dict(seed=0, n=3)], "hidden": [dict(seed=1, n=5), dict(seed=2, n=1)]}


def scenario(case, seed):
    import torch

    values = torch.rand(case["n"], generator=generator(seed), dtype=torch.float64) * 4 - 2
    return {"x": [round(v, 3) for v in values.tolist()]}


def verify(data, observation):
    got = decode(observation.get("value"))
    expected = [2 * v for v in data["x"]]
    if not isinstance(got, list) or len(got) != len(expected):
        return Verdict.fail("not_a_list", "squares_grad.not_a_list", n=len(expected))
    if any(type(a) is not float or not abs(a - b) <= 1e-5 for a, b in zip(got, expected)):
        return Verdict.fail("wrong", "squares_grad.wrong", x=str(data["x"]), got=str(got)[:200])
    return PASS
'''

# Step 3 (observe.py, the kernel's): runs the student's function on a scenario, reports data.
OBSERVE = '''"""Exercise 2(z) in the kernel: run the student's function on the judge's numbers."""
from ...kernel import running
from ...wire.codec import encode


def observe(student, data, name):
    result, failed = running.call(student, name, list(data["x"]))
    if failed:
        return {"error": failed.to_data()}
    return {"value": encode(result)}
'''

# Step 4 (catalogue.py): right and wrong solutions, each with the mistake the judge must name.
CATALOGUE = '''"""Exercise 2(z)'s catalogue: (name, source, mistake, words)."""
ENTRIES = [
    ("backward", """
        def squares_grad(x):
            t = torch.tensor(x, requires_grad=True)
            (t ** 2).sum().backward()
            return t.grad.tolist()
    """),
    ("returns_x", """
        def squares_grad(x):
            return list(x)
    """, "wrong", ["2·x"]),
    ("returns_a_number", """
        def squares_grad(x):
            return 2 * x[0]
    """, "not_a_list", ["3"]),
]
'''

# Step 5 (locale/<lang>.toml): its messages and its three hint tiers in every language, and the
# cell that states its task in every language but English (which is in the notebook).
TASK = {
    "en": "Write `squares_grad(x)`: the gradient of the sum of the squares of x. Stuck? `exercises.squares_grad.hint()`.",
    "es": "Escribe `squares_grad(x)`: el gradiente de la suma de los cuadrados de x. ¿Atascado? `exercises.squares_grad.hint()`.",
    "pt": "Escreva `squares_grad(x)`: o gradiente da soma dos quadrados de x. Travou? `exercises.squares_grad.hint()`.",
    "zh": "编写 `squares_grad(x)`：x 的平方和的梯度。卡住了？`exercises.squares_grad.hint()`。",
    "fr": "Écrivez `squares_grad(x)` : le gradient de la somme des carrés de x. Bloqué ? `exercises.squares_grad.hint()`.",
    "sv": "Skriv `squares_grad(x)`: gradienten av kvadratsumman av x. Fastnat? `exercises.squares_grad.hint()`.",
}
WORDS = {
    "en": ("Return a list of {n} Python floats.", "For x = {x} you returned {got}: the gradient of the sum of squares is 2·x.",
           ("Make a tensor that requires grad from x.", "Sum its squares and call backward().", "Return t.grad.tolist().")),
    "es": ("Devuelve una lista de {n} números de Python.", "Para x = {x} devolviste {got}: el gradiente de la suma de cuadrados es 2·x.",
           ("Crea a partir de x un tensor que requiera gradiente.", "Suma sus cuadrados y llama a backward().",
            "Devuelve t.grad.tolist().")),
    "pt": ("Devolva uma lista de {n} números do Python.", "Para x = {x} você devolveu {got}: o gradiente da soma dos quadrados é 2·x.",
           ("Crie a partir de x um tensor que exija gradiente.", "Some os quadrados e chame backward().",
            "Devolva t.grad.tolist().")),
    "zh": ("请返回一个包含 {n} 个 Python 浮点数的列表。", "对于 x = {x}，你返回了 {got}：平方和的梯度是 2·x。",
           ("用 x 创建一个需要梯度的张量。", "对它的平方求和，然后调用 backward()。", "返回 t.grad.tolist()。")),
    "fr": ("Renvoyez une liste de {n} nombres Python.", "Pour x = {x}, vous avez renvoyé {got} : le gradient de la somme des carrés est 2·x.",
           ("Créez à partir de x un tenseur qui exige un gradient.", "Sommez ses carrés et appelez backward().",
            "Renvoyez t.grad.tolist().")),
    "sv": ("Returnera en lista med {n} flyttal i Python.", "För x = {x} returnerade du {got}: gradienten av kvadratsumman är 2·x.",
           ("Gör en tensor som kräver gradient av x.", "Summera kvadraterna och anropa backward().",
            "Returnera t.grad.tolist().")),
}


def _locale(lang: str) -> str:
    not_a_list, wrong, hints = WORDS[lang]
    tiers = "\n".join(f'{tier} = "{text}"' for tier, text in enumerate(hints, 1))
    task = "" if lang == "en" else f"\n[task]\nsquares_grad_task = '''\n{TASK[lang]}\n'''\n"
    return (f'[grader.squares_grad]\nnot_a_list = "{not_a_list}"\nwrong = "{wrong}"\n\n'
            f"[lessons.hints.squares_grad]\n{tiers}\n{task}")


SOLUTION = '''def squares_grad(x):
    ### BEGIN SOLUTION
    t = torch.tensor(x, requires_grad=True)
    (t ** 2).sum().backward()
    return t.grad.tolist()
    ### END SOLUTION'''

TEST_CELL = '''check_squares_grad(squares_grad)
### BEGIN HIDDEN TESTS
check_squares_grad(squares_grad, cases="hidden")
### END HIDDEN TESTS'''

# one student a language: a right answer, three wrong ones, one that raises
STUDENTS = {
    "alice": ("en", "def squares_grad(x):\n    t = torch.tensor(x, requires_grad=True)\n    (t ** 2).sum().backward()\n"
                    "    return t.grad.tolist()"),
    "bruno": ("es", "def squares_grad(x):\n    return list(x)"),
    "carla": ("pt", "def squares_grad(x):\n    return [v * v for v in x]"),
    "chen": ("zh", "def squares_grad(x):\n    return 2 * x[0]"),
    "dora": ("fr", "def squares_grad(x):\n    return [2 * v for v in x][:1]"),
    "erik": ("sv", "def squares_grad(x):\n    return undefined_name"),
}


def _add_exercise(packages):
    """CONTRIBUTING.md's "Adding an exercise", steps 1-5: one folder in a copy of the packages."""
    for package in ("autograder", "lessons"):
        shutil.copytree(ROOT / package, packages / package, ignore=shutil.ignore_patterns("__pycache__"))
    folder = packages / "autograder" / "exercises" / NAME
    (folder / "locale").mkdir(parents=True)
    for file, text in (("spec.py", SPEC), ("judge.py", JUDGE), ("observe.py", OBSERVE), ("catalogue.py", CATALOGUE)):
        (folder / file).write_text(text)
    for lang in LANGS:
        (folder / "locale" / f"{lang}.toml").write_text(_locale(lang))


def _cell(kind, source, grade_id, **nbgrader_meta):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    meta = {"grade": False, "grade_id": grade_id, "locked": True, "schema_version": 3,
            "solution": False, "task": False, **nbgrader_meta}
    return make(source, metadata={"nbgrader": meta}, id=grade_id)


def _source_notebook():
    """Step 6: the exercise's cells in its assignment's source notebook."""
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.cells = [
        _cell("code", "import torch\n\nfrom lessons import exercises\nfrom autograder.kernel.checks import check_squares_grad",
              "setup"),
        _cell("markdown", TASK["en"], "squares_grad_task"),
        _cell("code", SOLUTION, NAME, locked=False, solution=True),
        _cell("code", TEST_CELL, f"{NAME}_tests", grade=True, points=2),
    ]
    return nb


def _in_language(release, lang: str, code: str):
    """The released notebook as a student in ``lang`` has it: its task cell in that language (as
    ``autograder course`` and the hub's fetch put it, from the folder's ``[task]``), and ``code``."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    nb.metadata["autograd_lessons"] = {"language": lang}
    next(c for c in nb.cells if c.get("id") == "squares_grad_task").source = TASK[lang]
    next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == NAME).source = code
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The copy of the packages with the new exercise, a course with its assignment released, and
    the six students' submissions."""
    base = tmp_path_factory.mktemp("new_exercise")
    env = isolated_env(base / "home")
    env["PYTHONPATH"] = f"{base / 'packages'}:{ROOT / 'tests'}"
    _add_exercise(base / "packages")
    root = base / "course"
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    nbformat.write(_source_notebook(), str(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    nbgrader(["generate_assignment", ASSIGNMENT, "--force"], root, env)
    release = nbformat.read(str(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    for student, (lang, code) in STUDENTS.items():
        (root / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(_in_language(release, lang, code), str(root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    return base, root, env, release


def _python(code, env, cwd):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_the_folder_keeps_to_the_trust_boundary(course):
    """Each file of the new folder is on its side, and imports only what that side may."""
    base = course[0]
    graph = import_graph(base / "packages")
    files = {module: imports for module, imports in graph.items() if module.startswith(f"autograder.exercises.{NAME}.")}
    assert sorted(files) == [f"autograder.exercises.{NAME}.{stem}" for stem in ("catalogue", "judge", "observe", "spec")]
    for module, imports in files.items():
        for target, _ in imports:
            assert _part(target) in ({_part(module)} | ALLOWED[_part(module)] | {None}), (module, target)
    assert (f"autograder.exercises.{NAME}.spec", "") not in files[f"autograder.exercises.{NAME}.catalogue"]


def test_it_is_registered_and_its_catalogue_gets_what_it_says(course):
    """The registry finds it, every language has its words, its three hint tiers and (but English)
    its task cell, found in its lesson's prose, and the judge gives each catalogue entry the
    mistake it names, with the words it names."""
    base, root, env, _ = course
    said = _python(f'''
        import json
        from autograder import messages
        from autograder.exercises import BY_NAME, CHECKS
        from autograder.kernel import checks
        from lessons import prose, text
        from catalogue import entries
        from judging import judge_function
        verdicts = {{e.name: [judge_function("{NAME}", e.load(), cases)[0] for cases in ("visible", "hidden")]
                    for e in entries("{NAME}")}}
        print(json.dumps({{
            "registered": "check_{NAME}" in CHECKS and checks.check_{NAME}.__doc__ == BY_NAME["{NAME}"].summary,
            "hints": {{lang: sorted(text.raw("hints.{NAME}", lang)) for lang in messages.LANGUAGES}},
            "task": {{lang: prose.tasks(lang, "02_backward").get("squares_grad_task", "").strip()
                     for lang in messages.LANGUAGES if lang != "en"}},
            "wrong": {{lang: messages.render("squares_grad.wrong", {{"x": "[1.0]", "got": "[1.0]"}}, lang)
                      for lang in messages.LANGUAGES}},
            "catalogue": {{e.name: [e.mistake, e.words, [[v.ok, v.mistake, v.message] for v in verdicts[e.name]]]
                          for e in entries("{NAME}")}}}}))
    ''', env, root)
    assert said["registered"]
    assert said["hints"] == {lang: ["1", "2", "3"] for lang in LANGS}
    assert said["task"] == {lang: TASK[lang] for lang in LANGS if lang != "en"}  # its lesson's prose has it
    assert said["wrong"]["sv"] == "För x = [1.0] returnerade du [1.0]: gradienten av kvadratsumman är 2·x."
    assert len(set(said["wrong"].values())) == 6  # six languages, six sentences
    for name, (mistake, words, verdicts) in said["catalogue"].items():
        if mistake is None:
            assert verdicts == [[True, "", ""], [True, "", ""]], name
        else:
            (ok, got, message), _ = verdicts
            assert not ok and got == mistake and all(w in message for w in words), (name, verdicts)


def test_a_class_is_graded_in_each_students_language(course):
    """``autograder grade`` in the sandbox, points from the judge: the right solution gets 2 of 2,
    each wrong one 0 with the judge's sentence, and the one that raises the kernel's reported
    error, each in the language of the student's notebook."""
    _, root, env, _ = course
    result = subprocess.run([str(BIN / "autograder"), "grade", ASSIGNMENT], cwd=root, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        scores = {s.id: gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, s.id).score for s in gb.students}
    assert scores == {"alice": 2, "bruno": 0, "carla": 0, "chen": 0, "dora": 0, "erik": 0}
    feedback = {s: page_text(root / "feedback" / s / ASSIGNMENT / f"{ASSIGNMENT}.html") for s in STUDENTS}
    assert "2·x" not in feedback["alice"]
    assert "el gradiente de la suma de cuadrados es 2·x" in feedback["bruno"]
    assert "o gradiente da soma dos quadrados é 2·x" in feedback["carla"]
    assert "请返回一个包含 3 个 Python 浮点数的列表。" in feedback["chen"]
    assert "Renvoyez une liste de 3 nombres Python." in feedback["dora"]
    assert "NameError" in feedback["erik"] and "undefined_name" in feedback["erik"]
    assert "Returnera en lista" not in feedback["erik"]  # the crash's message, not a judge's sentence


def test_a_student_working_alone_gets_the_same_judge_in_their_kernel(course, tmp_path):
    """The released notebook, in Swedish, run in a kernel with no grader: the visible check,
    ``exercises.squares_grad.check()`` and ``hint()`` answer in Swedish, from the judge run in
    that kernel (``judges.local``)."""
    _, root, env, release = course
    nb = _in_language(release, "sv", STUDENTS["bruno"][1])
    nb.cells.append(nbformat.v4.new_code_cell("exercises.squares_grad.hint()"))
    nb.cells.append(nbformat.v4.new_code_cell(
        "def right(x):\n    t = torch.tensor(x, requires_grad=True)\n    (t ** 2).sum().backward()\n"
        "    return t.grad.tolist()\n\nexercises.squares_grad.check(right)"))
    path = tmp_path / f"{ASSIGNMENT}.ipynb"
    nbformat.write(nb, str(path))
    subprocess.run([str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
                    "--inplace", str(path)], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    ran = nbformat.read(str(path), as_version=4)
    shown = {cell.metadata.get("nbgrader", {}).get("grade_id", i): " ".join(" ".join(  # (the kernel wraps lines)
        o.get("text", "") + " ".join(o.get("traceback", [])) + str(o.get("data", {}).get("text/plain", ""))
        for o in cell.get("outputs", [])).split()) for i, cell in enumerate(ran.cells)}
    failed = [i for i, cell in enumerate(ran.cells) if any(o.output_type == "error" for o in cell.get("outputs", []))]
    assert failed == [3]  # the test cell alone
    assert "gradienten av kvadratsumman är 2·x" in shown[f"{NAME}_tests"]
    assert "Gör en tensor som kräver gradient av x." in shown[len(ran.cells) - 2]
    assert shown[len(ran.cells) - 1] and "kvadratsumman" not in shown[len(ran.cells) - 1]


def test_the_copy_leaves_the_course_alone(course):
    """The throw-away exercise lives only in the copy: the course's own registry is unchanged."""
    from autograder.exercises import BY_NAME
    assert NAME not in BY_NAME and not (ROOT / "autograder" / "exercises" / NAME).exists()
    assert (course[1] / "release" / ASSIGNMENT).is_dir()
