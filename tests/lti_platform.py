"""A learning management system, as far as an LTI 1.3 tool sees one: its own RSA keys (made
here, signing with joserfc, another JOSE library than the hub's PyJWT), its public keyset, its
OpenID Connect authentication endpoint, and a course page with a link to the tool, served over
loopback by a thread of the test.

A launch goes as IMS's Security Framework has it: the course page posts the login initiation to
the hub (iss, login_hint, target_link_uri, client_id, lti_deployment_id); the hub sends the
browser to ``/authorize`` with its state and nonce; this platform answers with a page that posts
the signed id_token and the state back to the hub's redirect_uri. What goes into the id_token is
what the test registered for that ``login_hint`` (``Platform.expect``); ``sign`` makes one for a
test that posts it itself, forged ones included.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import html
import http.client
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CLIENT_ID = "autograd-lessons-tool"
DEPLOYMENT_ID = "1:course-42"
KID = "platform-key-1"


def new_key(kid: str = KID) -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig", "alg": "RS256"})


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Platform:
    """The LMS (see the module); ``url`` its address on loopback."""

    def __init__(self):
        self.key = new_key()
        self.expected: dict = {}  # login_hint → (claims, sign) for the next authentication request
        self.requests: list = []  # the authentication requests the hub sent, as query dicts
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/jwks":
                    self.answer(200, "application/json", json.dumps(platform.jwks()))
                elif url.path == "/authorize":
                    self.answer(*platform.authorize(query))
                elif url.path.startswith("/course/"):
                    self.answer(200, "text/html", platform.course_page(url.path.split("/")[2], query))
                else:
                    self.answer(404, "text/plain", "not found")

            def answer(self, status: int, kind: str, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.url  # the platform's issuer identifier: its address, as Moodle's is
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.hub = None  # the hub's address, once it runs

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    # what the hub's configuration takes from it
    def settings(self) -> dict:
        return {"LTI13_ISSUER": self.issuer, "LTI13_CLIENT_ID": CLIENT_ID, "LTI13_DEPLOYMENT_ID": DEPLOYMENT_ID,
                "LTI13_AUTHORIZE_URL": f"{self.url}/authorize", "LTI13_JWKS_URL": f"{self.url}/jwks"}

    def jwks(self) -> dict:
        return KeySet([self.key]).as_dict(private=False)

    # the launch
    def expect(self, login_hint: str, claims: dict) -> None:
        """The claims of the id_token the next authentication request for ``login_hint`` gets
        (its nonce is the hub's)."""
        self.expected[login_hint] = claims

    def course_page(self, login_hint: str, query: dict) -> str:
        """The LMS's course page: the link to the lesson is a form posting the login initiation."""
        fields = {"iss": self.issuer, "login_hint": login_hint, "target_link_uri": query["target"],
                  "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT_ID,
                  "lti_message_hint": "resource-link-1"}
        inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
        return (f'<!DOCTYPE html><title>Course 42</title><h1>Course 42</h1>'
                f'<form method="post" action="{html.escape(self.hub)}/hub/lti13/oauth_login">{inputs}'
                f'<button id="lesson-link">{html.escape(query.get("title", "Lesson"))}</button></form>')

    def authorize(self, query: dict) -> tuple:
        """The OIDC authentication request: checked as a platform does, answered with a page
        that posts the id_token and the state to the redirect_uri."""
        self.requests.append(query)
        wanted = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post",
                  "prompt": "none", "client_id": CLIENT_ID}
        wrong = {k: query.get(k) for k, v in wanted.items() if query.get(k) != v}
        redirect = query.get("redirect_uri", "")
        if wrong or not redirect.startswith(f"{self.hub}/hub/lti13/oauth_callback"):
            return 400, "text/plain", f"bad authentication request: {wrong or redirect}"
        claims = self.expected.pop(query.get("login_hint"), None)
        if claims is None:
            return 400, "text/plain", "no launch expected for this login_hint"
        token = self.sign(dict(claims, nonce=query["nonce"]))
        return 200, "text/html", (
            f'<!DOCTYPE html><form id="post" method="post" action="{html.escape(redirect)}">'
            f'<input type="hidden" name="id_token" value="{token}">'
            f'<input type="hidden" name="state" value="{html.escape(query["state"])}"></form>'
            '<script>document.getElementById("post").submit()</script>')

    def sign(self, claims: dict, key: RSAKey | None = None) -> str:
        key = key or self.key
        return jwt.encode({"alg": "RS256", "kid": key.kid, "typ": "JWT"}, claims, key)

    def claims(self, email: str | None, locale: str = "en-US", target: str = "", **extra) -> dict:
        """An LtiResourceLinkRequest's claims as Canvas sends them to a student (issued now, valid
        for a minute), with ``extra`` on top (a value None removes the claim)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer, "aud": CLIENT_ID, "azp": CLIENT_ID, "sub": secrets.token_hex(16),
            "iat": now, "exp": now + 60, "email": email, "name": "Sofía Pérez", "given_name": "Sofía",
            "family_name": "Pérez", "locale": locale,
            CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": DEPLOYMENT_ID, CLAIM + "target_link_uri": target or f"{self.hub}/lessons",
            CLAIM + "resource_link": {"id": "resource-link-1", "title": "Lesson 3"},
            CLAIM + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
            CLAIM + "context": {"id": "course-42", "label": "AUTOGRAD", "title": "Autograd"},
            CLAIM + "launch_presentation": {"locale": locale, "document_target": "window"},
            CLAIM + "lis": {"person_sourcedid": "SIS-1042"},
            CLAIM + "custom": {"canvas_user_id": "1042", "login_id": "sperez"},
        }
        claims.update(extra)
        return {k: v for k, v in claims.items() if v is not None}


def unsigned(claims: dict, kid: str = KID) -> str:
    """A token with ``alg: none``: no signature at all (naming the platform's key)."""
    head = b64(json.dumps({"alg": "none", "kid": kid, "typ": "JWT"}).encode())
    return f"{head}.{b64(json.dumps(claims).encode())}."


def hmac_signed(claims: dict, secret: bytes, kid: str = KID) -> str:
    """A token "signed" with HS256, the platform's public key as the shared secret (the
    algorithm confusion a verifier that trusts the header's ``alg`` falls for)."""
    head = b64(json.dumps({"alg": "HS256", "kid": kid, "typ": "JWT"}).encode())
    body = b64(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(signature)}"


# --------------------------------------------------------- a launch sent without a browser

@dataclass
class Exchange:
    """One HTTP answer: status, headers (lower-case names; Set-Cookie values in a list), body."""
    status: int
    headers: dict
    cookies: dict = field(default_factory=dict)  # name → value the answer set
    body: str = ""


def request(url: str, method: str = "GET", form: dict | None = None, cookies: dict | None = None) -> Exchange:
    """One request, no redirect followed, cookies sent as given (http.cookiejar would keep the
    hub's ``Secure`` cookies off plain http://localhost, where Chromium sends them)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    body = urllib.parse.urlencode(form) if form is not None else None
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if form is not None else {}
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        set = SimpleCookie()
        for line in answer.headers.get_all("Set-Cookie") or []:
            set.load(line)
        return Exchange(answer.status, {k.lower(): v for k, v in answer.getheaders()},
                        {k: m.value for k, m in set.items()}, answer.read().decode("utf-8", "replace"))
    finally:
        connection.close()


@dataclass
class Started:
    """A login initiated at the hub: what the hub asked the platform for, and its cookies."""
    state: str
    nonce: str
    redirect_uri: str
    cookies: dict


def initiate(platform: Platform, login_hint: str, target: str) -> Started:
    """The LMS's login initiation, posted to the hub; the hub's authentication request."""
    answer = request(f"{platform.hub}/hub/lti13/oauth_login", "POST", {
        "iss": platform.issuer, "login_hint": login_hint, "target_link_uri": target,
        "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT_ID})
    assert answer.status == 302, (answer.status, answer.body[:500])
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["location"]).query))
    assert answer.headers["location"].startswith(f"{platform.url}/authorize?"), answer.headers["location"]
    return Started(query["state"], query["nonce"], query["redirect_uri"], answer.cookies)


def post_token(started: Started, token: str, cookies: dict | None = None) -> Exchange:
    """The id_token and state posted to the hub's redirect_uri, with the login's cookies."""
    return request(started.redirect_uri, "POST", {"id_token": token, "state": started.state},
                   started.cookies if cookies is None else cookies)
