"""A frontmatter written as one YAML flow map (`{title: X, tags: [a, b]}`) rewritten one key per line.

Frontmatter edits rewrite only the touched property's lines, and a flow map keeps every property on one line, so
none could be edited. Obsidian itself converts such a block (JSON frontmatter included) to YAML when it saves one;
here it becomes block style (keys, values, quoting and order kept; nested lists and maps stay in flow style), so
the edit then goes the normal way. A flow map across lines (pretty-printed JSON) is rewritten too unless a `#` is
among its lines: a comment between entries would be lost (ruamel.yaml drops those from flow collections), so such a
block stays refused.
"""

from __future__ import annotations

import io

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from core.errors import InvalidRequest


def as_block_style(yaml: YAML, lines: list[str]) -> list[str]:
    """Return frontmatter `lines` with a flow map rewritten one key per line, else `lines` as they are.

    Blank and comment lines around the flow map stay where they are; a comment after its closing `}` gets a line
    of its own before the keys. Template placeholders must be masked in `lines` (see `frontmatter._Placeholders`).
    """
    content = [index for index, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    if not content or not lines[content[0]].lstrip().startswith("{"):
        return lines
    at, last = content[0], content[-1]
    if last > at and any("#" in line for line in lines[at : last + 1]):
        return lines  # maybe a comment between entries, which the rewrite would drop: the normal path refuses it
    data = _load(yaml, "\n".join(lines[at : last + 1]))
    # `{}` records no flow style; any other mapping on a line opening with `{` is block style (`{a: 1}: x`).
    if data is None or (data and not data.fa.flow_style()):
        return lines  # not a flow map, or no valid YAML: the normal path reads it and says what is wrong
    if not data:  # `{}`: no properties is no lines (ruamel would write `{}` again); a comment after it is kept
        return [*lines[:at], *lines[last + 1 :]] if lines[at].strip() == "{}" else lines
    data.fa.set_block_style()
    out = io.StringIO()
    yaml.dump(data, out)
    # ruamel writes the trailing comment at its old column, before the keys: flush left, as a comment line reads.
    block = [
        line.lstrip() if line.lstrip().startswith("#") else line for line in out.getvalue().rstrip("\n").split("\n")
    ]
    again = _load(yaml, "\n".join(block))
    if again is None or again != data or list(again) != list(data):
        raise InvalidRequest(
            "the note's frontmatter is one {...} flow map that cannot be written one property per line without "
            "changing it, so the note is not changed; change it in Obsidian"
        )
    return [*lines[:at], *block, *lines[last + 1 :]]


def _load(yaml: YAML, source: str) -> CommentedMap | None:
    """Return the mapping `source` holds, or None when it holds something else or no valid YAML."""
    try:
        data = yaml.load(source + "\n")
    except YAMLError:
        return None
    return data if isinstance(data, CommentedMap) else None
