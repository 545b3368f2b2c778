"""JupyterHub for the course: one Unix user per student and one per instructor.

tests/test_hub.py starts a hub with this file (``jupyterhub -f tests/hub/jupyterhub_config.py``,
as root); it is also a starting point for a real course. What it sets:

* PAM logs users in with their Unix password; only the course's users are allowed; students
  launched from the LMS (LTI 1.3) are logged in by the launch, under the id it gives;
* each user's server has a host of its own (``HUB_SUBDOMAIN_HOST``: agl-alice.localhost in the
  test), so that no student's page can frame or script another user's, the instructor's
  formgrader included;
* JupyterHub's local spawner starts each user's JupyterLab as that Unix user, from the
  course's Python environment (``COURSE_BIN``: one every user can run);
* each role gets the course's JupyterLab (``lessons/lab.py``): students on their home, with
  nbgrader's Validate button and Assignment List and none of the instructor's tools; the
  instructor on the course directory, with formgrader open;
* after the role's configuration comes the hub-wide one, ``COURSE_JUPYTER_CONFIG``
  (``tests/hub/jupyter/``; ``/etc/jupyter`` on a real hub): the course's id for nbgrader and
  terminals that keep ``PATH``. (The instructor's configuration lets formgrader show in a frame
  of their JupyterLab, which JupyterHub forbids by default: see lessons/lab.py.)
  nbgrader's exchange stays in its default place, ``/usr/local/share/nbgrader/exchange``.

Environment variables (the test sets them; on a real hub, set them or write the values here):

COURSE_BIN             bin folder of the course's Python environment (jupyterhub-singleuser, autograder)
COURSE_ROOT            the course directory, owned by the instructor
COURSE_INSTRUCTORS     Unix user names of the instructors, comma-separated
COURSE_STUDENTS        Unix user names of the students, comma-separated
COURSE_JUPYTER_CONFIG  the hub-wide Jupyter configuration folder
HUB_PORT, HUB_API_PORT, PROXY_API_PORT   loopback ports: the proxy (the hub's address), the hub, the proxy's API
HUB_SUBDOMAIN_HOST     the hub's public address, e.g. https://hub.example.org, each user's server
                       then at https://<user>.hub.example.org (wildcard DNS and certificate); the
                       test uses http://localhost:<HUB_PORT> (Chromium resolves *.localhost itself).
                       Unset: every user's server on the hub's own origin (see the README)
HUB_STATE              a folder only root can read: the hub's database, cookie secret and process ids
CHP                    the configurable-http-proxy program (`npm ci` in tests/hub/ installs it)

Students launched from the LMS (LTI 1.3; unset LTI13_ISSUER: password logins only). The LMS
shows these values when the tool is registered in it (see the README):
LTI13_ISSUER           the platform's issuer (Canvas: https://canvas.instructure.com; Moodle: its address)
LTI13_CLIENT_ID        the client id the LMS gave the tool (several: comma-separated)
LTI13_DEPLOYMENT_ID    its deployment id(s), comma-separated
LTI13_AUTHORIZE_URL    the platform's OIDC authentication request URL
LTI13_JWKS_URL         the platform's public keyset URL
LTI13_USERNAME_KEY     the claim that becomes the student id (default email; custom_<name>: a custom parameter)
COURSE_ROSTER          where each launch's identifiers are recorded for `autograder export`, in a
                       folder only root may write; COURSE_ROSTER_OWNER: the Unix user it is given to
"""
import os

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid

from lessons import lab

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

BIN = os.environ["COURSE_BIN"]
COURSE = os.environ["COURSE_ROOT"]
INSTRUCTORS = set(os.environ["COURSE_INSTRUCTORS"].split(","))
STUDENTS = set(os.environ["COURSE_STUDENTS"].split(","))
HUB_CONFIG = os.environ["COURSE_JUPYTER_CONFIG"]
STATE = os.environ["HUB_STATE"]

