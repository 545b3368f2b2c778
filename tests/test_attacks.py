"""The catalogue of attacks (tests/attacks.py), graded for real: `autograder grade 03_zeroing_grad
--jobs 2 --timeout 10` on a throw-away course per run, attackers beside honest classmates: every
attack that leaves grading standing in one run ("class"), those that stop or kill the grader's own
processes in another ("disruptive"), so that the catalogue costs three gradings with the baseline.

Every run is graded inside a small wrapper process that is a child subreaper: whatever the
grading run starts and leaves behind (a daemon that called setsid, a double fork) ends up as
its child, so it can list, then kill, every process that outlived grading. The same classmates
graded alone (``baseline``) give the scores that must not move, and the files the grader itself
writes in the instructor's HOME. Files are compared before and after each run in the course
(outside the grader's own output folders), the instructor's HOME, site-packages, the lesson
packages the grader imported (a copy) and the machine's /tmp, /dev/shm and /var/tmp; a change is blamed on the
attack whose name it carries or that said it wrote there, else on every attack that reached
something. Whatever an attack managed to write outside its tmp course is undone after its run.

Secrets that must never reach an attacker's feedback: a variable in the grader's environment,
an argument on the command line of the process that runs the grader, a file in the
instructor's HOME (.pgpass), a line in the hidden tests and one in the solutions of the
instructor's source notebook, a line in each honest classmate's notebook, a submission in
nbgrader's exchange, and any Quick Check key of the hidden tests (``key=...``).

Nothing an attacker wrote may be live in the pages made of its notebook (its feedback page and
the autograded notebook formgrader renders: ``pages.live``) nor typeset there by MathJax
(``pages.typeset``), its locked cells show the grader's own output (its question cells the
honest student's question: without a course secret, everyone's variant is the published one),
and what comes back to it is small.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import secrets
import select
import shutil
import socket
import stat
import subprocess
import sys
import sysconfig
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path

import catalogue
import nbformat
import pytest
from attacks import ATTACKS, BY_NAME, RUNS, Attack, cell_sources, short_tag
from deep_folders import flatten, walk
from helpers import BIN, ROOT, fill, generate, isolated_env, points, read, solutions
from pages import live, typeset

NAME = "03_zeroing_grad"
POINTS = points(NAME)  # {test cell: points}, from the source notebook
CLASSMATES = ("alice", "carol", "zoe")  # alice is graded before the attackers, carol and zoe after
# seconds a whole run may take before the wrapper stops it: "class" (83 attackers) normally
# takes 100-150 s, "disruptive" 20-40 s (2 CPUs)
BUDGET = {"class": 480, "disruptive": 150}
SITE = Path(sysconfig.get_paths()["purelib"])
PACKAGES = ("autograder", "lessons")
GRADER_OUTPUT = {"autograded", "feedback", "autograder-logs", "gradebook.db", "gradebook.db-journal",
                 "grades.csv", "reports"}
EXCHANGE = Path("/usr/local/share/nbgrader/exchange")  # nbgrader's default exchange, where a canary sits
KEY = re.compile(r"""key\s*=\s*['"][a-dA-D]['"]""")  # a Quick Check key as the hidden tests write it
MAX_BACK = 2 * 2 ** 20  # bytes of an attacker's autograded notebook, and of its feedback page
MAX_OUTPUTS = 1_000_000 // 500  # JudgedExecute's output budget over what each output costs of it
KEEP_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "USER", "LOGNAME", "SHELL",
            "VIRTUAL_ENV", "PYTHONWARNINGS", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR",
            "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR", "TMPDIR", "AUTOGRADER_MEMORY_MB")

# The wrapper: runs the grading command as a child subreaper, then reports (and kills) every
# process that is still alive once grading is over. argv: result file, seconds, marker, secret,
# command… (the marker and the secret only sit on its command line, for the attacks to find).
SUBREAPER = textwrap.dedent(r'''
    import ctypes, json, os, signal, subprocess, sys, time
    result, budget, command = sys.argv[1], float(sys.argv[2]), sys.argv[5:]
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    started = time.monotonic()
    with open(result + ".out", "w") as out, open(result + ".err", "w") as err:
        child = subprocess.Popen(command, stdout=out, stderr=err)
        try:
            code, timed_out = child.wait(timeout=budget), False
        except subprocess.TimeoutExpired:
            code, timed_out = None, True
    seconds = time.monotonic() - started

    def tree(pid):
        found = []
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    for c in f.read().split():
                        found += [int(c)] + tree(int(c))
        except OSError:
            pass
        return found

    def describe(pid):
        info = {"pid": pid}
        for key in ("cmdline", "comm", "stat"):
            try:
                with open(f"/proc/{pid}/{key}", "rb") as f:
                    info[key] = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                info[key] = ""
        info["state"] = info.pop("stat").rsplit(")", 1)[-1].split()[0] if info.get("stat") else "X"
        return info

    def reap():
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    return
            except ChildProcessError:
                return

    deadline = time.monotonic() + (0 if timed_out else 2)
    while True:
        reap()
        alive = [describe(p) for p in tree(os.getpid())]
        alive = [p for p in alive if p["state"] not in ("Z", "X")]
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    for _ in range(100):
        pids = tree(os.getpid())
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
        reap()
    with open(result, "w") as f:
        json.dump({"returncode": code, "timed_out": timed_out, "seconds": seconds,
                   "survivors": alive, "left": tree(os.getpid())}, f)
''')


