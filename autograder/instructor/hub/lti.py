"""The course's hub takes students launched from the LMS: LTI 1.3, through jupyterhub-ltiauthenticator.

``CourseAuthenticator`` is JupyterHub's PAM authenticator (the login form, for Unix users with a
password: the instructor, and a way in while the LMS is down) that also accepts LTI 1.3 launches
(the OpenID Connect flow of IMS's Security Framework) once ``issuer`` is set:

1. the LMS sends the student's browser to ``/hub/lti13/oauth_login`` (login initiation);
2. the hub sends it back to the LMS's ``authorize_url`` with a fresh ``state`` and ``nonce``
   (each also kept in a cookie of the hub, encrypted: ``SameSite=None; Secure``, since the
   answer comes back as a cross-site POST, which a browser sends no ``Lax`` cookie with);
3. the LMS posts a signed id_token to ``/hub/lti13/oauth_callback``. ``LaunchHandler`` accepts it
   only if all of this holds, else answers 400 (401 for the audience) and logs no one in:
   the state is the cookie's; its RS256 signature is by a key of the LMS's JWKS
   (``jwks_endpoint``); ``iss`` is ``issuer``; ``aud`` is a ``client_id`` (and ``azp`` one, with
   several audiences); ``exp``, ``iat`` and ``nonce`` are there, ``exp`` has not passed and
   ``iat`` is at most ``LTI13LaunchValidator.max_age`` (600 s) old; the nonce is the cookie's
   and has not been used before (kept until the token expires: a launch posted twice, even
   with the first one's cookies, is refused); the deployment is one of ``deployment_ids``; the
   claims LTI 1.3 requires are there.
4. The student id is the ``username_key`` claim (``launch.py``), refused with a page in the
   student's language if the launch lacks it or it is not a plain id (nothing of it shown or
   used); then the student is logged in (no password of ours), their identifiers are recorded
   in the roster (``roster.py``, for ``autograder export``), and they are sent to their own
   server's ``lessons/<lang>/<lesson>`` (``launch.destination``), which opens the lesson in
   their language (``lessons/lab_language.py``).

A launch is allowed whoever it names (the LMS enrols students; a Unix user of that name must
exist for JupyterHub's local spawner); a password login only for ``allowed_users``.

The LMS's keys are fetched from its JWKS once and kept for five minutes (PyJWT's
``PyJWKClient``; a token naming a key id it does not know fetches them again, at most once in
PyJWT's cooldown, 30 s in 2.15, so forged key ids cost the LMS nothing), in a thread: the library fetches
them on the hub's event loop at every launch, which for a class of 300 clicking the link at the
start of a lecture held the hub a network round trip per student.
"""
from __future__ import annotations

import asyncio
import pwd
import time

import jwt
from jupyterhub.auth import PAMAuthenticator
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import InvalidAudienceError, TokenError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from ltiauthenticator.utils import convert_request_to_dict
from tornado.web import HTTPError
from traitlets import Set, Unicode

from ... import messages
from ..printable import printable
from . import launch, roster

JWKS_LIFESPAN = 300  # seconds the LMS's keys are kept
_KEYS: dict = {}  # JWKS URL → PyJWKClient


def signing_key(jwks_endpoint: str, token: str):
    """The key of the LMS's JWKS that ``token``'s header names (fetched at most every
    ``JWKS_LIFESPAN`` seconds, and again for a key id not seen)."""
    client = _KEYS.get(jwks_endpoint)
    if client is None:
        client = _KEYS[jwks_endpoint] = jwt.PyJWKClient(jwks_endpoint, cache_jwk_set=True,
                                                         lifespan=JWKS_LIFESPAN, timeout=10)
    return client.get_signing_key_from_jwt(token).key


class UsedNonces:
    """Every nonce of an accepted launch, until its token could no longer be accepted anyway."""

    def __init__(self):
        self._until: dict = {}

    def use(self, nonce: str, until: float, now: float | None = None) -> None:
        """Take ``nonce`` (good until ``until``, a Unix time); TokenError if it was taken."""
        now = time.time() if now is None else now
        self._until = {n: t for n, t in self._until.items() if t >= now}
        if nonce in self._until:
            raise TokenError("this launch's nonce was used before (a replayed launch)")
        self._until[nonce] = until

    def __len__(self) -> int:
        return len(self._until)


class Validator(LTI13LaunchValidator):
    """The library's validator, with the LMS's keys kept (``signing_key``) and ``exp``,
    ``iat`` and ``nonce`` required (PyJWT checks ``exp`` only when it is there)."""

    def verify_and_decode_jwt(self, encoded_jwt, issuer, audience, jwks_endpoint, jwks_algorithms, **kwargs):
        if not issuer or not jwks_endpoint:
            raise TokenError("the hub has no issuer or JWKS endpoint for LTI 1.3")
        try:
            return jwt.decode(encoded_jwt, signing_key(jwks_endpoint, encoded_jwt), algorithms=jwks_algorithms,
                              audience=list(audience), issuer=issuer, leeway=self.time_leeway,
                              options={"require": ["exp", "iat", "iss", "aud", "nonce"]})
        except jwt.InvalidAudienceError as error:
            raise InvalidAudienceError(str(error)) from None
        except jwt.PyJWTError as error:
            raise TokenError(str(error)) from None


