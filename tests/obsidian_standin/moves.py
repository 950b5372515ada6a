"""`MOVE /vault/{path}` (4.1+): rename a file like `fileManager.renameFile`, links to it rewritten as Obsidian does.

Obsidian rewrites every link that resolved to the renamed file. The stand-in does so for wikilinks (body and
frontmatter, not in code fences or inline code): a link is rewritten only when it no longer resolves to the file,
a name stays the shortest unique name, a path stays a full path; `#subpath` and `|alias` are kept. Markdown links are
left as they are (a limit of the stand-in, not of Obsidian).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

from starlette.responses import Response

from rag.notes.links import LinkResolver
from tests.obsidian_standin.errors import ApiError
from tests.obsidian_standin.vault_files import VaultFolder, decode_component

_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_INLINE_CODE = re.compile(r"(`+).+?\1")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_SLASHES = re.compile(r"/{2,}")


def move_file(folder: VaultFolder, path: str, headers: Mapping[str, str]) -> Response:
    """Answer a MOVE: 204 with Content-Location, 404 without a source, 409/40920 on an existing destination."""
    new_path = _destination(headers, path)
    if not folder.is_file(path):
        raise ApiError(40400)
    if folder.is_file(new_path) and headers.get("allow-overwrite", "false").lower() != "true":
        raise ApiError(40920)
    before = LinkResolver(folder.files())
    target = folder.locate(new_path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.locate(path).replace(target)
    except OSError as exc:
        raise ApiError(50020, f"Failed to move file: {exc}") from exc
    after = LinkResolver(folder.files())
    for note in folder.files():
        if note.endswith(".md"):
            source = path if note == new_path else note
            _rewrite_note(folder, note, source, old=path, new=new_path, resolvers=(before, after))
    return Response(status_code=204, headers={"Content-Location": quote(new_path, safe="/;,?:@&=+$-_.!~*'()#")})


def _destination(headers: Mapping[str, str], path: str) -> str:
    raw = headers.get("destination")
    if raw is None:
        raise ApiError(40020)
    try:
        decoded = decode_component(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(40022) from exc
    decoded = _SLASHES.sub("/", decoded.replace("\\", "/"))
    if decoded.startswith("/") or ".." in decoded.split("/"):
        raise ApiError(40021)
    if decoded.endswith("/"):  # a folder: the file keeps its name
        decoded += path.rpartition("/")[2]
    return decoded


def _rewrite_note(
    folder: VaultFolder, note: str, source: str, *, old: str, new: str, resolvers: tuple[LinkResolver, LinkResolver]
) -> None:
    before, after = resolvers
    text = folder.read_text(note)
    lines = text.split("\n")
    fence = ""
    for index, line in enumerate(lines):
        opener = _FENCE.match(line)
        if opener and (not fence or opener[1].startswith(fence)):
            fence = "" if fence else opener[1][:3]
            continue
        if fence or "[[" not in line:
            continue
        code = [match.span() for match in _INLINE_CODE.finditer(line)]

        def replace(match: re.Match[str], code: list[tuple[int, int]] = code) -> str:
            if any(start <= match.start() < end for start, end in code):
                return match[0]
            return _rewritten(match, source=source, note=note, old=old, new=new, before=before, after=after)

        lines[index] = _WIKILINK.sub(replace, line)
    rewritten = "\n".join(lines)
    if rewritten != text:
        folder.write(note, rewritten.encode("utf-8"))


def _rewritten(
    match: re.Match[str], *, source: str, note: str, old: str, new: str, before: LinkResolver, after: LinkResolver
) -> str:
    content = match[1]
    ends = [found for found in (content.find("\\|"), content.find("|"), content.find("#")) if found >= 0]
    cut = min(ends, default=len(content))
    target = content[:cut].strip()
    if not target or before.resolve(target, source_path=source).path != old:
        return match[0]
    if after.resolve(target, source_path=note).path == new:
        return match[0]
    keeps_md = target.lower().endswith(".md")
    if "/" in target:  # a path stays a path; a name becomes the shortest unique name, like "shortest path"
        text = new if keeps_md else new.removesuffix(".md")
    else:
        text = after.link_text_for(new) + (".md" if keeps_md else "")
    return f"[[{text}{content[cut:]}]]"