# -- what a run leaves on disk ---------------------------------------------------------------
def file_state(top: Path, skip=(), deep: bool = True) -> dict:
    """relative path → what it is: a regular file's size and hash (or size and mtime when not
    ``deep``), a link's target, or the kind of a special file. Never opens anything else."""
    state = {}
    if not top.exists():
        return state
    for dirpath, dirs, names in walk(top):
        base = Path(dirpath)
        rel_dir = base.relative_to(top)
        dirs[:] = [d for d in dirs if str(rel_dir / d) not in skip and d not in skip]
        for name in names + [d for d in dirs if (base / d).is_symlink()]:
            rel = str(rel_dir / name) if str(rel_dir) != "." else name
            if rel in skip or name in skip:
                continue
            path = base / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                if deep:
                    state[rel] = ("file", info.st_size, hashlib.sha256(path.read_bytes()).hexdigest())
                else:
                    state[rel] = ("file", info.st_size, info.st_mtime_ns)
            else:
                state[rel] = ("special", stat.S_IFMT(info.st_mode))
    return state


def differences(before: dict, after: dict) -> list:
    out = []
    for rel in sorted(set(before) | set(after)):
        if rel not in after:
            out.append(f"removed {rel}")
        elif rel not in before:
            out.append(f"added {rel} ({after[rel][0]})")
        elif before[rel] != after[rel]:
            out.append(f"changed {rel}")
    return out


SHARED = ("/tmp", "/dev/shm", "/var/tmp")  # the machine's own temporary folders


def snapshot(root: Path, home: Path, packages: Path, marker: str) -> dict:
    return {
        "machine": {str(p): ("file",) for folder in SHARED for p in Path(folder).glob(f"zz-attack-*-{marker}")},
        "course": file_state(root, skip=GRADER_OUTPUT),
        "home": file_state(home, skip={"zz-instructor.sock"}),
        "site-packages": file_state(SITE, skip={"__pycache__"}, deep=False),
        "lesson packages": {f"{p}/{rel}": v for p in PACKAGES
                            for rel, v in file_state(packages / p, skip={"__pycache__"}).items()},
    }


def remove_attack_leftovers(packages: Path) -> None:
    """Undo what an attack that got through wrote outside its tmp course (see attacks.py)."""
    for folder in (SITE, *(packages / p for p in PACKAGES)):
        for path in folder.glob("zz_attack_*"):
            path.unlink()
        for path in folder.glob("*.py"):
            text = path.read_text()
            if "# zz-attack:" in text:
                path.write_text("".join(line for line in text.splitlines(keepends=True)
                                        if "# zz-attack:" not in line))
    for folder in SHARED:
        for path in Path(folder).glob("zz-attack-*"):
            path.unlink()


# -- the instructor's own sockets, which no attacker may reach ---------------------------------
class Listener:
    def __init__(self, path: Path, abstract: str):
        self.heard: list = []
        self.sockets = []
        for address in (str(path), "\0" + abstract):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(address)
            s.listen(16)
            self.sockets.append(s)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            ready, _, _ = select.select(self.sockets, [], [], 0.2)
            for s in ready:
                conn, _ = s.accept()
                conn.settimeout(2)
                try:
                    data = conn.recv(200)
                except OSError:
                    data = b""
                conn.close()
                self.heard.append((repr(s.getsockname()), data.decode(errors="replace")))

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for s in self.sockets:
            s.close()


# -- one graded class --------------------------------------------------------------------------
@dataclass
class Run:
    name: str
    attacks: list
    root: Path
    home: Path
    secrets: dict
    wrapper: dict
    output: str
    scores: dict = field(default_factory=dict)  # student → {cell: score}
    rows: dict = field(default_factory=dict)  # student → {cell: (auto, manual, extra, needs manual)}
    feedback: dict = field(default_factory=dict)  # student → {file: text}
    evidence: dict = field(default_factory=dict)  # attack name → [what it reached]
    folders: dict = field(default_factory=dict)  # student → {"autograded"|"feedback": {names}}
    changes: dict = field(default_factory=dict)  # place → [differences]
    heard: list = field(default_factory=list)
    packages: Path | None = None  # the copy of the lesson packages this run's grader imported
    students_in_gradebook: set = field(default_factory=set)

    def suspects(self) -> list:
        """Attacks of this run that reached something, or all of them if none says so."""
        return sorted(n for n, what in self.evidence.items() if what) or [a.name for a in self.attacks]

    def culprits(self, path: Path) -> list:
        """The attacks that changed ``path``: its name or text carries their name, or they said
        they wrote, linked or deleted it (or a folder above it); else every suspect."""
        text = ""
        try:
            if path.is_file() and path.stat().st_size < 2**21:
                text = path.read_text(errors="replace")
        except OSError:
            pass
        named = [a.name for a in self.attacks if a.name in path.name or f"zz-attack:{a.name}" in text]
        said = [a.name for a in self.attacks for what in self.evidence.get(a.name, [])
                if what.startswith(WRITES) and any(str(path) == p or str(path).startswith(p + "/")
                                                   for p in re.findall(r"/[^\s'\"]+", what))]
        return named or sorted(set(said)) or self.suspects()