# The proxy (configurable-http-proxy, started by the hub) is the only door, on loopback.
c.JupyterHub.bind_url = f"http://127.0.0.1:{os.environ['HUB_PORT']}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ["HUB_API_PORT"])
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ['PROXY_API_PORT']}"
c.ConfigurableHTTPProxy.command = [os.environ["CHP"]]
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(STATE, "jupyterhub.pid")
# Each user's server on a host of its own (<user>.<the hub's host>): a page one user's server
# serves is of another origin than every other user's, so it can neither frame nor script them.
if os.environ.get("HUB_SUBDOMAIN_HOST"):
    c.JupyterHub.subdomain_host = os.environ["HUB_SUBDOMAIN_HOST"]
    # (JupyterHub 5's default subdomain_hook, "idna", gives every user one DNS label whatever
    # their name, an e-mail address from the LMS included, as a wildcard certificate needs; a
    # name that is one already keeps it: agl-alice.hub.example.org)
# stopping the hub stops every user's server and the proxy
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

# Unix users and their passwords (PAM, the "login" service), and students launched from the
# LMS (LTI 1.3, once LTI13_ISSUER is set: autograder/instructor/hub/lti.py); nobody else gets in.
c.JupyterHub.authenticator_class = "autograder.instructor.hub.lti.CourseAuthenticator"
c.Authenticator.allowed_users = INSTRUCTORS | STUDENTS
if os.environ.get("LTI13_ISSUER"):
    c.CourseAuthenticator.issuer = os.environ["LTI13_ISSUER"]
    c.CourseAuthenticator.client_id = set(os.environ["LTI13_CLIENT_ID"].split(","))
    c.CourseAuthenticator.deployment_ids = set(os.environ["LTI13_DEPLOYMENT_ID"].split(","))
    c.CourseAuthenticator.authorize_url = os.environ["LTI13_AUTHORIZE_URL"]
    c.CourseAuthenticator.jwks_endpoint = os.environ["LTI13_JWKS_URL"]
    c.CourseAuthenticator.username_key = os.environ.get("LTI13_USERNAME_KEY", "email")
    c.CourseAuthenticator.roster_path = os.environ.get("COURSE_ROSTER", "")
    c.CourseAuthenticator.roster_owner = os.environ.get("COURSE_ROSTER_OWNER", "")


def role_of(name: str) -> str:
    return "instructor" if name in INSTRUCTORS else "student"


class CourseSpawner(LocalProcessSpawner):
    """JupyterHub's local spawner, except that the instructor's server starts in the course
    directory (students' in their home): nbgrader, formgrader included, reads the course's
    nbgrader_config.py from the folder its server was started in, as `make instructor` does."""

    def make_preexec_fn(self, name):
        instructor = role_of(name) == "instructor"
        as_user = set_user_setuid(name, chdir=not instructor)

        def preexec():
            as_user()
            if instructor:
                os.chdir(COURSE)

        return preexec


# Each user's JupyterLab runs as that user, from the course's environment.
c.JupyterHub.spawner_class = CourseSpawner
c.Spawner.cmd = [os.path.join(BIN, "jupyterhub-singleuser")]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.environment = {
    "PATH": os.pathsep.join([BIN, "/usr/local/bin", "/usr/bin", "/bin"]),
}


def course_view(spawner) -> None:
    """The course's JupyterLab for this user's role (what `make lab` / `make instructor` start)."""
    role = role_of(spawner.user.name)
    spawner.environment = dict(spawner.environment, JUPYTER_CONFIG_PATH=lab.config_path(role, HUB_CONFIG))
    if role == "instructor":
        spawner.notebook_dir = COURSE
        spawner.default_url = lab.INSTRUCTOR_URL
    else:
        spawner.notebook_dir = "~"
        spawner.default_url = "/lab"


c.Spawner.pre_spawn_hook = course_view
