"""Secret redaction: configured keys and anything shaped like a credential, in text and in log records."""

from __future__ import annotations

import logging

import pytest

from llm_client.secrets.redaction import REDACTED, RedactingFilter, redact

KEY = "my-local-key-42"

CASES = [
    # (text, secrets, expected)
    ("plain text stays as it is", (), "plain text stays as it is"),
    (f"key {KEY} was refused", (KEY,), f"key {REDACTED} was refused"),
    (f"{KEY}{KEY}", (KEY,), f"{REDACTED}{REDACTED}"),
    ("Authorization: Bearer abc.def-ghi", (), f"Authorization: {REDACTED}"),
    ("authorization=Basic dXNlcjpwYXNz", (), f"authorization={REDACTED}"),
    (
        '{"Authorization": "Bearer tok123456", "Accept": "json"}',
        (),
        f'{{"Authorization": "{REDACTED}", "Accept": "json"}}',
    ),
    ("{'authorization': 'Bearer tok123456'}", (), f"{{'authorization': '{REDACTED}'}}"),
    ("Authorization: Bearer tok123456 was sent", (), f"Authorization: {REDACTED} was sent"),
    ("proxy-authorization: Basic Zm9vOmJhcg==", (), f"proxy-authorization: {REDACTED}"),
    ("X-Api-Key: 0123456789abcdef", (), f"X-Api-Key: {REDACTED}"),
    ("sent bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", (), f"sent Bearer {REDACTED}"),
    ("the bearer of bad news", (), "the bearer of bad news"),
    ("Incorrect API key provided: sk-proj-AbCdEf0123456789", (), f"Incorrect API key provided: sk-{REDACTED}"),
    ("Incorrect API key provided: sk-abc***********wxyz", (), f"Incorrect API key provided: sk-{REDACTED}"),
    ("key provided: lm-s*********ey42.", (), f"key provided: {REDACTED}."),
    ("***bold italic*** stays", (), "***bold italic*** stays"),
    ("scikit-learn and sk-learn", (), "scikit-learn and sk-learn"),
    ("GET https://alice:hunter2@llm.example/v1/models", (), f"GET https://{REDACTED}@llm.example/v1/models"),
    ("https://gen.example/v1?key=AIzaSy123&alt=sse", (), f"https://gen.example/v1?key={REDACTED}&alt=sse"),
    ("api_key=abcdef123 rejected", (), f"api_key={REDACTED} rejected"),
    ("a key of x must not eat every x", ("x",), "a key of x must not eat every x"),
    ("", (KEY,), ""),
]


@pytest.mark.parametrize(("text", "secrets", "expected"), CASES)
def test_redact_replaces_secrets_and_credentials(text: str, secrets: tuple[str, ...], expected: str) -> None:
    assert redact(text, secrets) == expected


@pytest.mark.parametrize(("text", "secrets", "expected"), CASES)
def test_redacting_twice_changes_nothing_more(text: str, secrets: tuple[str, ...], expected: str) -> None:
    assert redact(redact(text, secrets), secrets) == expected


def test_a_longer_secret_containing_a_shorter_one_is_removed_whole() -> None:
    assert redact("token abcd-efgh-ijkl", ["abcd", "abcd-efgh-ijkl"]) == f"token {REDACTED}"


def record(msg: str, args: tuple[object, ...] = (), exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc else None
    return logging.LogRecord("llm_client", logging.WARNING, __file__, 1, msg, args, exc_info)


def formatted(rec: logging.LogRecord) -> str:
    return logging.Formatter("%(message)s").format(rec)


def test_log_filter_redacts_message_and_arguments() -> None:
    rec = record("calling %s with %s", ("http://127.0.0.1:1234/v1", f"Authorization: Bearer {KEY}"))
    assert RedactingFilter([KEY]).filter(rec) is True
    assert formatted(rec) == f"calling http://127.0.0.1:1234/v1 with Authorization: {REDACTED}"


def test_log_filter_redacts_exception_text_and_keys_added_later() -> None:
    try:
        raise RuntimeError(f"provider said: bad key {KEY}")
    except RuntimeError as exc:
        rec = record("request failed", exc=exc)
    log_filter = RedactingFilter()
    log_filter.add_secret(KEY)
    log_filter.filter(rec)
    text = formatted(rec)
    assert KEY not in text
    assert f"RuntimeError: provider said: bad key {REDACTED}" in text


def test_log_filter_keeps_records_whose_arguments_do_not_fit() -> None:
    rec = record("two %s %s", (KEY,))
    assert RedactingFilter([KEY]).filter(rec) is True
    assert KEY not in formatted(rec)


def test_log_filter_on_a_handler_redacts_what_a_logger_emits(caplog: pytest.LogCaptureFixture) -> None:
    caplog.handler.addFilter(RedactingFilter([KEY]))
    logging.getLogger("llm_client.test").warning("endpoint refused %s", KEY)
    assert KEY not in caplog.text
    assert f"endpoint refused {REDACTED}" in caplog.text