# The canaries in the instructor's source notebook are the same in every run of a session: the
# runs' sources are then the same, and nbgrader generates the course once (``helpers.generate``
# keeps what it wrote for a source it has seen; it generates before any student code runs, from
# this repository's packages, which the runs' copies equal at that point): 2 runs of ~15 s saved.
SOURCE_CANARIES = {k: f"canary-{k}-{secrets.token_hex(8)}" for k in ("hidden-tests", "solutions")}
WRITES = ("wrote ", "deleted ", "link ", "startup file in ")  # how attacks say they changed a path
PLACES = {"course": None, "home": None, "site-packages": SITE, "lesson packages": None, "machine": Path("/")}


def grader_env(home: Path) -> dict:
    """isolated_env(), with nothing of this machine's own environment beyond what grading needs."""
    return {k: v for k, v in isolated_env(home).items() if k in KEEP_ENV}


def with_canaries(source_nb, hidden: str, solution: str):
    """The instructor's notebook with a canary line in every hidden-test and solution region."""
    nb = nbformat.from_dict(source_nb)
    for cell in nb.cells:
        cell.source = cell.source.replace("### END HIDDEN TESTS", f"# {hidden}\n### END HIDDEN TESTS")
        cell.source = cell.source.replace("### BEGIN SOLUTION", f"### BEGIN SOLUTION\n# {solution}", 1)
    return nb


def honest_answers() -> dict:
    return solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))


def classmates(release, canaries: dict) -> dict:
    right = honest_answers()
    wrong_loop = textwrap.dedent(next(e for e in catalogue.TRAIN_LOOP
                                      if e.name == "cleared_once_before_loop").source).strip()
    signed = {s: {k: f"{v}\n# {canaries[s]}\n" for k, v in right.items()} for s in ("alice", "zoe")}
    return {"alice": fill(release, signed["alice"]), "zoe": fill(release, signed["zoe"]),
            "carol": fill(release, dict(right, train_loop=wrong_loop))}


def grade_class(folder: Path, run: str, attacks: list) -> Run:
    """Grade a class with ``attacks`` among it. The grader imports a copy of the lesson packages
    (``PYTHONPATH``), so an attack that got through changes that copy, never this repository."""
    root, home, packages = folder / "course", folder / "home", folder / "packages"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, packages / package, ignore=shutil.ignore_patterns("__pycache__"))
    env = grader_env(home)
    env["PYTHONPATH"] = str(packages)
    marker = secrets.token_hex(8)
    canary = {k: f"canary-{k}-{secrets.token_hex(8)}" for k in
              ("environment", "command-line", "home", "alice", "zoe", "exchange")} | SOURCE_CANARIES
    env["AUTOGRADER_TEST_SECRET"] = canary["environment"]
    (home / ".pgpass").write_text(f"localhost:5432:*:instructor:{canary['home']}\n")
    (home / ".jupyter").mkdir(parents=True, exist_ok=True)
    (home / ".jupyter" / "nbgrader_config.py").write_text("# the instructor's own nbgrader settings\n")
    (home / ".bashrc").write_text("# the instructor's shell settings\n")

    root.mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source")
    source = root / "source" / NAME / f"{NAME}.ipynb"
    nbformat.write(with_canaries(read(source), canary["hidden-tests"], canary["solutions"]), str(source))
    generate(root, {k: v for k, v in env.items() if k != "PYTHONPATH"}, NAME)  # (see SOURCE_CANARIES)
    (root / "zz-course-canary.txt").write_text("the instructor's notes\n")
    release = read(root / "release" / NAME / f"{NAME}.ipynb")
    submissions = classmates(release, canary)
    values = {"MARKER": marker, "ROOT": root, "HOME": home, "SITE": SITE, "PKG": packages}
    for attack in attacks:
        submissions[attack.student] = fill(release, cell_sources(attack, honest_answers(), values))
        if attack.edit:
            submissions[attack.student] = attack.edit(submissions[attack.student])
    for student, nb in submissions.items():
        target = root / "submitted" / student / NAME
        target.mkdir(parents=True)
        nbformat.write(nb, str(target / f"{NAME}.ipynb"))
    for attack in attacks:
        if attack.files:
            attack.files(root / "submitted" / attack.student / NAME, {"root": root, "home": home})

    listener = Listener(home / "zz-instructor.sock", f"zz-instructor-{marker}")
    exchanged = plant_in_exchange(marker, canary["exchange"])
    before = snapshot(root, home, packages, marker)
    result = folder / "wrapper.json"
    budget = BUDGET.get(run, 240)
    try:
        subprocess.run([sys.executable, "-c", SUBREAPER, str(result), str(budget), marker,
                        canary["command-line"], str(BIN / "autograder"), "grade", NAME, "--jobs", "2",
                        "--timeout", "10"], cwd=root, env=env, timeout=budget + 120, check=True)
    finally:
        listener.close()
        shutil.rmtree(exchanged[0], ignore_errors=True)
        for folder in exchanged[1:]:  # the exchange's folders this run made, if nobody else uses them
            try:
                folder.rmdir()
            except OSError:
                pass
    after = snapshot(root, home, packages, marker)
    wrapper = json.loads(result.read_text())
    output = Path(f"{result}.out").read_text() + Path(f"{result}.err").read_text()
    graded = Run(run, attacks, root, home, canary, wrapper, output, heard=listener.heard, packages=packages)
    graded.changes = {place: differences(before[place], after[place]) for place in before}
    read_gradebook(graded)
    read_students(graded, [*CLASSMATES, *(a.student for a in attacks)])
    flatten(folder)  # (pytest could not remove a chain set aside in quarantine)
    for here, _, names in walk(root):  # a gigabyte an attacker left: not kept in tmp
        for name in names:
            if name.startswith("zz-") and name.endswith(".bin"):
                os.unlink(os.path.join(here, name))
    return graded


