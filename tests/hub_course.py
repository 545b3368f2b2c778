"""The course's JupyterHub, started once a session for every module that needs it
(``tests/conftest.py``'s ``course_hub``): test_hub.py runs lesson 3 on it from release to feedback,
test_hub_lti.py launches students into it from an LMS.

Set-up, as root (tests/hub_helpers.py): Unix users with homes only they can enter (agl-teacher,
agl-alice and agl-wang with random passwords; agl-sofia@example.edu, who comes from the LMS,
with none), nbgrader's exchange in its default place, a copy of the course (lesson 3, the late
policy 'zero', a course secret) in the instructor's home, an LMS on loopback
(tests/lti_platform.py) and JupyterHub from tests/hub/jupyterhub_config.py, which accepts its
launches and records each launched student's identifiers in a roster the instructor owns.
Everything is removed afterwards, also after a failure: the hub, its proxy, every user with
their home and processes, the exchange folders it created.
"""
from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from types import SimpleNamespace

from helpers import ROOT
from hub_helpers import (ARTIFACTS, HUB, course_environment, create_user, default_exchange, jupyterhub,
                         remove_user, run, scratch_folder)
from lti_platform import Platform

from autograder.instructor import course_secret

NAME = "03_zeroing_grad"
LATE_POLICY = 'c.LateSubmissionPlugin.penalty_method = "zero"\n'
SECRET = "the hub course's secret"
LTI_STUDENT = "agl-sofia@example.edu"  # her e-mail: the claim the hub makes the student id of


def make_course(instructor) -> Path:
    """The course in the instructor's home: lesson 3's source and the late policy 'zero'."""
    root = instructor.home / "course"
    root.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", root)
    with open(root / "nbgrader_config.py", "a") as f:
        f.write("\n# this course's late policy\n" + LATE_POLICY)
    shutil.copytree(ROOT / "source" / NAME, root / "source" / NAME)
    (root / course_secret.FILE).write_text(SECRET + "\n")
    (root / course_secret.FILE).chmod(0o600)
    run(["chown", "-R", f"{instructor.name}:", str(root)])
    return root


@contextlib.contextmanager
def users():
    """The instructor and the two students of the password logins (``all``), and the student
    launched from the LMS (``sofia``); removed with their homes after."""
    made = []
    try:
        for name, role in (("agl-teacher", "instructor"), ("agl-alice", "student"), ("agl-wang", "student")):
            made.append(create_user(name, role))
        made.append(create_user(LTI_STUDENT, "student", password=False))
        yield SimpleNamespace(teacher=made[0], alice=made[1], wang=made[2], sofia=made[3], all=made[:3])
    finally:
        for user in made:
            remove_user(user.name)
        left = [u.name for u in made if Path("/home", u.name).exists()]
        assert not left, f"homes left behind: {left}"


@contextlib.contextmanager
def course_hub():
    """The hub, its users, its LMS and its course (see the module)."""
    folder = scratch_folder()
    try:
        with users() as people, Platform() as platform:
            bin_dir = course_environment(folder, people.alice)
            course = make_course(people.teacher)
            config = shutil.copytree(HUB / "jupyter", folder / "jupyter")
            config.chmod(0o755)
            state = folder / "state"
            state.mkdir(mode=0o700)
            rosters = folder / "roster"  # root's folder: only the hub writes in it
            rosters.mkdir(mode=0o755)
            settings = {"COURSE_BIN": str(bin_dir), "COURSE_ROOT": str(course),
                        "COURSE_INSTRUCTORS": people.teacher.name,
                        "COURSE_STUDENTS": f"{people.alice.name},{people.wang.name}",
                        "COURSE_JUPYTER_CONFIG": str(config),
                        "COURSE_ROSTER": str(rosters / "roster.csv"), "COURSE_ROSTER_OWNER": people.teacher.name,
                        **platform.settings()}
            log = folder / "jupyterhub.log"
            try:
                with default_exchange([*people.all, people.sofia]), jupyterhub(state, settings, log) as running:
                    platform.hub = running.url
                    hub = SimpleNamespace(url=running.url, server=running.server, log=log, bin=bin_dir,
                                          course=course, state=state, roster=rosters / "roster.csv")
                    yield SimpleNamespace(hub=hub, users=people, platform=platform)
            finally:
                if log.exists():  # the hub's and every user's server's log, for a failure
                    ARTIFACTS.mkdir(exist_ok=True)
                    shutil.copy(log, ARTIFACTS / "hub-jupyterhub.log")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