class LoginInitHandler(LTI13LoginInitHandler):
    """The library's login initiation, its state and nonce cookies sent back with the LMS's POST."""

    def _set_oauth_cookie(self, key: str, value) -> None:
        self._set_cookie(key, value, expires_days=1, httponly=True, encrypted=True,
                         samesite="None", secure=True)


class LaunchHandler(LTI13CallbackHandler):
    """The LMS's POST of the id_token: verified, the student's id checked, logged in, sent on."""

    async def post(self) -> None:
        try:
            claims = await self.verified_claims()
        except InvalidAudienceError as error:
            raise HTTPError(401, str(error)) from None
        except ValidationError as error:
            raise HTTPError(400, str(error)) from None
        lang = launch.language(claims)
        key = self.authenticator.username_key
        value = launch.claimed_id(claims, key)
        refusal = launch.id_refusal(value)
        if refusal:
            self.log.warning("LTI 1.3 launch refused: its %s claim %s: %s (issuer %s, subject %s)",
                             key, printable(repr(value))[:200], refusal,
                             printable(str(claims.get("iss")))[:200], printable(str(claims.get("sub")))[:200])
            self.set_status(403)
            html = await self.render_template("error.html", status_code=403, status_message="Forbidden",
                                              message=messages.render("hub.id_refused", {}, lang))
            self.finish(html)
            return
        user = await self.login_user(claims)
        if user is None:
            raise HTTPError(403, "not allowed")
        self.authenticator.record_launch(user.name, claims)
        self.redirect(url_path_join(self.hub.base_url, "user-redirect",
                                    launch.destination(lang, launch.lesson(claims))))

    async def verified_claims(self) -> dict:
        """The id_token's claims, once every check of the module's step 3 holds."""
        authenticator = self.authenticator
        validator = Validator(parent=self.app)
        args = convert_request_to_dict(self.request.arguments)
        validator.validate_auth_response(args)
        self.check_state()
        claims = await asyncio.to_thread(
            validator.verify_and_decode_jwt, encoded_jwt=args["id_token"], issuer=authenticator.issuer,
            audience=authenticator.client_id, jwks_endpoint=authenticator.jwks_endpoint,
            jwks_algorithms=authenticator.jwks_algorithms)
        validator.validate_id_token(claims)
        validator.validate_azp_claim(claims, authenticator.client_id)
        self.check_nonce(claims)
        if claims.get(launch.DEPLOYMENT) not in authenticator.deployment_ids:
            raise TokenError("the launch's deployment is not one of this hub's deployment_ids")
        until = max(claims["exp"], claims["iat"] + validator.max_age) + validator.time_leeway
        authenticator.used_nonces.use(claims["nonce"], until)
        return claims


class CourseAuthenticator(LTI13Authenticator, PAMAuthenticator):
    """PAM's login form, and LTI 1.3 launches when ``issuer`` is set (see the module)."""

    login_service = ""  # the hub's login page is PAM's form
    login_handler = LoginInitHandler
    callback_handler = LaunchHandler

    deployment_ids = Set(Unicode(), config=True, help=(
        "The deployment ids the LMS gave this tool (Canvas: the developer key's deployment in the "
        "course or account; Moodle: the tool's deployment id). A launch of any other is refused."))
    username_key = Unicode("email", config=True, help=(
        "The claim that becomes the JupyterHub user and nbgrader student id: an id_token claim "
        "(email, sub, ...) or custom_<name> for the custom parameter <name>. A launch without it, "
        "or whose value is not a plain id, is refused."))
    roster_path = Unicode("", config=True, help=(
        "Where each launch's identifiers for the LMS's gradebook are recorded (CSV; autograder "
        "export --roster reads it), in a folder only root may write. Empty: not recorded."))
    roster_owner = Unicode("", config=True, help="The Unix user the roster is given to (the instructor).")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.used_nonces = UsedNonces()

    def login_url(self, base_url):
        return url_path_join(base_url, "login")

    def get_handlers(self, app):
        handlers = PAMAuthenticator.get_handlers(self, app)
        if self.issuer:
            handlers += [("/lti13/oauth_login", self.login_handler), ("/lti13/oauth_callback", self.callback_handler)]
        return handlers

    def callback_url(self, base_url):
        return url_path_join(base_url, "lti13", "oauth_callback")

    async def authenticate(self, handler, data=None):
        if isinstance(handler, LaunchHandler):  # data: the verified claims
            return {"name": launch.claimed_id(data, self.username_key),
                    "auth_state": {"lti13": True, "iss": data.get("iss"), "sub": data.get("sub")}}
        return await PAMAuthenticator.authenticate(self, handler, data)

    def check_allowed(self, username, authentication=None):
        if authentication and (authentication.get("auth_state") or {}).get("lti13"):
            return True
        return PAMAuthenticator.check_allowed(self, username, authentication)

    def record_launch(self, student_id: str, claims: dict) -> None:
        """The student's identifiers in the roster, if there is one (a failure is logged: the
        student is in all the same)."""
        if not self.roster_path:
            return
        try:
            owner = pwd.getpwnam(self.roster_owner).pw_uid if self.roster_owner else None
            roster.record(self.roster_path, roster.from_claims(student_id, claims), owner)
        except (OSError, KeyError, roster.RosterError) as error:
            self.log.error("the roster %s was not updated for %s: %s", self.roster_path, student_id,
                           printable(str(error)))
