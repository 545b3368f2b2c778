"""What lets formgrader show on a JupyterHub, without starting one (tests/test_hub.py does, in
Chromium): the instructor's server lets its own origin frame its pages, whatever else the
policy says, whichever of JupyterHub's extension and ours loads first; students' servers keep
JupyterHub's policy; the server's log warns where the hub serves everyone from one origin."""
from __future__ import annotations

import json
from types import SimpleNamespace

from helpers import ROOT

from lessons import lab

CONFIG = ROOT / "lessons" / "lab_config"


def extensions(role: str) -> dict:
    return json.loads((CONFIG / role / "jupyter_server_config.json").read_text())["ServerApp"]["jpserver_extensions"]


def test_only_the_instructors_server_loads_the_extension():
    assert extensions("instructor")["lessons.lab"] is True
    assert "lessons.lab" not in extensions("student")
    assert lab._jupyter_server_extension_points() == [{"module": "lessons.lab"}]


def test_frame_ancestors_becomes_self_and_nothing_else_changes():
    assert lab.frames_from_own_origin(None) == "frame-ancestors 'self'"
    assert lab.frames_from_own_origin("frame-ancestors 'none'") == "frame-ancestors 'self'"
    assert lab.frames_from_own_origin("default-src 'self'; Frame-Ancestors 'none' ; report-uri /csp;") == \
        "frame-ancestors 'self'; default-src 'self'; report-uri /csp"


class Log:
    def __init__(self):
        self.lines = []

    def info(self, *args):
        self.lines.append(("info", args[0] % args[1:]))

    def warning(self, *args):
        self.lines.append(("warning", args[0] % args[1:]))


def server(headers: dict | None) -> SimpleNamespace:
    settings = {} if headers is None else {"headers": dict(headers)}
    return SimpleNamespace(web_app=SimpleNamespace(settings=settings), log=Log())


def jupyterhub_default(app) -> None:
    """What JupyterHub's single-user extension does to the headers (jupyterhub/singleuser/extension.py)."""
    app.web_app.settings.setdefault("headers", {}).setdefault("Content-Security-Policy", "frame-ancestors 'none'")


def test_the_instructors_server_may_be_framed_by_its_origin_in_either_order(monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_SERVICE_PREFIX", raising=False)
    for order in ((jupyterhub_default, lab._load_jupyter_server_extension),
                  (lab._load_jupyter_server_extension, jupyterhub_default)):
        app = server({"X-Admin": "kept"})
        for load in order:
            load(app)
        assert app.web_app.settings["headers"] == {"X-Admin": "kept", "Content-Security-Policy": "frame-ancestors 'self'"}
    app = server(None)
    lab._load_jupyter_server_extension(app)
    assert app.web_app.settings["headers"]["Content-Security-Policy"] == "frame-ancestors 'self'"
    assert [level for level, _ in app.log.lines] == ["info"]


def test_a_hub_that_serves_everyone_from_one_origin_is_named_in_the_log(monkeypatch):
    one_origin = {"JUPYTERHUB_SERVICE_PREFIX": "/user/t/", "JUPYTERHUB_PUBLIC_URL": "", "JUPYTERHUB_HOST": ""}
    public = {"JUPYTERHUB_SERVICE_PREFIX": "/user/t/", "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/t/",
              "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.example.org/hub/", "JUPYTERHUB_HOST": "https://hub.example.org"}
    own_host = {"JUPYTERHUB_SERVICE_PREFIX": "/user/t/", "JUPYTERHUB_PUBLIC_URL": "https://t.hub.example.org/user/t/",
                "JUPYTERHUB_HOST": "https://hub.example.org"}
    assert lab.shares_the_hubs_origin(one_origin) and lab.shares_the_hubs_origin(public)
    assert not lab.shares_the_hubs_origin(own_host) and not lab.shares_the_hubs_origin({})
    for environ, warned in ((one_origin, True), (own_host, False)):
        for key in ("JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_PUBLIC_URL", "JUPYTERHUB_PUBLIC_HUB_URL", "JUPYTERHUB_HOST"):
            monkeypatch.delenv(key, raising=False)
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
        app = server({"Content-Security-Policy": "frame-ancestors 'none'"})
        lab._load_jupyter_server_extension(app)
        assert any(level == "warning" and "subdomain_host" in line for level, line in app.log.lines) == warned
