"""Students launched from the LMS into the course's JupyterHub (LTI 1.3), end to end.

The hub is the session's (tests/hub_course.py: the one test_hub.py runs lesson 3 on), its LMS a
platform of the test's own (tests/lti_platform.py: RSA keys made here, tokens signed with joserfc,
its keyset, OIDC endpoint and course page served over loopback). Lesson 3 is released in nbgrader's
exchange (by test_hub's instructor, or here if that did not run).

sofia   clicks the lesson's link on the course page of the LMS in Chromium, with her LMS in
        Spanish (es-ES): with no password of ours she arrives in her own JupyterLab, in Spanish,
        on lesson 3, fetched for her and in Spanish (its prose; the instructor's code cells);
        the roster the instructor owns records the identifiers the LMS's gradebook needs; a
        link to lesson 2, not released, says so in Spanish.
forged  launches sent by other means (HTTP, as an attacker would): a bad signature, another
        issuer, another tool's audience, an expired token, the nonce of another login, a
        launch posted again with its own cookies, an unregistered deployment, an unsigned
        token, a state not the hub's: each refused, nobody logged in.
ids     a launch whose e-mail is markup, and one without an e-mail, are refused with a page in
        the launch's language that shows nothing of the id; the hub's log says why.
"""
from __future__ import annotations

import pwd
import sqlite3
import time
import urllib.parse

import nbformat
import pytest
from browser_helpers import browser  # noqa: F401  (a fixture)
from helpers import ROOT
from hub_course import LTI_STUDENT, NAME
from hub_helpers import ARTIFACTS, COURSE_ID, EXCHANGE, as_user
from lti_platform import Platform, hmac_signed, initiate, new_key, post_token, unsigned

from autograder import messages
from autograder.instructor import course
from autograder.instructor.hub import roster
from lessons import text as lessons_text

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LOGIN_COOKIES = {"jupyterhub-hub-login", "jupyterhub-session-id"}
PROSE = course.read_prose("es", NAME)  # the lesson's file and its exercises' task cells


@pytest.fixture(scope="module")
def hub(course_hub):
    return course_hub.hub


@pytest.fixture(scope="module")
def platform(course_hub) -> Platform:
    return course_hub.platform


@pytest.fixture(scope="module")
def released(course_hub):
    """Lesson 3 in the exchange: released by test_hub's instructor, or now by the instructor's
    own nbgrader (this module run alone)."""
    hub, teacher = course_hub.hub, course_hub.users.teacher
    if not (EXCHANGE / COURSE_ID / "outbound" / NAME).is_dir():
        for step in (f"generate_assignment {NAME} --force", f"release_assignment {NAME}"):
            done = as_user(teacher, ["sh", "-c", f"cd {hub.course} && nbgrader {step}"],
                           env={"PATH": f"{hub.bin}:/usr/bin:/bin"})
            assert done.returncode == 0, done.stdout + done.stderr
    return nbformat.read(str(EXCHANGE / COURSE_ID / "outbound" / NAME / f"{NAME}.ipynb"), as_version=4)


def logged_in(hub) -> set:
    """Every user the hub has logged in (its database, read as root)."""
    with sqlite3.connect(f"file:{hub.state / 'jupyterhub.sqlite'}?mode=ro", uri=True) as db:
        return {name for (name,) in db.execute("SELECT name FROM users")}


# ------------------------------------------------------------- sofia, in Chromium

@pytest.fixture(scope="module")
def sofia(browser, hub, platform, released, course_hub):  # noqa: F811  (browser: a fixture)
    """sofia clicks "Lección 3" on her course's page in the LMS; what her browser then shows."""
    target = f"{hub.url}/lessons/{NAME}"
    platform.expect("sofia", platform.claims(LTI_STUDENT, locale="es-ES", target=target))
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="es-ES")
    page = context.new_page()
    query = urllib.parse.urlencode({"target": target, "title": "Lección 3"})
    page.goto(f"{platform.url}/course/sofia?{query}")
    try:
        page.click("#lesson-link")
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=180_000)
        page.get_by_role("menuitem", name="Archivo", exact=True).wait_for(timeout=60_000)
        first = page.locator(".jp-NotebookPanel .jp-MarkdownCell .jp-RenderedHTMLCommon").first
        first.locator("h1").wait_for(timeout=60_000)
        seen = {"url": page.url, "heading": first.locator("h1").inner_text(),
                "english_menu": page.get_by_role("menuitem", name="File", exact=True).count()}
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hub-lti-sofia-lesson-3.png"))
        # a link to a lesson the instructor has not released: said so, in her language
        server = page.url.split("/lab/")[0]
        answer = page.goto(f"{server}/lessons/es/02_backward/02_backward.ipynb")
        seen["not_released"] = (answer.status, page.locator("#not-released").inner_text(),
                                page.locator("html").get_attribute("lang"))
        return seen
    except Exception:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hub-lti-failed-sofia.png"))
        raise
    finally:
        context.close()


