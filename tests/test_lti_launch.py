"""What the hub reads from an LTI 1.3 launch (autograder/instructor/hub/launch.py) and how it
verifies one (hub/lti.py's Validator and UsedNonces), without a hub: tokens signed by a platform
whose keys the test makes (tests/lti_platform.py, joserfc), verified with the hub's PyJWT against
the platform's JWKS served over loopback. test_hub_lti.py sends such launches to the real hub."""
from __future__ import annotations

import time

import pytest
from joserfc.jwk import RSAKey
from lti_platform import CLIENT_ID, Platform, hmac_signed, new_key, unsigned

from autograder.instructor.hub import launch, lti
from autograder.instructor.hub.lti import TokenError, UsedNonces, Validator

CLAIM = launch.CLAIM


@pytest.mark.parametrize("locale, lang", [
    ("es-ES", "es"), ("es-419", "es"), ("pt-BR", "pt"), ("pt_br", "pt"), ("zh-CN", "zh"), ("zh-Hans", "zh"),
    ("zh_cn", "zh"), ("fr-FR", "fr"), ("fr-CA", "fr"), ("sv-SE", "sv"), ("SV", "sv"), ("en-GB", "en"),
    # not one of the course's languages: the course's own English
    ("zh-TW", "en"), ("zh-Hant-HK", "en"), ("de-DE", "en"), ("", "en"), ("../../etc", "en"), (None, "en"), (42, "en"),
])
def test_the_language_is_the_launchs_locale_when_the_course_has_it(locale, lang):
    assert launch.language({CLAIM + "launch_presentation": {"locale": locale}}) == lang


def test_without_a_presentation_locale_the_users_own_counts():
    assert launch.language({"locale": "fr-CH"}) == "fr"
    assert launch.language({"locale": "sv", CLAIM + "launch_presentation": {"locale": "es"}}) == "es"
    assert launch.language({CLAIM + "launch_presentation": "es"}) == "en"


@pytest.mark.parametrize("claims, lesson", [
    ({CLAIM + "custom": {"lesson": "03_zeroing_grad"}}, "03_zeroing_grad"),
    ({CLAIM + "target_link_uri": "https://hub.example.org/lessons/02_backward"}, "02_backward"),
    ({CLAIM + "target_link_uri": "https://hub.example.org/hub/lessons/02_backward/?x=1"}, "02_backward"),
    # the custom parameter wins over the link
    ({CLAIM + "custom": {"lesson": "01_requires_grad"},
      CLAIM + "target_link_uri": "https://hub.example.org/lessons/02_backward"}, "01_requires_grad"),
    # no lesson, or none that is an assignment's plain name: the student's JupyterLab, no lesson
    ({CLAIM + "target_link_uri": "https://hub.example.org/"}, None),
    ({CLAIM + "target_link_uri": "https://hub.example.org/lessons/..%2F..%2Fetc"}, None),
    ({CLAIM + "custom": {"lesson": "../03_zeroing_grad"}}, None),
    ({CLAIM + "custom": {"lesson": "03 zeroing"}}, None),
    ({CLAIM + "custom": {"lesson": ["03_zeroing_grad"]}}, None),
    ({CLAIM + "custom": "lesson=03_zeroing_grad"}, None),
])
def test_the_lesson_is_the_one_the_link_names(claims, lesson):
    assert launch.lesson(claims) == lesson


def test_the_destination_is_the_lesson_link_of_the_students_own_server():
    assert launch.destination("es", "03_zeroing_grad") == "lessons/es/03_zeroing_grad/03_zeroing_grad.ipynb"
    assert launch.destination("zh", None) == "lessons/zh"
    assert launch.destination("klingon", None) == "lessons/en"


def test_the_student_id_is_one_claim_and_only_that_one():
    claims = {"email": "Ana@Uni.example", "sub": "a6d5c443", CLAIM + "custom": {"login_id": "ana"}}
    assert launch.claimed_id(claims, "email") == "Ana@Uni.example"
    assert launch.claimed_id(claims, "sub") == "a6d5c443"
    assert launch.claimed_id(claims, "custom_login_id") == "ana"
    # a launch without the claim has no id (the library would take `sub` instead)
    assert launch.claimed_id({"sub": "a6d5c443"}, "email") is None
    assert launch.claimed_id({"sub": "x", CLAIM + "custom": "login_id=ana"}, "custom_login_id") is None


@pytest.mark.parametrize("value", [
    None, "", "ana garcia@uni.example", "ana+lti@uni.example", "<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0",
    "ana,10,10", "../../etc/passwd", "-rf", "a" * 65, "\x1b[2Jana", "ana\n", 42, ["ana"], {"id": "ana"}])
def test_an_id_that_is_not_plain_is_refused_with_why(value):
    assert launch.id_refusal(value)


