"""What the hub test uses: real Unix users (created as root, removed afterwards), nbgrader's
exchange in its default place, a Python environment every user can run, a JupyterHub with its
proxy started from ``tests/hub/jupyterhub_config.py``, and a browser session per user.

Everything here is made for one run and taken away after it, also when the run fails: each
user (its home, its processes), the exchange folders the run created, the hub and its proxy.
"""
from __future__ import annotations

import contextlib
import datetime
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from browser_helpers import free_port, wait_for_idle_kernel
from helpers import ROOT

HUB = ROOT / "tests" / "hub"
CHP = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
# nbgrader's default exchange (c.Exchange.root) and this course's id (nbgrader_config.py)
EXCHANGE = Path("/usr/local/share/nbgrader/exchange")
COURSE_ID = "autograd-lessons"
# the comment (GECOS field) of every user this test creates: what a later run may remove
MARK = "autograd-lessons hub test"
BIN = Path(sys.executable).parent


# ----------------------------------------------------------------------------------- users

@dataclass(frozen=True)
class User:
    name: str
    role: str  # "student" or "instructor"
    password: str

    @property
    def entry(self) -> pwd.struct_passwd:
        return pwd.getpwnam(self.name)

    @property
    def home(self) -> Path:
        return Path(self.entry.pw_dir)


def create_user(name: str, role: str, password: bool = True) -> User:
    """A Unix user with a home only they can enter (mode 0700) and a random password (none, a
    locked one, with ``password=False``: a student who only ever comes from the LMS).

    Debian's useradd gives a new home mode 0755 (``HOME_MODE`` is not set in
    /etc/login.defs): every other user could read it, so the home is made 0700, as a hub's
    administrator must. A user of this name left behind by an interrupted run is removed first;
    anyone else of that name stops the test."""
    if os.geteuid() != 0:
        pytest.fail("the hub test creates Unix users: run it as root (CI does)")
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        pass
    else:
        if entry.pw_gecos != MARK:
            pytest.fail(f"a user named {name} already exists and was not made by this test")
        remove_user(name)
    run(["useradd", "--create-home", "--shell", "/bin/bash", "--comment", MARK,
         "--key", "HOME_MODE=0700", name])
    user = User(name, role, secrets.token_urlsafe(12) if password else "")
    if password:
        subprocess.run(["chpasswd"], input=f"{name}:{user.password}\n", text=True, check=True)
    return user


def remove_user(name: str) -> None:
    """Stop every process of the user (each by its id), then remove the user and its home."""
    uid = pwd.getpwnam(name).pw_uid
    kill_processes_of(uid)
    run(["userdel", "--remove", name], ok=(0, 12))  # 12: no mail spool to remove
    if Path("/home", name).exists():
        shutil.rmtree(Path("/home", name))


def processes_of(uid: int) -> list:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            real = re.search(r"^Uid:\s+(\d+)", status, re.M)
            if real and int(real.group(1)) == uid:
                found.append(int(entry.name))
    return found