def plant_in_exchange(marker: str, text: str) -> list:
    """A classmate's submission in nbgrader's default exchange, holding ``text``: what an attacker
    must not read. Returns what to remove afterwards: the planted course, then the exchange's
    folders that did not exist before (deepest first)."""
    made = [p for p in (EXCHANGE, EXCHANGE.parent) if not p.exists()]
    folder = EXCHANGE / f"zz-course-{marker}" / "inbound" / f"zz-classmate+03_zeroing_grad+{marker}"
    folder.mkdir(parents=True)
    (folder / "03_zeroing_grad.ipynb").write_text(json.dumps({"cells": [{"source": text}]}))
    return [EXCHANGE / f"zz-course-{marker}", *made]


def read_gradebook(run: Run) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{run.root / 'gradebook.db'}") as gb:
        run.students_in_gradebook = {s.id for s in gb.students}
        for student in gb.students:
            try:
                grades = gb.find_submission_notebook(NAME, NAME, student.id).grades
            except Exception:  # never graded
                continue
            run.scores[student.id] = {g.name: g.score for g in grades}
            run.rows[student.id] = {g.name: (g.auto_score, g.manual_score, g.extra_credit,
                                             g.needs_manual_grade) for g in grades}


def _texts(folder: Path, pattern: str = "*") -> dict:
    """The files of a folder as a student would receive them (links followed, special files
    skipped), each up to 20 MB."""
    out = {}
    if not folder.exists():
        return out
    for dirpath, dirs, names in os.walk(folder, followlinks=False):
        for name in names + [d for d in dirs if Path(dirpath, d).is_symlink()]:
            path = Path(dirpath, name)
            if not path.match(pattern):
                continue
            out[str(path.relative_to(folder))] = ""
            try:
                if stat.S_ISREG(path.stat().st_mode):
                    with open(path, "rb") as f:
                        out[str(path.relative_to(folder))] = f.read(20 * 2**20).decode(errors="replace")
            except OSError:
                pass
    return out


def read_students(run: Run, students: list) -> None:
    by_student = {a.student: a for a in run.attacks}
    for student in students:
        run.feedback[student] = _texts(run.root / "feedback" / student)
        run.folders[student] = {
            place: {str(p.relative_to(run.root / place / student))
                    for p in (run.root / place / student).rglob("*")} if (run.root / place / student).is_dir()
            else set() for place in ("autograded", "feedback")}
        if student in by_student:
            name = by_student[student].name
            autograded = _texts(run.root / "autograded" / student / NAME, "*.ipynb")
            text = "".join(autograded.values()) + "".join(run.feedback[student].values())
            run.evidence[name] = sorted(set(re.findall(r"REACHED\[" + re.escape(name) + r":([^\]\n]*)\]",
                                                       text.replace("\\n", "\n"))))