@pytest.mark.parametrize("value", ["ana@uni.example", "a6d5c443-1f51-4783-ba1a-7686ffe3b54a", "37", "s.perez"])
def test_a_plain_id_is_taken(value):
    assert launch.id_refusal(value) is None


# ----------------------------------------------------------------------- verification

@pytest.fixture(scope="module")
def platform():
    with Platform() as running:
        running.hub = "http://hub.invalid"
        yield running


def verify(platform, token, issuer=None, audience=(CLIENT_ID,), algorithms=("RS256",)):
    return Validator().verify_and_decode_jwt(token, issuer or platform.issuer, set(audience),
                                             f"{platform.url}/jwks", list(algorithms))


def test_a_token_the_platform_signed_is_taken(platform):
    claims = platform.claims("ana@uni.example", nonce="n-1")
    assert verify(platform, platform.sign(claims))["email"] == "ana@uni.example"


@pytest.mark.parametrize("forged, why", [
    (lambda p, c: p.sign(c, new_key()), "Signature verification failed"),  # another key, the platform's key id
    (lambda p, c: p.sign(c, new_key("another-key")), "Unable to find a signing key"),
    (lambda p, c: unsigned(c), "alg value is not allowed"),  # alg none
    (lambda p, c: hmac_signed(c, p.key.as_pem(private=False)), "alg value is not allowed"),  # HS256, the public key as secret
    (lambda p, c: p.sign(dict(c, iss="https://lms.example.org")), "Invalid issuer"),
    (lambda p, c: p.sign(dict(c, exp=int(time.time()) - 1, iat=int(time.time()) - 61)), "expired"),
    (lambda p, c: p.sign({k: v for k, v in c.items() if k != "exp"}), '"exp"'),
    (lambda p, c: p.sign({k: v for k, v in c.items() if k != "nonce"}), '"nonce"'),
    (lambda p, c: p.sign({k: v for k, v in c.items() if k != "iat"}), '"iat"'),
    (lambda p, c: "not a token", "Not enough segments|Invalid"),
])
def test_a_token_not_from_the_platform_as_configured_is_refused(platform, forged, why):
    with pytest.raises(TokenError, match=why):
        verify(platform, forged(platform, platform.claims("ana@uni.example", nonce="n-2")))


def test_a_token_for_another_tool_is_refused_as_its_audience(platform):
    with pytest.raises(lti.InvalidAudienceError):
        verify(platform, platform.sign(platform.claims("ana@uni.example", nonce="n-3", aud="another-tool")))


def test_the_platforms_keys_are_fetched_once_for_many_launches(platform):
    """300 launches in a minute cost one fetch of the JWKS, and tokens naming key ids the
    platform never had (forged, or a flood of them) cost none within PyJWT's cooldown."""
    served = []
    original = platform.jwks
    platform.jwks = lambda: served.append(1) or original()
    try:
        lti._KEYS.pop(f"{platform.url}/jwks", None)
        for n in range(5):
            verify(platform, platform.sign(platform.claims("ana@uni.example", nonce=f"k-{n}")))
        forger = new_key("forged")
        for n in range(5):
            key = RSAKey.import_key({**forger.as_dict(private=True), "kid": f"kid-{n}"})
            with pytest.raises(TokenError, match="Unable to find a signing key"):
                verify(platform, platform.sign(platform.claims("ana@uni.example", nonce=f"f-{n}"), key))
        assert len(served) == 1
    finally:
        platform.jwks = original


def test_a_nonce_is_taken_once_until_its_token_expires():
    nonces = UsedNonces()
    nonces.use("a", until=100, now=0)
    with pytest.raises(TokenError, match="replayed"):
        nonces.use("a", until=100, now=99)
    nonces.use("b", until=200, now=150)  # "a" is forgotten past its time: its token is refused anyway
    assert len(nonces) == 1


def test_without_an_issuer_the_hub_takes_passwords_only():
    from jupyterhub.handlers.login import LoginHandler

    assert lti.CourseAuthenticator().get_handlers(None) == [("/login", LoginHandler)]
    with_lti = lti.CourseAuthenticator(issuer="https://canvas.instructure.com")
    assert [url for url, _ in with_lti.get_handlers(None)] == ["/login", "/lti13/oauth_login", "/lti13/oauth_callback"]
    assert with_lti.login_url("/hub/") == "/hub/login" and with_lti.login_service == ""


def test_a_launch_is_allowed_whoever_it_names_and_a_password_only_for_the_course():
    authenticator = lti.CourseAuthenticator(issuer="https://canvas.instructure.com", allowed_users={"teacher"})
    assert authenticator.check_allowed("ana@uni.example", {"name": "ana@uni.example", "auth_state": {"lti13": True}})
    assert not authenticator.check_allowed("ana@uni.example", {"name": "ana@uni.example", "auth_state": None})
    assert authenticator.check_allowed("teacher", {"name": "teacher", "auth_state": None})
