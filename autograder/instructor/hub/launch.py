"""What an LTI 1.3 launch says, read from its claims once the hub has verified them: who the
student is (the course's student id), which lesson the link names and which language to open it in.

Everything here is read from the id_token the platform signed; the login initiation request's
own ``target_link_uri`` parameter is not signed (anyone can make a link to the hub with one),
so the lesson is taken from the signed claim, never from it.

* **Student id.** One claim, ``username_key``: a claim of the id_token (``email``, ``sub``,
  ``given_name``...) or, as ``custom_<name>``, the custom parameter ``<name>`` the tool's
  registration in the LMS defines (e.g. ``login_id=$Canvas.user.loginId`` in Canvas,
  ``login_id=$User.username`` in Moodle). The default, ``email``, is sent by Canvas and Moodle
  alike unless their privacy settings withhold it. A launch without that claim, or whose value
  is not a plain id (``student_ids.refusal``: it becomes a Unix user, folder names, pages and
  CSV lines), is refused: never another claim in its place (jupyterhub-ltiauthenticator falls
  back to ``sub``, which would give the same student a second account the day their e-mail is
  withheld).
* **Lesson.** The custom parameter ``lesson`` (``lesson=03_zeroing_grad``), else the target
  link URI's last part after ``/lessons/`` (``https://hub.example.org/lessons/03_zeroing_grad``);
  a plain name (an assignment's folder), else no lesson (the student's JupyterLab, on their home).
* **Language.** The launch presentation's ``locale``, else the user's (OIDC's ``locale``) (BCP 47 as Canvas sends it, ``es-ES``,
  ``pt-BR``, ``zh-Hans``; Moodle's ``pt_br`` too): its language if it is one of the course's,
  Chinese only in simplified script (``zh-TW``, ``zh-HK``, ``zh-Hant`` are not the course's
  Chinese); else English, the course's own.
"""
from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from ... import messages
from .. import student_ids

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CUSTOM = CLAIM + "custom"
PRESENTATION = CLAIM + "launch_presentation"
TARGET = CLAIM + "target_link_uri"
DEPLOYMENT = CLAIM + "deployment_id"
CONTEXT = CLAIM + "context"
LIS = CLAIM + "lis"
EXT = CLAIM + "ext"  # Moodle's: {"user_username": ..., "lms": "moodle-2"}

# an assignment's folder name: what nbgrader names it by (no path separator, no "..")
LESSON = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
TRADITIONAL = {"tw", "hk", "mo", "hant"}


def claimed_id(claims: dict, key: str):
    """The value of the student-id claim ``key`` (``custom_<name>``: the custom parameter
    ``<name>``), or None if the launch does not carry it."""
    if key.startswith("custom_"):
        custom = claims.get(CUSTOM)
        return custom.get(key[len("custom_"):]) if isinstance(custom, dict) else None
    return claims.get(key)


def id_refusal(value) -> str | None:
    """Why ``value`` cannot be a student id (for the hub's log), or None."""
    if value is None:
        return "the launch does not carry it"
    return student_ids.refusal(value)


def language(claims: dict) -> str:
    """The course's language for the launch's locale (see the module), English otherwise."""
    presentation = claims.get(PRESENTATION)
    locale = presentation.get("locale") if isinstance(presentation, dict) else None
    locale = locale if isinstance(locale, str) else claims.get("locale")  # OIDC's, the user's own
    if not isinstance(locale, str):
        return "en"
    parts = re.split(r"[-_]", locale.strip().lower())
    if parts[0] == "zh" and TRADITIONAL & set(parts[1:]):
        return "en"
    return parts[0] if parts[0] in messages.LANGUAGES else "en"


def lesson(claims: dict) -> str | None:
    """The lesson (assignment) the link names (see the module), or None."""
    custom = claims.get(CUSTOM)
    named = custom.get("lesson") if isinstance(custom, dict) else None
    if named is None:
        target = claims.get(TARGET)
        path = urlsplit(target).path if isinstance(target, str) else ""
        found = re.search(r"/lessons/([^/]+)/?$", path)
        named = found.group(1) if found else None
    return named if isinstance(named, str) and LESSON.fullmatch(named) else None


def destination(lang: str, assignment: str | None) -> str:
    """Where the student's own server opens it: ``lessons/<lang>[/<a>/<a>.ipynb]``, the
    course's lesson links (lessons/lab_language.py), below the hub's ``user-redirect/``."""
    parts = ["lessons", messages.known(lang)]
    if assignment:
        parts += [assignment, f"{assignment}.ipynb"]
    return "/".join(quote(part) for part in parts)