# -- fixtures ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """run name → Run, graded on first use (so `-k` on one run grades only that run and the baseline)."""
    cache: dict = {}

    def get(run: str) -> Run:
        if run not in cache:
            folder = tmp_path_factory.mktemp(run)
            try:
                cache[run] = grade_class(folder, run, [a for a in ATTACKS if a.run == run])
            finally:
                remove_attack_leftovers(folder / "packages")  # (and what reached site-packages)
        return cache[run]

    return get


@pytest.fixture(scope="module")
def baseline(graded) -> Run:
    return graded("baseline")


def attacker_run(graded, attack: Attack) -> Run:
    return graded(attack.run)


# -- the honest class alone: the reference the attack runs are compared with ----------------------
@pytest.mark.slow
def test_honest_class_graded_alone(baseline):
    assert baseline.wrapper["returncode"] == 0 and not baseline.wrapper["timed_out"], baseline.output
    full = sum(POINTS.values())
    assert {s: sum(v.values()) for s, v in baseline.scores.items()} == {
        "alice": full, "carol": full - POINTS["train_loop_tests"], "zoe": full}
    assert baseline.wrapper["survivors"] == [], "honest grading left processes behind"
    assert baseline.changes["course"] == [] and baseline.changes["site-packages"] == []
    assert baseline.changes["lesson packages"] == []
    for student in CLASSMATES:
        html = "".join(baseline.feedback[student].values())
        assert baseline.secrets["hidden-tests"] not in html and baseline.secrets["environment"] not in html


# -- every attack --------------------------------------------------------------------------------
def _ids(attacks):
    return [a.name for a in attacks]


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_attack_costs_exactly_its_wrong_answers(graded, attack):
    run = attacker_run(graded, attack)
    scores = run.scores.get(attack.student)
    assert scores is not None, f"{attack.name}: the attacker was never graded (run '{run.name}': " \
                               f"{_run_state(run)})"
    assert set(scores) == set(POINTS) and all((scores[c] or 0) <= POINTS[c] for c in POINTS), (
        f"{attack.name} broke 'the instructor's cells and points count': scores {scores}")
    lost = {cell for cell, score in scores.items() if (score or 0) < POINTS[cell]}
    gained = set(attack.lost) - lost
    collateral = lost - set(attack.lost)
    assert not gained, (f"{attack.name} broke 'points are decided where no student code runs': it earned "
                        f"points for {sorted(gained)} with wrong answers. Expected: {attack.expect}")
    assert not collateral, (f"{attack.name} lost {sorted(collateral)} beside its wrong answers "
                            f"{sorted(attack.lost)} (scores {scores}; {_run_state(run)}). "
                            f"Expected: {attack.expect}")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_attack_reaches_nothing(graded, attack):
    run = attacker_run(graded, attack)
    assert attack.student in run.scores, f"{attack.name}: never graded ({_run_state(run)})"
    assert run.evidence.get(attack.name) == [], (
        f"{attack.name} broke the sandbox: it reached {run.evidence.get(attack.name)}. Expected: {attack.expect}")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_no_secret_reaches_the_attackers_feedback(graded, attack):
    run = attacker_run(graded, attack)
    files = run.feedback.get(attack.student, {})
    assert files, f"{attack.name}: no feedback was generated for the attacker ({_run_state(run)})"
    leaked = sorted({(secret, name) for name, text in files.items()
                     for secret, value in run.secrets.items() if value in text})
    leaked += sorted({("Quick Check key", name) for name, text in files.items() if KEY.search(text)})
    assert not leaked, (f"{attack.name} broke 'no secret reaches the student': its feedback holds "
                        + ", ".join(f"the {secret} canary (in {name})" for secret, name in leaked))


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_nothing_the_attacker_wrote_is_live_in_its_pages(graded, baseline, attack):
    """Its feedback page, and its autograded notebook as formgrader renders it (nbconvert's
    classic template, which formgrader's extends), against the same pages of an honest student."""
    run = attacker_run(graded, attack)
    feedback = "".join(run.feedback.get(attack.student, {}).values())
    assert feedback, f"{attack.name}: no feedback ({_run_state(run)})"
    found = live(feedback, "".join(baseline.feedback["alice"].values()))
    honest = baseline.root / "autograded" / "alice" / NAME / f"{NAME}.ipynb"
    page = formgrader_page(run.root / "autograded" / attack.student / NAME / f"{NAME}.ipynb", honest)
    found += live(page, rendered(honest))
    assert not found, f"{attack.name} broke 'no student content is live in any page': {found[:8]}"
    # nor typeset by MathJax (its text, as MathJax scans a page: ``pages.typeset``)
    found = typeset(feedback, "".join(baseline.feedback["alice"].values()))
    found += typeset(page, rendered(honest))
    assert not found, f"{attack.name} broke 'nothing of a student's is typeset on a page': {found[:8]}"


def _locked_outputs(path: Path) -> dict:
    """grade id → outputs of each locked code cell that is not a test cell (a question cell, the setup)."""
    if not path.is_file():
        return {}
    return {c.metadata["nbgrader"]["grade_id"]: c.get("outputs", []) for c in read(path).cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("locked")
            and not c.metadata["nbgrader"].get("grade") and not c.metadata["nbgrader"].get("solution")}


