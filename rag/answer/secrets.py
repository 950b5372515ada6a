"""Credentials in note text, found with Yelp's detect-secrets and replaced by a marker before the text leaves.

The plugins are named here, not taken from the library's defaults: its vendor patterns (AWS, GitHub, OpenAI,
Slack, Stripe, JWT, ...), its keyword detector (`password: …`, `api_key = …`, `secret: …`), its private-key
detector and its high-entropy detectors. IPPublicDetector is left out: an IP address in a note is no credential.
The library's own heuristic filters (sequential strings, UUIDs, ids, `${templates}`) drop its usual false hits.

A value assigned to a credential's name is masked however short or plain (`API_TOKEN=abc123`, `db_password = x`;
rag/answer/assignments.py), as users write them. Three choices keep ordinary notes unchanged: over sample_vault and
three public vaults (3,106 notes) one line changes, a real GitHub token (`python -m bench.redaction --count-vaults`):
- Random-looking base64 tokens count anywhere except inside URLs (where ids and slugs look random too), so
  `API_TOKEN=…` and a bare `sk-…` are found even unquoted; hex strings count only in quotes (commit hashes).
- The keyword detector reads lines as configuration (`key: value`, `key = value`), with Markdown emphasis
  removed first, so `**Password:** hunter2` is found; an unquoted value of several words that starts with a
  plain word is prose ("Password: see 1Password").
- Named assignments follow the rules in rag/answer/assignments.py ("Key: the main idea ..." is prose).

Only the value is replaced: `API_TOKEN=[redacted secret]`. A PEM or PuTTY private key becomes one marker line.
The library is imported on first use (it costs ~0.2 s), and no plugin state is shared between calls.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from rag.answer.assignments import assignment_spans

if TYPE_CHECKING:
    from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector

REDACTED = "[redacted secret]"
REDACTED_KEY = "[redacted private key]"
# The keyword detector picks its patterns by file type; notes read like YAML/config (`key: value`, `key = value`).
_CONFIG_NAME = "note.yaml"
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`]*")
_EMPHASIS = re.compile(r"[*`]")
# "The secret: add the salt late.", "Password: see 1Password". The keyword detector takes the rest of the line
# for the value: two words or more that start with a plain word are prose ("hunter2. Rotate it." is not), unless
# quoted (`password: "correct horse battery"`).
_PROSE = re.compile(r"[A-Za-z]+\s+\S.*")
_NAME_IS = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=")  # `API_TOKEN=` before a value the entropy check found
_MIN_RANDOM_CHARS = 20  # shorter runs cannot reach the base64 entropy limit (4.5 bits needs 23+ distinct chars)
# Lines of a private key after its BEGIN line: base64, blank, or `Name: value` headers (PEM, PuTTY), through END.
_KEY_BODY = re.compile(r"[\s>]*(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)\s*")
_KEY_END = re.compile(r"-----END |Private-MAC: ")
_KEY_BEGIN = re.compile(r"-----BEGIN |PuTTY-User-Key-File-")


@dataclass(frozen=True, slots=True)
class _Detectors:
    patterns: tuple[RegexBasedDetector, ...]
    keyword: KeywordDetector
    private_key: PrivateKeyDetector
    base64: HighEntropyStringsPlugin
    base64_run: re.Pattern[str]
    hex: HighEntropyStringsPlugin


# detect-secrets' vendor plugins, by module and class in `detect_secrets.plugins` (IPPublicDetector left out).
VENDOR_PLUGINS = (
    ("artifactory", "ArtifactoryDetector"),
    ("aws", "AWSKeyDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("npm", "NpmDetector"),
    ("openai", "OpenAIDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
)


@cache
def _detectors() -> _Detectors:
    # One instance per process, used read-only: no plugin's regex is swapped (the library's "eager" mode does that).
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString, HexHighEntropyString
    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    patterns: list[RegexBasedDetector] = []
    for module, name in VENDOR_PLUGINS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)()
        if not isinstance(plugin, RegexBasedDetector):
            raise TypeError(f"detect-secrets' {name} is no longer a pattern plugin; check VENDOR_PLUGINS")
        patterns.append(plugin)
    base64 = Base64HighEntropyString()
    return _Detectors(
        patterns=tuple(patterns),
        keyword=KeywordDetector(),
        private_key=PrivateKeyDetector(),
        base64=base64,
        base64_run=re.compile(f"[{re.escape(base64.charset)}]+"),  # the library's unquoted ("eager") candidates
        hex=HexHighEntropyString(),
    )


def redact_secrets(text: str) -> str:
    """Return `text` with every credential value replaced by `[redacted secret]`, and private keys by one line."""
    if not text:
        return text
    detectors = _detectors()
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        end = _private_key_end(detectors, lines, index)
        if end is not None:
            out.append(REDACTED_KEY)
            index = end + 1
            continue
        out.append(_redact_line(detectors, line))
        index += 1
    return "\n".join(out)


def caching_redactor(size: int) -> Callable[[str], str]:
    """Return `redact_secrets` behind an LRU cache of `size` texts: resent history is masked once, not every turn."""
    return lru_cache(maxsize=size)(redact_secrets)


def count_masks(text: str) -> int:
    """Return how many redaction markers `text` holds (a model that writes one back would lose a credential)."""
    return text.count(REDACTED) + text.count(REDACTED_KEY)


def _private_key_end(detectors: _Detectors, lines: list[str], start: int) -> int | None:
    """Return the index of the last line of a private key that starts at `start`, or None when none starts there."""
    line = lines[start]
    if not _KEY_BEGIN.search(line) or not any(detectors.private_key.analyze_string(line)):
        return None  # a mention in prose ("BEGIN RSA PRIVATE KEY is the header") holds no key
    if _KEY_END.search(line):
        return start
    end = start
    for index in range(start + 1, len(lines)):
        if _KEY_END.search(lines[index]):
            return index
        if not _KEY_BODY.fullmatch(lines[index]):
            break
        end = index
    return end


def _redact_line(detectors: _Detectors, line: str) -> str:
    urls = [match.span() for match in _URL.finditer(line)] if "://" in line else []
    found = (
        _pattern_spans(detectors, line),
        _keyword_spans(detectors, line),
        _random_spans(detectors, line, urls),
        assignment_spans(line, urls),
    )
    spans = sorted({span for spans in found for span in spans})
    if not spans:
        return line
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    parts: list[str] = []
    pos = 0
    for start, end in merged:
        parts.extend((line[pos:start], REDACTED))
        pos = end
    parts.append(line[pos:])
    return "".join(parts)


def _pattern_spans(detectors: _Detectors, line: str) -> Iterator[tuple[int, int]]:
    for plugin in detectors.patterns:
        for pattern in plugin.denylist:
            for match in pattern.finditer(line):
                # Re-asking the plugin applies its own checks (a JWT must decode) and the library's filters.
                if any(not _is_filtered(value, line, plugin) for value in plugin.analyze_string(match[0])):
                    yield _value_span(match)


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    """Return where the secret is in a vendor pattern's match: its group when that holds the value, else all of it.

    `aws_key = "(…)"` and `://user:(…)@` capture the value, which ends the match but for a quote or `@`;
    `(ghp)_…` captures a prefix, which opens it.
    """
    for group in range(1, (match.re.groups or 0) + 1):
        start, end = match.span(group)
        if start > match.start() and match.end() - end <= 2 and end > start:
            return start, end
    return match.span()


def _keyword_spans(detectors: _Detectors, line: str) -> Iterator[tuple[int, int]]:
    if ":" not in line and "=" not in line:
        return
    plain = _EMPHASIS.sub("", line)
    for found in detectors.keyword.analyze_line(filename=_CONFIG_NAME, line=plain, line_number=0):
        value = found.secret_value or ""
        if not value or _is_filtered(value, plain, detectors.keyword):
            continue
        if not _PROSE.fullmatch(value) or f'"{value}"' in plain or f"'{value}'" in plain:
            yield from _occurrences(line, value)


def _random_spans(detectors: _Detectors, line: str, urls: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    for match in detectors.base64_run.finditer(line):
        start, end = match.span()
        if end - start < _MIN_RANDOM_CHARS or any(u_start < end and start < u_end for u_start, u_end in urls):
            continue
        name = _NAME_IS.match(line, start, end)
        if name is not None:
            start = name.end()
        if _is_random(detectors.base64, line[start:end], line):
            yield start, end
    for match in detectors.hex.regex.finditer(line):  # the library's quoted-string pattern
        value = match[2]
        if _is_random(detectors.hex, value, line):
            yield match.span(2)


def _is_random(plugin: HighEntropyStringsPlugin, value: str, line: str) -> bool:
    return (
        len(value) >= _MIN_RANDOM_CHARS // 2
        and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit
        and not _is_filtered(value, line, plugin)
    )


def _is_filtered(secret: str, line: str, plugin: BasePlugin) -> bool:
    """Return True when one of the library's default heuristic filters rejects `secret` as no credential."""
    from detect_secrets.filters import heuristic

    return (
        heuristic.is_sequential_string(secret)
        or heuristic.is_potential_uuid(secret)
        or heuristic.is_likely_id_string(secret, line, plugin)
        or heuristic.is_templated_secret(secret)
        or heuristic.is_prefixed_with_dollar_sign(secret)
        or heuristic.is_indirect_reference(line)
        or heuristic.is_not_alphanumeric_string(secret)
    )


def _occurrences(line: str, value: str) -> Iterator[tuple[int, int]]:
    start = line.find(value)
    while start != -1:
        yield start, start + len(value)
        start = line.find(value, start + len(value))
