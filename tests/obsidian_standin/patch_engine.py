"""Header-era PATCH semantics (markdown-patch 0.4.x / 1.x text operations) over a document string."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Literal

from ruamel.yaml import YAML

from tests.obsidian_standin.document_map import SEPARATOR, DocumentMap, Span, Target, build_document_map

Operation = Literal["append", "prepend", "replace"]
TargetType = Literal["heading", "block", "frontmatter"]
Scope = Literal["content", "marker", "markerAndContent"]


class PatchFailed(Exception):
    """A patch that cannot be applied; `reason` is the detail line of errorCode 40080."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class MergeMismatch(Exception):
    """Appending values of different types (0.4.x lets this escape as a 500)."""


@dataclass(frozen=True, slots=True)
class PatchRequest:
    """One decoded header-era PATCH instruction."""

    operation: Operation
    target_type: TargetType
    target: str | list[str]  # heading path elements, or a block id / frontmatter key
    content: object  # str for text/markdown, any JSON value for application/json
    is_json: bool = False
    create_if_missing: bool = False
    trim_whitespace: bool = False
    check_preexisting: bool = False
    scope: Scope = "content"


def _range(target: Target, scope: Scope) -> Span:
    if scope == "marker":
        return target.marker
    if scope == "markerAndContent":
        return Span(min(target.marker.start, target.content.start), max(target.marker.end, target.content.end))
    return target.content


def _replace_text(document: str, content: str, span: Span, eol: str) -> str:
    suffix = document[span.end :]
    suffix_eol = "\r\n" if suffix.startswith("\r\n") else "\n"
    single_leading = suffix.startswith(suffix_eol) and not suffix.startswith(suffix_eol * 2)
    trailing_blank = (
        bool(suffix) and not suffix.startswith(eol) and document[span.end - 2 * len(eol) : span.end] == eol * 2
    )
    if single_leading and not content.endswith("\n"):
        content += suffix_eol
    elif trailing_blank and not content.endswith(eol * 2):
        content += eol if content.endswith(eol) else eol * 2
    return document[: span.start] + content + suffix


def _prepend_text(document: str, content: str, span: Span, *, trim: bool) -> str:
    rest = document[span.start :]
    return document[: span.start] + content + (rest.lstrip() if trim else rest)


def _append_text(document: str, content: str, span: Span, eol: str, *, trim: bool) -> str:
    end = span.end
    suffix = document[end:]
    trailing_blank = (
        not trim and bool(suffix) and not suffix.startswith(eol) and document[end - 2 * len(eol) : end] == eol * 2
    )
    if trailing_blank and not content.endswith(eol * 2):
        content += eol if content.endswith(eol) else eol * 2
    if trim:
        return document[:end].rstrip() + content + suffix
    if not suffix:  # the last section: trailing blank lines are document whitespace, not a separator
        while end >= 2 * len(eol) and document[end - 2 * len(eol) : end] == eol * 2:
            end -= len(eol)
    return document[:end] + content + suffix


def _add_heading(document: str, path: list[str], content: str, doc_map: DocumentMap) -> str:
    found: list[str] = []
    best = doc_map.headings[""]
    for element in path:
        candidate = doc_map.headings.get(SEPARATOR.join([*found, element]))
        if candidate is None:
            break
        found.append(element)
        best = candidate
    eol = doc_map.line_ending
    end = best.content.end
    addition = "" if document[end - len(eol) : end] == eol else eol
    for depth, name in enumerate(path[len(found) :], start=len(found) + 1):
        addition += f"{'#' * depth} {name}{eol}"
    return document[:end] + addition + content + document[end:]


def _dump_frontmatter(values: dict[str, object], document: str, doc_map: DocumentMap) -> str:
    yaml = YAML()  # round-trip dumper: keeps key order like `yaml.stringify`
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    buffer = io.StringIO()
    yaml.dump(values, buffer)
    block = f"---\n{buffer.getvalue().rstrip()}\n---\n" if values else ""
    return block.replace("\n", doc_map.line_ending) + document[doc_map.content_offset :]


def _merge(old: object, new: object) -> object:
    if isinstance(old, list) and isinstance(new, list):
        return [*old, *new]
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}
    if isinstance(old, str) and isinstance(new, str):
        return old + new
    raise MergeMismatch(f"Cannot merge objects of different types or unsupported types: {old!r} and {new!r}")


def _patch_frontmatter(document: str, request: PatchRequest, doc_map: DocumentMap) -> str:
    key = str(request.target)
    values = dict(doc_map.frontmatter)
    content = request.content
    if key not in values:
        if not request.create_if_missing:
            raise PatchFailed("invalid-target")
        for kind, empty in ((list, []), (str, ""), (dict, {})):
            if isinstance(content, kind):
                values[key] = empty
    if request.operation == "replace":
        values[key] = content
    elif not isinstance(content, list | dict | str):
        raise PatchFailed("content-not-mergeable")
    elif request.operation == "append":
        values[key] = _merge(values.get(key), content)
    else:
        values[key] = _merge(content, values.get(key))
    return _dump_frontmatter(values, document, doc_map)


def apply_patch(document: str, request: PatchRequest) -> str:
    """Return the patched document; raise PatchFailed, MergeMismatch or FrontmatterInvalid."""
    doc_map = build_document_map(document)
    if request.target_type == "frontmatter":
        return _patch_frontmatter(document, request, doc_map)
    if request.target_type == "heading":
        path = list(request.target) if isinstance(request.target, list) else [request.target]
        target = doc_map.headings.get(SEPARATOR.join(path))
    else:
        target = doc_map.blocks.get(str(request.target))
    if request.is_json or not isinstance(request.content, str):
        # Table-row JSON bodies are not emulated; everything else JSON is invalid for these targets.
        raise PatchFailed("content-type-invalid-for-target")
    content = request.content
    if target is None:
        if not request.create_if_missing:
            raise PatchFailed("invalid-target")
        if request.target_type == "heading":
            return _add_heading(document, path, content, doc_map)
        eol = doc_map.line_ending
        return f"{document}{eol}{content}{eol}{eol}^{request.target}"
    span = _range(target, request.scope)
    if request.check_preexisting and content.strip() in document[span.start : span.end]:
        raise PatchFailed("content-already-preexists-in-target")
    eol = doc_map.line_ending
    if request.operation == "append":
        return _append_text(document, content, span, eol, trim=request.trim_whitespace)
    if request.operation == "prepend":
        return _prepend_text(document, content, span, trim=request.trim_whitespace)
    return _replace_text(document, content, span, eol)
