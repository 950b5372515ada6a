"""The web UI's session cookies and CSRF tokens: signed, expiring, bound to API_KEY, one token per session."""

from __future__ import annotations

import pytest

from app.web.login_pages import safe_next
from app.web.session import SESSION_SECONDS, SessionKeys

NOW = 1_800_000_000.0


def test_a_cookie_is_read_back_until_it_expires_and_not_after_any_change() -> None:
    keys = SessionKeys("a-key-of-sixteen-or-more")
    session_id, cookie = keys.new_cookie(NOW)
    sid, issued, signature = cookie.split(".")

    assert keys.read_cookie(cookie, NOW + SESSION_SECONDS) == session_id
    assert keys.read_cookie(cookie, NOW + SESSION_SECONDS + 1) is None
    assert keys.read_cookie(cookie, NOW - 60) is None  # issued in the future: not ours
    assert keys.read_cookie(f"{sid}.{int(issued) + 1}.{signature}", NOW) is None  # a longer life forged
    assert keys.read_cookie(f"other.{issued}.{signature}", NOW) is None
    assert keys.read_cookie(None, NOW) is None and keys.read_cookie("a.b", NOW) is None


def test_cookies_survive_a_restart_with_the_same_key_and_end_when_it_changes() -> None:
    _session_id, cookie = SessionKeys("a-key-of-sixteen-or-more").new_cookie(NOW)

    assert SessionKeys("a-key-of-sixteen-or-more").read_cookie(cookie, NOW) is not None
    assert SessionKeys("another-key-of-sixteen-chars").read_cookie(cookie, NOW) is None
    assert SessionKeys(None).read_cookie(cookie, NOW) is None  # without a key: a secret of this process only


def test_each_session_has_its_own_csrf_token() -> None:
    keys = SessionKeys(None)
    first, _ = keys.new_cookie(NOW)
    second, _ = keys.new_cookie(NOW)

    assert keys.csrf(first) == keys.csrf(first) != keys.csrf(second)


@pytest.mark.parametrize(
    ("asked", "went"),
    [
        ("/proposals?x=1", "/proposals?x=1"),
        ("//evil.example/", "/"),
        ("https://evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("/\nSet-Cookie: x", "/"),
    ],
)
def test_after_logging_in_the_browser_goes_only_to_a_page_of_this_service(asked: str, went: str) -> None:
    assert safe_next(asked) == went