def test_a_student_launched_from_the_lms_arrives_on_the_lesson_in_her_language(sofia, hub, course_hub):
    user = course_hub.users.sofia
    url = urllib.parse.urlsplit(sofia["url"])
    # her own server (a host of its own), on the lesson the link named
    assert url.hostname.endswith(".localhost") and url.hostname != "localhost"
    assert urllib.parse.unquote(url.path) == f"/user/{LTI_STUDENT}/lab/tree/{NAME}/{NAME}.ipynb", sofia["url"]
    # JupyterLab in Spanish (its language pack), the lesson's prose in Spanish
    assert sofia["english_menu"] == 0
    assert sofia["heading"].replace("¶", "").strip() == PROSE["title"].splitlines()[0].lstrip("# ").replace("`", "")
    assert user.entry.pw_name == LTI_STUDENT and LTI_STUDENT in logged_in(hub)
    assert pwd.getpwnam(LTI_STUDENT)  # the Unix user her server ran as; she has no password of ours
    assert open("/etc/shadow").read().split(f"\n{LTI_STUDENT}:", 1)[1].split(":")[0] in ("!", "!!", "*")


def test_a_lesson_not_released_yet_is_said_so_in_her_language(sofia, course_hub):
    status, said, lang = sofia["not_released"]
    assert (status, lang) == (404, "es")
    assert said == lessons_text.raw("lab.not_released", "es").format(lesson="02_backward")
    assert not (course_hub.users.sofia.home / "02_backward").exists()


def test_her_lesson_was_fetched_for_her_and_put_in_spanish(sofia, released, course_hub):
    user = course_hub.users.sofia
    path = user.home / NAME / f"{NAME}.ipynb"
    assert path.stat().st_uid == user.entry.pw_uid
    mine = nbformat.read(str(path), as_version=4)
    assert mine.metadata["autograd_lessons"] == {"language": "es"}
    # every markdown cell the course translates is in Spanish; any other as released
    as_released = {c.id: c.source for c in released.cells}
    markdown = [c for c in mine.cells if c.cell_type == "markdown"]
    assert [c.source for c in markdown] == [PROSE[c.id].strip("\n") if c.id in PROSE else as_released[c.id]
                                            for c in markdown]
    assert sum(c.id in PROSE for c in markdown) >= len(markdown) - 2, "lesson 3 is translated into Spanish"
    # the instructor's release, cell for cell: code, answer and test cells as released
    assert [(c.id, c.source) for c in mine.cells if c.cell_type == "code"] == \
        [(c.id, c.source) for c in released.cells if c.cell_type == "code"]
    assert (user.home / NAME / "variants.json").exists() == (EXCHANGE / COURSE_ID / "outbound" / NAME / "variants.json").exists()


def test_the_launch_recorded_her_lms_identifiers_for_the_instructor(sofia, hub, course_hub):
    users = course_hub.users
    assert hub.roster.stat().st_uid == users.teacher.entry.pw_uid and (hub.roster.stat().st_mode & 0o777) == 0o600
    read = as_user(users.teacher, [str(hub.bin / "python"), "-c",
                                   "import sys; sys.stdout.write(open(sys.argv[1]).read())", str(hub.roster)])
    assert read.returncode == 0, read.stderr
    row = roster.read(hub.roster)[LTI_STUDENT]
    assert (row["email"], row["sis_user_id"], row["canvas_user_id"], row["login_id"]) == \
        (LTI_STUDENT, "SIS-1042", "1042", "sperez")
    assert (row["name"], row["sortable_name"]) == ("Sofía Pérez", "Pérez, Sofía")
    denied = as_user(users.alice, [str(hub.bin / "python"), "-c", "open(__import__('sys').argv[1])", str(hub.roster)])
    assert "PermissionError" in denied.stderr


# ------------------------------------------------------------- launches sent by other means

def forged_launch(platform, name: str, forge) -> tuple:
    """A launch of ``name``@example.edu whose id_token ``forge(claims, started)`` makes; the
    hub's answer to it."""
    email = f"{name}@example.edu"
    started = initiate(platform, name, f"{platform.hub}/lessons/{NAME}")
    claims = platform.claims(email, nonce=started.nonce)
    token, cookies = forge(platform, claims, started)
    return email, post_token(started, token, cookies)


