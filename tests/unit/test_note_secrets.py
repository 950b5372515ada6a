"""Credentials in note text (detect-secrets): the value is masked, the key name and ordinary notes are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.answer.secrets import REDACTED, REDACTED_KEY, count_masks, redact_secrets

SAMPLE_VAULT = Path(__file__).resolve().parents[2] / "sample_vault"
M = REDACTED

FOUND = [
    # (line, expected): one per kind of credential a note may hold
    ("API_TOKEN=ghx7Qm2Lp9Zr4Tv8Wn3Ks6Yd1Fb5Hc0J", f"API_TOKEN={M}"),
    ("OPENAI_API_KEY=sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG", f"OPENAI_API_KEY={M}"),
    ("my key is sk-9fQ2xLr7TbZ1mWk4Vn8Hs3Jd6Pq0Yc5Ga2Ue7Ri4, keep it safe", f"my key is {M}, keep it safe"),
    ("legacy: sk-abcdefghij1234567890T3BlbkFJabcdefghij1234567890", f"legacy: {M}"),
    ("aws_access_key_id = AKIAZ7Q4MRL2XW9PT3VB", f"aws_access_key_id = {M}"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq93Lk2mVd", f"aws_secret_access_key = {M}"),
    ("password: hunter2hunter2", f"password: {M}"),
    ("Password: hunter2. Rotate it monthly.", f"Password: {M}"),
    ("- **Password:** correct-horse-battery", f"- **Password:** {M}"),
    ('db_password = "s3cr3t-value"', f'db_password = "{M}"'),
    ("GitHub: 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 thanks", f"GitHub: {M} thanks"),
    ("clone https://ana:pa55word@git.example.com/repo", f"clone https://ana:{M}@git.example.com/repo"),
    (
        "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        f"jwt {M}",
    ),
]


@pytest.mark.parametrize(("line", "expected"), FOUND)
def test_a_credential_value_is_masked_and_its_key_kept(line: str, expected: str) -> None:
    assert redact_secrets(line) == expected


KEPT = [
    "See https://www.youtube.com/playlist?list=PL7nj3G6Jpv2G6Gp6NvN1kUtQuW8QshBWE for the series",
    "Fixed in commit `990fd3c0b9d9f1cbb17f956e3a2433c59868b82d`.",
    "The secret: add the salt after the autolyse.",
    "Meeting id: 123-456-789, password hint in 1Password",
    "The key starts with BEGIN RSA PRIVATE KEY, and that line must stay.",
    "password: ${DB_PASSWORD}",
    "![[Pasted image 20240312101530.png]] and [[Projects/Alpha-Beta-Gamma Launch Plan#Milestones]]",
]


@pytest.mark.parametrize("line", KEPT)
def test_ordinary_text_is_left_as_written(line: str) -> None:
    assert redact_secrets(line) == line


def test_every_sample_vault_note_is_left_as_written() -> None:
    changed = [
        path.relative_to(SAMPLE_VAULT).as_posix()
        for path in sorted(SAMPLE_VAULT.rglob("*.md"))
        if redact_secrets(text := path.read_text(encoding="utf-8")) != text
    ]
    assert changed == []


PEM = """Before the key.
-----BEGIN RSA PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-128-CBC,3F17F5316E2BAC89

MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8n1bJ7rX1YjPpm6K7dLk3VbQw
N0vZ8pL9gK6YwT2oT5m+3FfXh0a2e3hN1d+2h3Jg5Z7Y6k1sQ9rV2wU8xA4bC0dE
-----END RSA PRIVATE KEY-----
After the key."""


def test_a_private_key_block_becomes_one_marker_line() -> None:
    assert redact_secrets(PEM) == f"Before the key.\n{REDACTED_KEY}\nAfter the key."


def test_a_private_key_cut_off_by_the_passage_end_is_masked_to_its_last_line() -> None:
    cut = PEM.split("-----END")[0].rstrip()
    assert redact_secrets(cut) == f"Before the key.\n{REDACTED_KEY}"


def test_masking_twice_changes_nothing_more() -> None:
    once = redact_secrets("\n".join(line for line, _ in FOUND))
    assert redact_secrets(once) == once
    assert count_masks(once) == len(FOUND)
