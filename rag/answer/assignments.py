"""Credentials written as a value assigned to a credential's name (`API_TOKEN=abc123`, `db_password: x`).

detect-secrets finds random-looking values, and its keyword detector drops short or sequential ones (`x`,
`abc123`); users write `GITHUB_PAT: value`, `export AWS_SECRET_ACCESS_KEY=...`, `x-auth-token: abc`. Here a value
is masked however short when the last word part of its NAME (split at `_`, `-`, `.` and camelCase) names a
credential: token, secret, key, password, passwd, pwd, pat, credential(s), auth, passphrase (also glued, as in
`apikey`, `accessToken`). Prose stays as written:
- after `NAME: ` or `name = ` the value must be one token that ends the line, a table cell or a `#` comment
  ("Key: the main idea is ..."); only `NAME=value` written together may go on (`API_TOKEN=abc python run.py`);
- `Key:`, `Pat:` and `Auth:` alone are words (a heading, a name in a transcript): they need a qualifier
  (`api_key`, `GITHUB_PAT`, `x-auth`), and any word alone written as a label (`Token: OP`, a coin) is left to
  detect-secrets; a key that is no credential (`primary_key`, `public_key`) is no secret;
- placeholders, references and links are no values: `${VAR}`, `<your key>`, `true`, `os.environ[...]`,
  `getpass()`, `API_KEY`, a path, a URL or a `[[wikilink]]`; a count (`max_tokens: 1200` is no credential name,
  `num_keys: 3` ends in no credential word) and, but for passwords and secrets, a number only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

# `[redacted secret]` already written there: masking twice changes nothing more.
_MARKER = "[redacted"
_ASSIGNMENT = re.compile(
    r"""(?<![\w./\\-])(?P<name>-{0,2}[A-Za-z_][\w.-]*)["'*`]*(?P<before>[ \t]*)
    (?P<sep>:(?![:=/])|=(?![=>~]))[*`]*(?P<after>[ \t]*)
    (?:(?P<scheme>Bearer|Basic|Token|Digest)[ \t]+)?
    (?:(?P<quote>["'`])(?P<quoted>[^"'`\n]+)(?P=quote)|(?P<bare>[^\s"'`|<>()\[\]{}]+))""",
    re.VERBOSE,
)
_SCHEMES = frozenset({"Bearer", "Basic", "Token", "Digest"})  # `Authorization: Basic <base64>`: the scheme stays
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CREDENTIAL_WORD = re.compile(
    r"(?:api|access|auth|bearer|client|private|refresh|secret|session|app|master|admin|root|db|user|service)?"
    r"(?P<word>token|secret|key|password|passwd|pwd|pat|credentials?|auth|passphrase)"
)
_NEEDS_QUALIFIER = frozenset({"key", "pat", "auth"})
_NOT_A_CREDENTIAL_KEY = frozenset(
    {"public", "pub", "primary", "foreign", "sort", "partition", "hash", "cache", "unique", "composite", "hot",
     "shortcut", "short", "row", "index", "dict", "lookup", "map", "natural", "surrogate", "idempotency", "music"}
)  # fmt: skip
_NUMBERS_ALLOWED = ("pass", "pwd", "secret")  # a PIN-like password is a number; a key or token count is too
# After `NAME: value` (or a spaced `name = value`): nothing, a comment, a table cell's end, or closing emphasis.
_LINE_END = re.compile(r"[.,;!?]?[`*]*[ \t]*(?:$|#|//|\|)")
_QUOTED_END = re.compile(r"[ \t]*[,;}\]]")  # `{"api_key": "abc", ...}`, `[token: 'x']`
_TRAILING = ".,;:!?"
_PLACEHOLDERS = frozenset(
    {"true", "false", "yes", "no", "on", "off", "null", "none", "nil", "undefined", "empty", "required",
     "optional", "unset", "n/a", "tbd", "todo", "string", "str", "bool", "int"}
)  # fmt: skip
_TEMPLATE = re.compile(r"[$%{<].*|.*[}>%]|[*.…_#-]+|[xX]{3,}")  # ${VAR}, <your key>, %VAR%, ***, xxx
_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_LINK = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|~?\.{0,2}/|[A-Za-z]:\\")


def assignment_spans(line: str, urls: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Yield where values assigned to credential names are in `line`, outside the given URL spans."""
    if ":" not in line and "=" not in line:
        return
    pos = 0
    while (match := _ASSIGNMENT.search(line, pos)) is not None:
        pos = match.end("sep")  # a value may hold the next assignment: `proposed: API_TOKEN=abc123`
        start, end = match.span("quoted") if match["quoted"] else match.span("bare")
        value = line[start:end]
        if match["bare"]:
            if value.endswith(("...", "…")) or line[end : end + 1] in ("(", "["):
                continue  # elided (`ls_...`), or a call or an index: `workspace_secret("NAME")`
            value = value.rstrip(_TRAILING) or value
            end = start + len(value)
        if any(u_start < end and match.start() < u_end for u_start, u_end in urls):
            continue
        if _is_assignment(match, end) and _is_credential_value(_credential_word(match["name"]), value, match["name"]):
            yield start, end


def _is_assignment(match: re.Match[str], end: int) -> bool:
    """Return True when the match reads as configuration, not as a sentence going on after a colon."""
    if match["sep"] == "=" and not match["before"] and not match["after"]:
        return True  # `NAME=value` written together, also before a command: `API_TOKEN=abc python run.py`
    if match["name"].lower() == "authorization" and not match["scheme"]:
        return False  # "Authorization: the process of ...", "Authorization: granted"
    rest = match.string[match.end() :] if match["quoted"] else match.string[end:]
    return bool(_LINE_END.match(rest) or (match["quoted"] and _QUOTED_END.match(rest)))


def _credential_word(name: str) -> str | None:
    """Return the credential word NAME ends in (`password` for `db_password`), or None when it names none."""
    if name.lower() == "authorization":
        return "auth"
    parts = [part.lower() for part in _PARTS.findall(name)]
    while parts and parts[-1].isdigit():
        parts.pop()  # API_KEY_2
    found = _CREDENTIAL_WORD.fullmatch(parts[-1]) if parts else None
    if found is None:
        return None
    if len(parts) == 1 and (parts[0] in _NEEDS_QUALIFIER or name.lstrip("-").istitle()):
        return None  # "Key: ...", and a label in prose: "- Token: OP" (a coin); `token:`, `TOKEN=` are config
    if found["word"] == "key" and len(parts) > 1 and parts[-2] in _NOT_A_CREDENTIAL_KEY:
        return None
    return found["word"]


def _is_credential_value(word: str | None, value: str, name: str) -> bool:
    if word is None or not value or value.startswith(_MARKER) or value in _SCHEMES:
        return False
    lowered = value.lower()
    if lowered in _PLACEHOLDERS or lowered in (name.lower().lstrip("-"), word):
        return False
    if _TEMPLATE.fullmatch(value) or _REFERENCE.fullmatch(value) or _LINK.match(value):
        return False
    return not value.isdigit() or word.startswith(_NUMBERS_ALLOWED)