def kill_processes_of(uid: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while pids := processes_of(uid):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            pytest.fail(f"processes {pids} of uid {uid} outlived SIGKILL")
        time.sleep(0.1)  # polling /proc until the killed processes are gone


def run(argv: list, ok=(0,), **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode not in ok:
        pytest.fail(f"{' '.join(map(str, argv))} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result


def as_user(user: User, argv: list, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``argv`` run as ``user`` (their uid, gid and groups, their home), not as root."""
    entry = user.entry
    base = {"HOME": str(user.home), "USER": user.name, "LOGNAME": user.name, "LANG": "C.UTF-8",
            "PATH": "/usr/local/bin:/usr/bin:/bin"}
    return subprocess.run(argv, user=entry.pw_uid, group=entry.pw_gid,
                          extra_groups=os.getgrouplist(user.name, entry.pw_gid),
                          env={**base, **(env or {})}, cwd=user.home, capture_output=True,
                          text=True, **kwargs)


# --------------------------------------------------------------------- the course's Python

def can_run(user: User, argv: list) -> bool:
    try:
        return as_user(user, argv).returncode == 0
    except OSError:  # the program cannot be run (or found) by this user
        return False


def course_environment(folder: Path, user: User) -> Path:
    """The ``bin`` folder of a Python environment with the course installed that ``user`` (any
    hub user) can run: the one running the tests, if it can; else one made in ``folder``.

    A virtual environment runs its base interpreter, and the project's may be one under /root
    (pyenv on the course machines), which no other user may enter. Then the hub's users get the
    same interpreter, its standard library linked (hard links) into ``folder``, and a virtual
    environment of it whose site-packages, Jupyter data and configuration are the project's
    (symbolic links), with the project's commands (their first line pointing at it). The
    packages are the very same files in the interpreter's own site-packages (the grader tells a
    student's code from installed code by that folder), run by the very same build of Python.
    (Not the system's Python: Debian 12's is 3.11.2, and the installed soupsieve, which
    nbconvert's HTML export uses, needs 3.11.5.)"""
    if can_run(user, [sys.executable, "-c", "import lessons, autograder, nbgrader, jupyterhub"]):
        return BIN
    python = public_interpreter(folder / "python")
    if not can_run(user, [str(python), "-c", "import os"]):
        pytest.fail(f"cannot give other users a copy of {Path(sys.executable).resolve()} to run")
    env = folder / "env"
    run([str(python), "-m", "venv", "--without-pip", str(env)])
    site = Path(sysconfig.get_paths(vars={"base": str(env), "platbase": str(env)})["purelib"])
    site.rmdir()
    site.symlink_to(sysconfig.get_paths()["purelib"])
    for part in ("share/jupyter", "etc/jupyter"):
        (env / part).parent.mkdir(parents=True, exist_ok=True)
        (env / part).symlink_to(Path(sys.prefix) / part)
    for script in BIN.iterdir():
        if script.is_file() and not script.is_symlink() and os.access(script, os.X_OK):
            first, _, rest = script.read_bytes().partition(b"\n")
            if first.startswith(b"#!") and Path(first[2:].decode().strip()).parent == BIN:
                target = env / "bin" / script.name
                if not target.exists():
                    target.write_bytes(b"#!" + str(env / "bin" / "python").encode() + b"\n" + rest)
                    target.chmod(0o755)
    check = as_user(user, [str(env / "bin" / "python"), "-I", "-c", "import lessons, autograder, nbgrader, torch"])
    if check.returncode != 0:
        pytest.fail(f"the hub users' Python environment {env} does not work:\n{check.stderr}")
    return env / "bin"


def public_interpreter(into: Path) -> Path:
    """The running virtual environment's base interpreter, set up in ``into``: its program (a
    copy whose library search path, if it names the base installation, becomes
    ``$ORIGIN/../lib``), its shared libraries and standard library (hard links; no site-packages
    or test suite). Returns the program."""
    base = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    program = into / "bin" / version
    program.parent.mkdir(parents=True)
    old = str(base / "lib").encode() + b"\0"
    new = b"$ORIGIN/../lib\0"
    binary = (base / "bin" / version).resolve().read_bytes()
    program.write_bytes(binary.replace(old, new.ljust(len(old), b"\0")) if len(new) <= len(old) else binary)
    program.chmod(0o755)
    (into / "lib").mkdir()
    for library in (base / "lib").glob("libpython*"):
        if library.is_symlink():
            (into / "lib" / library.name).symlink_to(library.readlink())
        else:
            os.link(library, into / "lib" / library.name)  # a hard link: no copy of the data
    stdlib = base / "lib" / version
    shutil.copytree(stdlib, into / "lib" / version, symlinks=True, copy_function=os.link,
                    ignore=lambda folder, names: {"site-packages", "test"} & set(names)
                    if folder == str(stdlib) else [])
    for folder in [into, *into.rglob("*")]:
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o755)
    return program


# ---------------------------------------------------------------------------- the exchange

@contextlib.contextmanager
def default_exchange(users: list):
    """nbgrader's exchange in its default place, ``/usr/local/share/nbgrader/exchange``,
    set up as nbgrader's documentation says (a folder every user can write to: nbgrader's
    release checks for mode 777 and changes any other) with the sticky bit on top, as /tmp
    has, so that nobody renames or removes another user's folder in it.

    The course's folder in it (``autograd-lessons``) must not exist yet, unless an interrupted
    run of this test left it (its owner is gone or is one of this test's users): it is removed
    afterwards, with every folder above it that this run created."""
    course = EXCHANGE / COURSE_ID
    if course.exists():
        owner = course.stat().st_uid
        ours = {u.entry.pw_uid for u in users}
        try:
            pwd.getpwuid(owner)
        except KeyError:
            ours.add(owner)  # its owner was removed: left by an interrupted run
        if owner not in ours:
            pytest.fail(f"{course} exists (owner uid {owner}): this test would mix with a real course")
        shutil.rmtree(course)
    created = [p for p in (EXCHANGE.parent.parent, EXCHANGE.parent, EXCHANGE) if not p.exists()]
    for folder in created:
        folder.mkdir(exist_ok=True)  # (test_attacks, on the other worker, may make it first)
        folder.chmod(0o755)
    old_mode = EXCHANGE.stat().st_mode & 0o7777
    EXCHANGE.chmod(0o1777)
    try:
        yield EXCHANGE
    finally:
        shutil.rmtree(course, ignore_errors=True)
        if EXCHANGE not in created:
            EXCHANGE.chmod(old_mode)
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()


# ------------------------------------------------------------------------------- the hub

@dataclass
class Hub:
    url: str  # the hub's public address, http://localhost:<port>
    log: Path

    def server(self, user: User) -> str:
        """The address of ``user``'s server: a host of its own (``subdomain_host``)."""
        host = urllib.parse.urlsplit(self.url)
        return f"{host.scheme}://{user.name}.{host.netloc}/user/{user.name}"


@contextlib.contextmanager
def jupyterhub(state: Path, environment: dict, log: Path):
    """JupyterHub (as root) with ``tests/hub/jupyterhub_config.py``; it starts its proxy,
    configurable-http-proxy. ``environment`` holds the COURSE_* settings the file reads.

    The hub's address is ``localhost``, each user's server at ``<user>.localhost``: Chromium
    takes every ``*.localhost`` name for loopback itself (the system's resolver does not, so
    requests to a user's server go through the browser: ``fetch_in_page``)."""
    if not CHP.exists():
        pytest.fail(f"{CHP} is missing: run `npm ci` in {HUB}")
    ports = {name: free_port() for name in ("HUB_PORT", "HUB_API_PORT", "PROXY_API_PORT")}
    url = f"http://localhost:{ports['HUB_PORT']}"
    env = {**os.environ, **environment, **{k: str(v) for k, v in ports.items()},
           "HUB_STATE": str(state), "CHP": str(CHP), "HUB_SUBDOMAIN_HOST": url,
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    with open(log, "w") as out:
        process = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(HUB / "jupyterhub_config.py")],
                                   cwd=state, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_for_http(f"http://127.0.0.1:{ports['HUB_PORT']}/hub/api", process, log)
        yield Hub(url, log)
    finally:
        stop(process)
        stop_proxy(state / "proxy.pid")


def wait_for_http(url: str, process: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    """Until ``url`` answers (through the proxy, so both are up), or the process ends."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=5)
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{url} did not answer:\n{log.read_text()}")
            time.sleep(0.3)  # polling: the hub gives no other sign that it is ready


def stop(process: subprocess.Popen) -> None:
    """SIGTERM (JupyterHub then stops every user's server and the proxy), SIGKILL if it hangs."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def stop_proxy(pid_file: Path) -> None:
    """The proxy, if the hub left it running (JupyterHub stops it on a clean exit)."""
    with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
        pid = int(pid_file.read_text())
        if "configurable-http-proxy" in Path(f"/proc/{pid}/cmdline").read_text():
            os.kill(pid, signal.SIGKILL)


def scratch_folder() -> Path:
    """A folder for the run outside any home, that every user may enter (not its contents)."""
    folder = Path(tempfile.mkdtemp(prefix="autograd-hub-"))
    folder.chmod(0o711)
    return folder


# ----------------------------------------------------------------------- in the browser

ARTIFACTS = ROOT / "test-artifacts"


@dataclass
class Session:
    """One user's browser: their own cookies (a browser context) and page, on their server."""
    user: User
    page: object
    server: str  # the user's server, e.g. http://agl-alice.localhost:8000/user/agl-alice
    errors: list  # what the page reported as errors, and requests that failed

    def shot(self, step: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"hub-{step}.png"))


def log_in(browser, hub, user: User) -> Session:
    """Send the hub's login form as ``user``; the hub then starts their server (not waited for)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url} ({request.failure})"))
    page.goto(f"{hub.url}/hub/login")
    page.fill("#username_input", user.name)
    page.fill("#password_input", user.password)
    page.click("#login_submit")
    return Session(user, page, hub.server(user), errors)


def wait_for_lab(session: Session) -> None:
    """Until the user's JupyterLab (started by the hub after the login) is on the page."""
    session.page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
    assert session.page.url.startswith(session.server + "/lab"), session.page.url


def utc_now() -> datetime.datetime:
    """Now, as nbgrader writes times: UTC, without a time zone."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def wait_for_clock(moment: datetime.datetime) -> None:
    """Until the clock shows ``moment`` (as nbgrader's times) or later."""
    while (left := (moment - utc_now()).total_seconds()) > 0:
        time.sleep(min(left, 0.2))  # waiting for the clock itself: the event is the time


def fetch_in_page(page, url: str) -> tuple:
    """GET ``url`` from the user's JupyterLab page as JupyterLab asks its server (the user's
    cookies and the XSRF token JupyterHub asks of a script's request): the status and the
    Content-Security-Policy header of the answer."""
    return tuple(page.evaluate("""async url => {
        const xsrf = document.cookie.match(/(?:^|;\\s*)_xsrf=([^;]*)/);
        const answer = await fetch(url, {headers: xsrf ? {"X-XSRFToken": xsrf[1]} : {},
                                         signal: AbortSignal.timeout(60000)});
        return [answer.status, answer.headers.get("Content-Security-Policy")];
    }""", url))


# JupyterLab: nbgrader's Assignment List

def assignment_list(page):
    """Open (or bring forward) nbgrader's Assignment List and reload it."""
    page.get_by_role("menuitem", name="Nbgrader", exact=True).click()
    page.locator("#jp-mainmenu-nbgrader").get_by_text("Assignment List").click()
    page.locator("#refresh_assignments_list").filter(visible=True).click()
    page.locator("#released_assignments_list_loading").wait_for(state="hidden", timeout=60_000)
    return page


def assignment_row(page, section: str, name: str):
    """The row of assignment ``name`` in a section: "released", "fetched" or "submitted"."""
    return page.locator(f"#{section}_assignments_list > .list_item").filter(
        has=page.locator(".item_name", has_text=name))


def press_in_row(page, section: str, name: str, button: str, then_section: str) -> None:
    """Press the row's button (Fetch, Submit); wait until the list shows the assignment in
    ``then_section``."""
    assignment_row(page, section, name).get_by_role("button", name=button, exact=True).click()
    assignment_row(page, then_section, name).wait_for(timeout=120_000)


def submissions(page, name: str) -> list:
    """The submissions the Assignment List shows, each as the text of its line."""
    lines = assignment_row(page, "submitted", name).locator(".nested_list_item .item_name")
    return [line.strip() for line in lines.all_inner_texts()]


# JupyterLab: notebooks

def open_notebook(session: Session, path: str, kernel: bool = False) -> None:
    session.page.goto(f"{session.server}/lab/tree/{path}")
    session.page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=90_000)
    if kernel:
        wait_for_kernel(session.page)


def wait_for_kernel(page) -> None:
    wait_for_idle_kernel(page, timeout=120_000)


def cell(page, index: int):
    return page.locator(f'.jp-NotebookPanel:visible .jp-Cell[data-windowed-list-index="{index}"]')


def write_cell(page, index: int, code: str) -> None:
    """Replace the code of the notebook's cell ``index`` with ``code``, as typed (pasted) text."""
    editor = cell(page, index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Escape")  # back to command mode


def add_cell_at_end(page, code: str) -> int:
    """A new code cell after the last one, with ``code``; its index."""
    last = page.locator(".jp-NotebookPanel:visible .jp-Cell").count() - 1
    cell(page, last).locator(".jp-InputPrompt").click()  # selects the cell (command mode)
    page.keyboard.press("b")  # insert a cell below
    cell(page, last + 1).wait_for()
    write_cell(page, last + 1, code)
    return last + 1


def run_cell(page, index: int) -> str:
    """Run cell ``index`` in the notebook's kernel; the text of its output once it has run."""
    cell(page, index).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    cell(page, index).locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]")).wait_for(timeout=60_000)
    return cell(page, index).locator(".jp-OutputArea").inner_text()


def save(page) -> None:
    """Save the open notebook (its toolbar's button) and wait until JupyterLab says it is saved."""
    panel = page.locator(".jp-NotebookPanel").filter(visible=True)
    panel.locator('.jp-NotebookPanel-toolbar [data-command="docmanager:save"]').click()
    page.locator(".lm-TabBar-tab.jp-mod-dirty").wait_for(state="detached", timeout=30_000)


def upload(session: Session, folder: str, file: Path) -> None:
    """Upload ``file`` into ``folder`` with the file browser, replacing a file of that name."""
    page = session.page
    page.goto(f"{session.server}/lab/tree/{folder}")
    page.locator(".jp-DirListing-item").first.wait_for(timeout=60_000)
    with page.expect_file_chooser() as chooser:
        page.locator(".jp-FileBrowser .jp-id-upload").filter(visible=True).first.click()
    chooser.value.set_files(str(file))
    overwrite = page.locator(".jp-Dialog").get_by_role("button", name="Overwrite")
    overwrite.click(timeout=30_000)
    page.locator(".jp-Dialog").wait_for(state="detached", timeout=30_000)


# JupyterLab: a terminal

def run_in_terminal(page, command: str) -> None:
    """Open a terminal from the launcher and type ``command`` in it."""
    page.locator(".lm-TabBar-addButton").filter(visible=True).first.click()
    page.locator(".jp-LauncherCard", has_text="Terminal").click()
    terminal = page.locator(".jp-Terminal").filter(visible=True)
    terminal.locator(".xterm-helper-textarea").wait_for(state="attached", timeout=30_000)
    terminal.click()
    page.keyboard.type(command + "\n")


# formgrader (the instructor's JupyterLab opens on it)

def formgrader(page):
    """Formgrader's Manage Assignments page in the instructor's JupyterLab, once its table of
    assignments has loaded (DataTables draws it then; before, the table says "Loading, please
    wait..." and adding an assignment fails half-way)."""
    frame = page.frame_locator("#formgrader-iframe iframe")
    frame.get_by_role("heading", name="Manage Assignments").wait_for(timeout=60_000)
    frame.locator(".dataTables_wrapper").wait_for(timeout=60_000)
    return frame


def formgrader_row(frame, name: str):
    return frame.locator("#main-table tr", has=frame.get_by_role("link", name=name, exact=True))


def formgrader_action(frame, name: str, column: str) -> str:
    """Click the link in the assignment's column (assign, release, collect, release-feedback):
    the log formgrader shows when nbgrader is done, after it said it succeeded."""
    formgrader_row(frame, name).locator(f"td.{column} a").click()
    modal = frame.locator("#success-modal, #error-modal")
    modal.wait_for(timeout=180_000)
    text = modal.inner_text()
    assert frame.locator("#error-modal").count() == 0, text
    modal.get_by_role("button", name="OK").click()
    modal.wait_for(state="detached", timeout=30_000)
    return text


def add_assignment(page, name: str) -> bool:
    """Add an assignment with formgrader's "Add new assignment..." (no due date yet); whether
    its dialog closed by itself.

    It may not (nbgrader 0.9.6, seen with a table that had not loaded yet, which
    ``formgrader`` now waits for): the assignment is saved, then DataTables fails ("Cannot set
    properties of undefined (setting '_DT_CellIndex')") before the dialog is told to close,
    and the table may show the row twice. So the instructor presses Cancel if the dialog
    stays, and reloads the page once it is saved."""
    frame = formgrader(page)
    frame.get_by_role("link", name="Add new assignment...").click()
    modal = frame.locator("#add-assignment-modal")
    modal.locator("input.name").fill(name)
    with page.expect_response(lambda r: f"/formgrader/api/assignment/{name}" in r.url) as saved:
        modal.get_by_role("button", name="Save").click()
        # Save's handler runs while the click is dispatched: closing starts by dropping "in",
        # and the dialog may be gone already (count() does not wait for it)
        closed = frame.locator("#add-assignment-modal.in").count() == 0
        if not closed:
            modal.get_by_role("button", name="Cancel").click()
    assert saved.value.ok, saved.value.status
    modal.wait_for(state="detached", timeout=30_000)
    page.reload()
    formgrader_row(formgrader(page), name).locator("td.assign a").wait_for(timeout=30_000)
    return closed


def set_due_date(frame, name: str, due) -> None:
    """The assignment's due date (a UTC datetime, to the second), with formgrader's Edit."""
    formgrader_row(frame, name).locator("td.edit a").click()
    modal = frame.locator("#edit-assignment-modal")
    modal.locator("input.modal-duedate").fill(due.strftime("%Y-%m-%dT%H:%M:%S"))
    modal.locator("input.modal-timezone").fill("UTC")
    modal.get_by_role("button", name="Save").click()
    modal.wait_for(state="detached", timeout=30_000)


def start_validation(page) -> None:
    """Press the Validate button on the open notebook (it saves the notebook first): a student's is
    the course's, in the notebook's language (browser_helpers.VALIDATE_BUTTON)."""
    from browser_helpers import VALIDATE_BUTTON

    page.locator(VALIDATE_BUTTON).filter(visible=True).click()


def validation_report(page) -> str:
    """The report of the validation started with ``start_validation``, once it is shown."""
    from browser_helpers import VALIDATION_REPORT

    dialog = page.locator(VALIDATION_REPORT)
    dialog.wait_for(timeout=180_000)
    return dialog.inner_text()


def close_dialog(page) -> None:
    page.keyboard.press("Escape")
    page.locator(".jp-Dialog").wait_for(state="detached", timeout=30_000)


def wait_for_file(path: Path, timeout: float) -> str:
    """The text of ``path`` once a line is written into it (a command's exit status)."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().endswith("\n")):
        if time.monotonic() > deadline:
            pytest.fail(f"{path} was not written in {timeout} s")
        time.sleep(0.5)  # polling the file system: the file is the event
    return path.read_text()