def test_the_cells_that_differ_find_what_the_whole_page_finds(tmp_path):
    """``formgrader_page`` finds in an attacker's page exactly what the whole page shows that
    the honest student's does not: markup in an answer, in an output, in a markdown cell, and an
    element left open in front of a cell of the lesson."""
    honest = fill(read(ROOT / "release" / NAME / f"{NAME}.ipynb"), solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb")))
    attacker = nbformat.from_dict(json.loads(json.dumps(honest)))
    code = [c for c in attacker.cells if c.cell_type == "code"]
    answer = next(c for c in code if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = 'x = 1  # <img src=x onerror=alert(1)> $x$'
    answer.metadata["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00Z"}  # (timing: not a difference)
    code[3].outputs = [nbformat.v4.new_output("display_data", {"text/html": "<b onclick=alert(2)>$y$</b>"})]
    code[5].outputs = [nbformat.v4.new_output("display_data", {"text/html": '<div class="tex2jax_process"><pre>'})]
    attacker.cells.insert(7, nbformat.v4.new_markdown_cell("<img src=x onerror=alert(3)> $z$"))
    paths = {}
    for name, nb in (("honest", honest), ("attacker", attacker)):
        paths[name] = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, str(paths[name]))
    whole, base = rendered.__wrapped__(paths["attacker"]), rendered.__wrapped__(paths["honest"])
    part = formgrader_page(paths["attacker"], paths["honest"])
    assert len(part) < len(whole) * 0.8
    assert live(part, base) == live(whole, base) and len(live(whole, base)) >= 3, live(whole, base)
    assert typeset(part, base) == typeset(whole, base) and typeset(whole, base), typeset(whole, base)


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_locked_cells_show_the_graders_own_output(graded, baseline, attack):
    """A question cell shows the question the grader draws, the setup cell nothing of the kernel's,
    whatever the attacker's kernel displayed: the same as the honest student's (no course secret:
    every student's variant is the published one)."""
    run = attacker_run(graded, attack)
    mine = _locked_outputs(run.root / "autograded" / attack.student / NAME / f"{NAME}.ipynb")
    honest = _locked_outputs(baseline.root / "autograded" / "alice" / NAME / f"{NAME}.ipynb")
    assert mine and honest, f"{attack.name}: no autograded notebook ({_run_state(run)})"
    differ = sorted(cell for cell in mine if cell in honest and mine[cell] != honest[cell])
    assert not differ, f"{attack.name} broke 'a locked cell shows the grader's output': {differ}"


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_what_comes_back_to_the_attacker_is_small(graded, attack):
    run = attacker_run(graded, attack)
    sizes = {f"{place}/{path.name}": path.stat().st_size for place in ("autograded", "feedback")
             for path in (run.root / place / attack.student).rglob("*") if path.is_file()}
    assert sizes and all(size <= MAX_BACK for size in sizes.values()), (
        f"{attack.name} broke 'total output per notebook is bounded': {sizes}")
    # and in number: the budget keeps at most MAX_OUTPUTS, then one note per cell and kind of output
    cells = read(run.root / "autograded" / attack.student / NAME / f"{NAME}.ipynb").cells
    outputs = sum(len(cell.get("outputs", [])) for cell in cells)
    assert outputs <= MAX_OUTPUTS + 4 * len(cells), f"{attack.name}: {outputs} outputs came back"


@functools.lru_cache(maxsize=1)
def _classic():
    """One exporter for every page, whose filters remember what they made of a text: the code,
    prose and its cleaning are the lesson's own on ~100 of the 110 cells of every attacker's page,
    and rendering them again was two thirds of a page's 0.8 s. What they make of a text is the
    same each time (``test_a_page_rendered_again_is_the_same``)."""
    from jinja2 import pass_context
    from nbconvert import HTMLExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.strings import clean_html

    made: dict = {}

    def remembered(key, make):
        if key not in made:
            made[key] = make()
        return made[key]

    class Highlight(Highlight2HTML):
        def __call__(self, source, language=None, metadata=None):
            return remembered(("code", source, language, self.pygments_lexer, repr(metadata)),
                              lambda: super(Highlight, self).__call__(source, language, metadata))

    class Classic(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            info = nb.metadata.get("language_info", {})  # (HTMLExporter's own choice of lexer)
            self.filters["highlight_code"] = Highlight(pygments_lexer=info.get("pygments_lexer", info.get("name")),
                                                       parent=self)
            return super().from_notebook_node(nb, resources, **kw)

        @pass_context
        def markdown2html(self, context, source):
            if context.get("cell", {}).get("attachments"):  # (an attachment's image is the cell's own)
                return super().markdown2html(context, source)
            return remembered(("markdown", source), lambda: super(Classic, self).markdown2html(context, source))

    exporter = Classic(template_name="classic")
    exporter.filters = {"clean_html": lambda html: remembered(("clean", str(html)), lambda: clean_html(html))}
    return exporter


@functools.lru_cache(maxsize=2)  # the honest student's page, compared with every attacker's
def rendered(path: Path) -> str:
    """The notebook as formgrader shows it (nbconvert's classic page)."""
    return _classic().from_filename(str(path))[0] if path.is_file() else ""


def formgrader_page(path: Path, honest: Path) -> str:
    """The attacker's notebook as formgrader shows it (``rendered``), with only the cells that
    differ from the honest student's (their timing, ``metadata.execution``, aside: no page shows
    it) and the cell after each, so that markup a cell leaves open still meets a cell of the
    lesson. Every other cell is the honest student's own, on the page the attacker's is compared
    with: what ``live`` and ``typeset`` find in it is excused there. ~7 of a page's 87 cells
    differ, and the page costs a quarter of the CPU (0.17 s, not 0.69 s). Its feedback page,
    the same cells in the same classic template, is still read whole."""
    if not path.is_file():
        return ""
    nb = read(path)
    same = _cell_keys(honest)
    differ = [i for i, cell in enumerate(nb.cells) if _cell_key(cell) not in same]
    keep = sorted({j for i in differ for j in (i, i + 1) if j < len(nb.cells)})
    nb.cells = [nb.cells[i] for i in keep]
    return _classic().from_notebook_node(nb)[0]


@functools.lru_cache(maxsize=2)
def _cell_keys(path: Path) -> frozenset:
    return frozenset(_cell_key(cell) for cell in read(path).cells) if path.is_file() else frozenset()


def _cell_key(cell) -> str:
    shown = {name: value for name, value in cell.items() if name != "metadata"}
    shown["metadata"] = {name: value for name, value in cell.get("metadata", {}).items() if name != "execution"}
    return json.dumps(shown, sort_keys=True)


def test_a_page_rendered_again_is_the_same(tmp_path):
    """What ``rendered`` remembers changes no page: a lesson with an attacker's answer, rendered by a
    fresh exporter of nbconvert's, and by the one that has already rendered the lesson."""
    from nbconvert import HTMLExporter

    lesson = fill(read(ROOT / "release" / NAME / f"{NAME}.ipynb"), solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb")))
    page = tmp_path / "lesson.ipynb"
    nbformat.write(lesson, str(page))
    rendered.__wrapped__(page)
    answer = next(c for c in lesson.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = '<script>alert(1)</script>\nx = 1  # <img src=x onerror=alert(1)>'
    lesson.cells.append(nbformat.v4.new_markdown_cell("<b onclick=alert(1)>$x$</b> and **more**"))
    nbformat.write(lesson, str(page))
    assert rendered.__wrapped__(page) == HTMLExporter(template_name="classic").from_filename(str(page))[0]


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_attacker_leaves_nothing_behind(graded, baseline, attack):
    run = attacker_run(graded, attack)
    submitted = run.root / "submitted" / attack.student
    own = {str(p.relative_to(submitted)) for p in submitted.rglob("*")
           if (p.is_file() or p.is_dir()) and not p.is_symlink()}  # (folders: those its files are in)
    for place in ("autograded", "feedback"):
        extra = run.folders.get(attack.student, {}).get(place, set()) - baseline.folders["alice"][place]
        extra -= own if place == "autograded" else set()  # (nbgrader keeps a submission's own files beside it)
        assert not extra, (f"{attack.name} broke 'nothing is copied back from the kernel's folder': "
                           f"{place}/{attack.student} holds {sorted(extra)[:10]}")


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
def test_no_process_of_the_attacker_outlives_grading(graded, attack):
    run = attacker_run(graded, attack)
    marks = (f"zz-attack:{attack.name}", short_tag(attack), *attack.marks)
    mine = [p for p in run.wrapper["survivors"] if any(m in p["cmdline"] or m == p["comm"] for m in marks)]
    assert not mine, (f"{attack.name} broke 'nothing the kernel starts outlives it': still running after "
                      f"grading: " + "; ".join(f"{p['pid']} {p['comm']}: {p['cmdline'][:150]}" for p in mine))


# -- every run -----------------------------------------------------------------------------------
def _run_state(run: Run) -> str:
    w = run.wrapper
    state = "timed out" if w["timed_out"] else f"exit code {w['returncode']}"
    return f"grading {state} after {w['seconds']:.0f} s"


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_grading_run_completes(graded, run_name):
    run = graded(run_name)
    assert run.wrapper["returncode"] == 0 and not run.wrapper["timed_out"], (
        f"run '{run_name}': {_run_state(run)}; attacks that reached something: {run.suspects()}\n"
        + run.output[-3000:])
    expected = {*CLASSMATES, *(a.student for a in run.attacks)}
    assert set(run.scores) == expected, f"run '{run_name}': not graded: {sorted(expected - set(run.scores))}"


# what a terminal takes as a command: C0 but new line and tab, DEL, C1, bidirectional controls
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_the_instructor_reads_text_and_the_class_report(graded, run_name):
    """What `autograder grade` printed holds no control character (the attackers' error names and
    reports are full of escape sequences), and the class report was written, whatever their data."""
    run = graded(run_name)
    found = [line for line in run.output.splitlines() if CONTROLS.search(line)]
    assert not found, f"run '{run_name}': the instructor's terminal got control characters: {found[:5]!r}"
    assert (run.root / "reports" / f"{NAME}.html").is_file() and "class report: " in run.output, (
        f"run '{run_name}': no class report ({_run_state(run)})\n" + run.output[-3000:])


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_classmates_do_not_move(graded, baseline, run_name):
    run = graded(run_name)
    moved = {s: (baseline.scores.get(s), run.scores.get(s)) for s in CLASSMATES
             if run.scores.get(s) != baseline.scores.get(s)}
    assert not moved, (f"run '{run_name}': classmates' scores moved (baseline, now): {moved}; "
                       f"suspects: {run.suspects()} ({_run_state(run)})")
    rows = {s: run.rows.get(s) for s in CLASSMATES if run.rows.get(s) != baseline.rows.get(s)}
    assert not rows, f"run '{run_name}': classmates' gradebook rows changed: {rows}; suspects: {run.suspects()}"
    strangers = run.students_in_gradebook - {*CLASSMATES, *(a.student for a in run.attacks)}
    assert not strangers, f"run '{run_name}': students nobody submitted for: {strangers}; suspects: {run.suspects()}"


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_nothing_outside_the_attackers_folders_changes(graded, baseline, run_name):
    run = graded(run_name)
    found = []
    for place, changes in run.changes.items():
        legit = set(baseline.changes[place]) if place == "home" else set()
        top = {"course": run.root, "home": run.home, "lesson packages": run.packages}.get(place) or PLACES[place]
        for change in changes:
            relative = change.split(" ", 1)[1].split(" (")[0]
            own = place == "course" and any(relative.startswith(f"submitted/{a.student}/") for a in run.attacks)
            if change not in legit and not own:  # (an attacker's own submitted folder is its own)
                path = top / relative
                found.append(f"{place}: {change} (by {', '.join(run.culprits(path))})")
    for student in CLASSMATES:
        for place in ("autograded", "feedback"):
            if run.folders[student][place] != baseline.folders[student][place]:
                found.append(f"course: {place}/{student} holds {sorted(run.folders[student][place])} "
                             f"instead of {sorted(baseline.folders[student][place])} "
                             f"(by {', '.join(run.culprits(run.root / place / student / NAME))})")
    for place in ("autograded", "feedback"):
        folder = run.root / place
        others = {p.name for p in folder.iterdir()} - {*CLASSMATES, *(a.student for a in run.attacks)} \
            if folder.is_dir() else set()
        if others:
            found.append(f"course: {place}/ holds {sorted(others)} (suspects {run.suspects()})")
    assert not found, f"run '{run_name}' changed things outside the attackers' folders:\n" + "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_no_process_outlives_grading(graded, run_name):
    run = graded(run_name)
    survivors = run.wrapper["survivors"]
    assert not survivors, (f"run '{run_name}': {len(survivors)} processes outlived grading ({_run_state(run)}): "
                           + "; ".join(f"{p['pid']} {p['comm']}: {p['cmdline'][:120]}" for p in survivors[:12]))
    assert run.wrapper["left"] == [], f"run '{run_name}': processes the wrapper could not kill: {run.wrapper['left']}"


@pytest.mark.slow
@pytest.mark.parametrize("run_name", RUNS)
def test_instructor_sockets_are_not_reached(graded, run_name):
    run = graded(run_name)
    assert not run.heard, f"run '{run_name}': the instructor's sockets got connections: {run.heard}"


def test_catalogue_is_consistent():
    """Every attack names answer cells that exist and test cells it may lose, its cells are
    Python once filled in, and its process name fits."""
    import ast

    honest = honest_answers()
    values = {"MARKER": "0" * 16, "ROOT": "/course", "HOME": "/home", "SITE": SITE, "PKG": ROOT}
    for attack in ATTACKS:
        assert set(attack.cells) <= set(honest), attack.name
        assert set(attack.lost) <= set(POINTS), attack.name
        assert attack.cells or attack.files or attack.edit, attack.name
        assert len(short_tag(attack)) <= 15 and BY_NAME[attack.name] is attack
        for grade_id, source in cell_sources(attack, honest, values).items():
            ast.parse(source, f"{attack.name}:{grade_id}")
            assert "@" + "HONEST@" not in source and not re.search(r"@[A-Z]+@", source), (attack.name, grade_id)
