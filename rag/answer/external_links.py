"""Links and images to web hosts the user did not name, turned into plain text before a reply is shown.

A chat app that renders `![x](https://host/p?d=…)` fetches that URL at once: a note (or a model misled by one)
could send what the conversation holds to any host, without a click. So an image, link, autolink, bare URL or
HTML tag whose http(s) URL points at a host the user's message does not name is shown as text without its URL:
`label (host)` for a link, `(image from host not shown)` for an image. Vault links (`[[Note]]`, `Note.md`) and
other schemes are left alone, and so is code, which a chat app shows as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection

from rag.answer.code_spans import code_ranges

_LABEL = r"(?:\\.|[^\[\]\\\n]|\[(?:\\.|[^\[\]\\\n])*\])*"  # one level of nested brackets, as `[![img](src)](href)`
_DEST = r"<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*"
_TITLE = r"\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)"
INLINE_LINK = re.compile(rf"(!?)\[({_LABEL})\]\(\s*({_DEST})(?:\s+(?:{_TITLE}))?\s*\)")
AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
PASSAGE_TAG = "note"  # rag.answer.context wraps each passage in <note ...> ... </note>
HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
BARE_URL = re.compile(r"(?<![\w/@.-])(?:https?://|www\.)[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = re.compile(r"[?!.,:;*_~'\"]+$")  # GFM leaves these out of an autolinked URL
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_WEB = re.compile(r"(?i)^(?:https?:|(?=[/\\]{2}))[/\\]*([^/?#\\]*)")
_TAG_URL = re.compile(r"(?i)(?:https?:|(?<=[\"'=\s])[/\\]{2})[^\s\"'<>]*")
_IMAGE_TAGS = frozenset({"img", "image", "picture", "source", "video", "audio", "input"})
_DOMAIN = re.compile(r"(?i)(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,62}(?![\w-])")


# Hosts are looked for in this much of the user's message (a pasted megabyte must cost no more than a page); a
# host named only beyond it is not allowed, which errs on the safe side: its links show as text.
HOST_CHARS = 20_000


def named_hosts(message: str) -> frozenset[str]:
    """Return the hosts a user's message names: those of its URLs and every domain-like word ("evil.example")."""
    message = message[:HOST_CHARS]
    hosts = {_web_host(match[0]) for match in BARE_URL.finditer(message)}
    hosts.update(_normal_host(match[0]) for match in _DOMAIN.finditer(message))
    return frozenset(host for host in hosts if host)


def neutralise_links(text: str, allowed: Collection[str]) -> str:
    """Return `text` with external images and links to hosts not in `allowed` made plain text; code is kept."""
    pieces: list[str] = []
    pos = 0
    for start, end in code_ranges(text):
        pieces.extend((neutralise_prose(text[pos:start], allowed), text[start:end]))
        pos = end
    pieces.append(neutralise_prose(text[pos:], allowed))
    return "".join(pieces)


def neutralise_prose(text: str, allowed: Collection[str]) -> str:
    """Return `text` (holding no code) with external images and links to hosts not in `allowed` made plain text."""
    guard = _Guard(frozenset(allowed))
    text = INLINE_LINK.sub(guard.inline, text)
    text = AUTOLINK.sub(guard.autolink, text)
    text = HTML_TAG.sub(guard.tag, text)
    return BARE_URL.sub(guard.bare, text)


class _Guard:
    """The replacements, given the hosts the user named."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self._allowed = allowed

    def blocked_host(self, url: str) -> str | None:
        """Return the host of an external web URL the user did not name, else None (keep the URL)."""
        host = _web_host(url)
        if host is None:
            return None
        if host and "@" not in host and any(host == name or host.endswith("." + name) for name in self._allowed):
            return None
        return _normal_host(host.rpartition("@")[2]) or "an unnamed host"

    def inline(self, match: re.Match[str]) -> str:
        label = neutralise_prose(match[2], self._allowed)
        host = self.blocked_host(match[3])
        if host is None:  # a named host: the link stays, an image or link inside its label may not
            return match[0] if label == match[2] else f"{match[1]}[{label}{match[0][match.end(2) - match.start() :]}"
        shown = " ".join(label.split())
        if match[1]:
            return f"{shown} (image from {host} not shown)" if shown else f"(image from {host} not shown)"
        return f"{shown} ({host})" if shown else host

    def autolink(self, match: re.Match[str]) -> str:
        host = self.blocked_host(match[1])
        return match[0] if host is None else host

    def tag(self, match: re.Match[str]) -> str:
        name = re.match(r"</?([A-Za-z0-9-]+)", match[0])
        if name is not None and name[1].lower() == PASSAGE_TAG and (match[0].startswith("</") or "source=" in match[0]):
            # The service's own passage delimiters, which a small model copies out with a passage's text (a bare
            # <note> the user wrote, say about MusicXML, stays).
            return ""
        hosts = [self.blocked_host(url[0]) for url in _TAG_URL.finditer(html.unescape(match[0]))]
        host = next((found for found in hosts if found is not None), None)
        if host is None:
            return match[0]
        if name is not None and name[1].lower() in _IMAGE_TAGS:
            return f"(image from {host} not shown)"
        return f"(link to {host} removed)"

    def bare(self, match: re.Match[str]) -> str:
        url = _trim(match[0])
        host = self.blocked_host(url if "://" in url else f"http://{url}")
        return match[0] if host is None else host + match[0][len(url) :]


def _trim(url: str) -> str:
    """Return a bare URL without what GFM leaves out of it: trailing punctuation and an unbalanced `)`."""
    while True:
        trimmed = _TRAILING.sub("", url)
        if trimmed.endswith(")") and trimmed.count(")") > trimmed.count("("):
            trimmed = trimmed[:-1]
        if trimmed == url:
            return url
        url = trimmed


def _web_host(url: str) -> str | None:
    """Return the host (lower case, `user@` kept) of an http(s) or `//` URL, "" when it names none, else None."""
    cleaned = _ESCAPED.sub(r"\1", html.unescape(url.strip().strip("<>")))
    cleaned = "".join(char for char in cleaned if char > " ")  # browsers drop tabs and newlines inside URLs
    if cleaned.lower().startswith("www."):
        cleaned = "//" + cleaned
    found = _WEB.match(cleaned)
    if found is None:
        return None
    authority = found[1].lower()
    host = authority.rpartition("@")[2]
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return (authority.rpartition("@")[0] + "@" if "@" in authority else "") + _normal_host(host)


def _normal_host(host: str) -> str:
    host = host.lower().rstrip(".")
    return host.removeprefix("www.")
