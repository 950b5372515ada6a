"""Credentials as users write them (`API_TOKEN=abc123`, `GITHUB_PAT: value`): masked however short; prose is not."""

from __future__ import annotations

import pytest

from rag.answer.secrets import REDACTED, count_masks, redact_secrets

M = REDACTED

WRITTEN = [
    # (line, expected): short or plain values an entropy test cannot tell from words, named as credentials
    ("API_TOKEN=abc123", f"API_TOKEN={M}"),
    ("GITHUB_PAT: my-pat-1", f"GITHUB_PAT: {M}"),
    ("db_password = x", f"db_password = {M}"),
    ("export AWS_SECRET_ACCESS_KEY=abc", f"export AWS_SECRET_ACCESS_KEY={M}"),
    ("x-auth-token: abc123", f"x-auth-token: {M}"),
    ('apiKey: "abc"', f'apiKey: "{M}"'),
    ('{"api_key": "abc123", "model": "gpt"}', f'{{"api_key": "{M}", "model": "gpt"}}'),
    ("  client_secret: 'short'", f"  client_secret: '{M}'"),
    ("- **DB password:** hunter", f"- **DB password:** {M}"),
    ("`API_TOKEN=abc123`", f"`API_TOKEN={M}`"),
    ("API_TOKEN=abc123 python deploy.py", f"API_TOKEN={M} python deploy.py"),
    ("mysql -u root --password=abc123", f"mysql -u root --password={M}"),
    ("SMTP_PASSWORD=1234", f"SMTP_PASSWORD={M}"),
    ("The wifi password: guest1", f"The wifi password: {M}"),
    ("Authorization: Bearer abc123", f"Authorization: Bearer {M}"),
    ("credentials: admin/admin", f"credentials: {M}"),
    ("| staging | `DEPLOY_KEY=k3y` |", f"| staging | `DEPLOY_KEY={M}` |"),
    ("passwd=letmein  # the old one", f"passwd={M}  # the old one"),
    ("Proposed: API_TOKEN=abc123", f"Proposed: API_TOKEN={M}"),
]


@pytest.mark.parametrize(("line", "expected"), WRITTEN)
def test_a_value_assigned_to_a_credential_name_is_masked_however_short(line: str, expected: str) -> None:
    assert redact_secrets(line) == expected


PROSE = [
    "Key: the main idea is to keep notes small.",
    "Password: see 1Password",
    "Author: Jane",
    "keyboard: split",
    "monkey: banana",
    "patio: tiles",
    "path: /usr/local/bin",
    "pattern: *.md",
    "authority: the county",
    "tokens: 1200",
    "max_tokens: 1200",
    "num_keys: 3",
    "Pat: Sounds good.",
    "- Token: OP",
    "Key: important",
    "sorted(names, key=len)",
    "token_url: https://auth.example.com/token",
    "api_key: ${OPENAI_API_KEY}",
    'API_KEY = os.environ["API_KEY"]',
    "api_key: <your key>",
    "basic_auth: true",
    "private_key: ~/.ssh/id_ed25519",
    "password: [[Passwords]]",
    "primary_key: id",
    "public_key: ssh-ed25519",
    "password = getpass()",
    "token = token",
    "See https://example.com/login?token=abc123 for the form",
    "The api_key: it goes in the header, not the URL.",
    "Authorization: required",
]


@pytest.mark.parametrize("line", PROSE)
def test_prose_and_references_that_name_a_credential_are_left_as_written(line: str) -> None:
    assert redact_secrets(line) == line


def test_masking_written_credentials_twice_changes_nothing_more() -> None:
    once = redact_secrets("\n".join(line for line, _ in WRITTEN))
    assert redact_secrets(once) == once
    assert count_masks(once) == len(WRITTEN)