FORGED = {
    "bad-signature": lambda p, c, s: (p.sign(c, new_key()), None),
    "other-issuer": lambda p, c, s: (p.sign(dict(c, iss="https://lms.example.org")), None),
    "other-audience": lambda p, c, s: (p.sign(dict(c, aud="another-tool", azp="another-tool")), None),
    "expired": lambda p, c, s: (p.sign(dict(c, iat=int(time.time()) - 700, exp=int(time.time()) - 640)), None),
    "other-nonce": lambda p, c, s: (p.sign(dict(c, nonce="a nonce of another login")), None),
    "other-deployment": lambda p, c, s: (p.sign(dict(c, **{"https://purl.imsglobal.org/spec/lti/claim/deployment_id":
                                                          "2:another-course"})), None),
    "unsigned": lambda p, c, s: (unsigned(c), None),
    "hmac-with-public-key": lambda p, c, s: (hmac_signed(c, p.key.as_pem(private=False)), None),
    "no-cookies": lambda p, c, s: (p.sign(c), {}),
}


@pytest.mark.parametrize("name", FORGED)
def test_a_launch_that_is_not_valid_logs_nobody_in(hub, platform, released, name):
    email, answer = forged_launch(platform, f"forged-{name}", FORGED[name])
    assert answer.status == (401 if name == "other-audience" else 400), (answer.status, answer.body[:300])
    assert not LOGIN_COOKIES & set(answer.cookies), answer.cookies
    assert "location" not in answer.headers
    assert email not in logged_in(hub)


def test_a_launch_posted_again_is_refused_even_with_its_own_cookies(hub, platform, released, sofia):
    """The replayed launch: the same id_token, state and cookies, posted a second time (captured
    on the network, or the browser's back button). The library alone would take it: its check
    is the nonce's cookie, which the replay carries."""
    started = initiate(platform, "sofia-again", f"{platform.hub}/lessons/{NAME}")
    token = platform.sign(platform.claims(LTI_STUDENT, nonce=started.nonce, locale="zh-TW",
                                          **{"https://purl.imsglobal.org/spec/lti/claim/custom":
                                             {"lesson": "01_requires_grad"}}))
    first = post_token(started, token)
    assert first.status == 302 and LOGIN_COOKIES & set(first.cookies)
    # traditional Chinese is not the course's: English; the custom parameter names the lesson
    assert first.headers["location"] == \
        "/hub/user-redirect/lessons/en/01_requires_grad/01_requires_grad.ipynb", first.headers["location"]
    again = post_token(started, token)
    assert again.status == 400 and "used before" in again.body
    assert not LOGIN_COOKIES & set(again.cookies) and "location" not in again.headers


def test_a_state_that_is_not_the_hubs_is_refused(hub, platform, released):
    mine, theirs = (initiate(platform, f"state-{n}", f"{platform.hub}/lessons/{NAME}") for n in (1, 2))
    token = platform.sign(platform.claims("forged-state@example.edu", nonce=mine.nonce))
    answer = post_token(mine, token, cookies=theirs.cookies)  # another login's state and nonce cookies
    assert answer.status == 400 and not LOGIN_COOKIES & set(answer.cookies)
    assert "forged-state@example.edu" not in logged_in(hub)


@pytest.mark.parametrize("email, locale, lang", [
    ('"><img src=x onerror=alert(1)>@example.edu', "sv-SE", "sv"),
    (None, "zh-CN", "zh"),  # the LMS withheld the e-mail (Canvas's privacy level, Moodle's setting)
    ("=HYPERLINK(\"http://x.example\")@example.edu", "pt-BR", "pt"),
])
def test_an_id_that_is_not_plain_is_refused_with_a_page_in_the_launchs_language(hub, platform, released,
                                                                                  email, locale, lang):
    before = logged_in(hub)
    started = initiate(platform, "markup", f"{platform.hub}/lessons/{NAME}")
    answer = post_token(started, platform.sign(platform.claims(email, nonce=started.nonce, locale=locale)))
    assert answer.status == 403 and not LOGIN_COOKIES & set(answer.cookies)
    assert messages.render("hub.id_refused", {}, lang) in answer.body.replace("&#39;", "'")
    assert "src=x" not in answer.body and "onerror" not in answer.body and "HYPERLINK" not in answer.body
    assert logged_in(hub) == before
    assert f"LTI 1.3 launch refused: its email claim {email!r}" in hub.log.read_text()


def test_the_password_form_stays_and_no_tool_configuration_is_served(hub, platform):
    """The library's tool configuration page (a Canvas JSON asking for grade and roster scopes
    the course does not use) is not served; the password form stays the hub's login page."""
    from lti_platform import request

    assert request(f"{platform.hub}/hub/lti13/config").status == 404
    login = request(f"{platform.hub}/hub/login")
    assert login.status == 200 and 'name="password"' in login.body
