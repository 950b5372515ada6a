"""The `bases` tool: Obsidian `.base` files listed, their views described, and a view's rows computed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from pydantic import Field

from agent.tools.bases.expressions import UnsupportedExpression
from agent.tools.bases.filters import Row, column_value, matches, uses_this
from agent.tools.definition import Tool, ToolArgs, pick_one, require
from agent.tools.outcome import Part, Reply, data_part, format_value, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.errors import InvalidRequest, NotFound
from rag.notes.frontmatter import load_yaml
from rag.notes.vault import clean_relative_path

BASE_SUFFIX = ".base"


@dataclass(frozen=True, slots=True)
class BaseView:
    """One view of a base: its filters, columns (`order`), sort keys and row limit."""

    name: str
    type: str
    filters: object
    order: tuple[str, ...]
    sort: tuple[tuple[str, bool], ...]  # (property, descending)
    limit: int | None


@dataclass(frozen=True, slots=True)
class BaseFile:
    """A parsed `.base` file: filters for every view, column display names, views."""

    path: str
    filters: object
    display_names: Mapping[str, str]
    views: tuple[BaseView, ...]

    def column_title(self, prop: str) -> str:
        """Return the column's displayName, else the property name without its `note.` prefix."""
        bare = prop.removeprefix("note.")
        for key in (prop, bare, f"note.{bare}"):
            if key in self.display_names:
                return self.display_names[key]
        return bare


def _view(raw: object, position: int) -> BaseView:
    data = raw if isinstance(raw, dict) else {}
    sort = []
    for item in data.get("sort") or []:
        if isinstance(item, dict) and isinstance(item.get("property"), str):
            sort.append((item["property"], str(item.get("direction", "ASC")).upper() == "DESC"))
    limit = data.get("limit")
    return BaseView(
        name=str(data.get("name") or f"View {position}"),
        type=str(data.get("type") or "table"),
        filters=data.get("filters"),
        order=tuple(str(prop) for prop in data.get("order") or []),
        sort=tuple(sort),
        limit=limit if isinstance(limit, int) and limit > 0 else None,
    )


def parse_base(path: str, text: str) -> BaseFile:
    """Parse a `.base` file's YAML, or raise InvalidRequest when it is not a valid base."""
    data, error = load_yaml(text, first_line=1)
    if error is not None:
        raise InvalidRequest(f"{path} is not a valid base: {error}")
    properties = data.get("properties")
    names = {
        str(key): str(value["displayName"])
        for key, value in (properties.items() if isinstance(properties, dict) else [])
        if isinstance(value, dict) and value.get("displayName")
    }
    raw_views = data.get("views")
    views = tuple(_view(raw, i) for i, raw in enumerate(raw_views if isinstance(raw_views, list) else [], start=1))
    return BaseFile(path=path, filters=data.get("filters"), display_names=names, views=views)


def find_base(snapshot: VaultSnapshot, ref: str) -> str:
    """Return the path of the `.base` file `ref` names (path or file name), or raise NotFound / InvalidRequest."""
    wanted = clean_relative_path(ref, what="base").removesuffix(BASE_SUFFIX).casefold()
    bases = [path for path in snapshot.other_files if path.lower().endswith(BASE_SUFFIX)]
    exact = [path for path in bases if path.casefold().removesuffix(BASE_SUFFIX) == wanted]
    by_name = [path for path in bases if PurePosixPath(path).stem.casefold() == wanted]
    return pick_one(exact, by_name, ref=ref, what="base", known=bases, hint="; pass the full path")


def _describe_view(base: BaseFile, view: BaseView) -> str:
    columns = ", ".join(base.column_title(prop) for prop in view.order) or "(default)"
    sort = ", ".join(f"{prop} {'descending' if desc else 'ascending'}" for prop, desc in view.sort)
    details = [f"columns: {columns}"]
    details += [f"sorted by {sort}"] if sort else []
    details += [f"filters: {json.dumps(view.filters, ensure_ascii=False)}"] if view.filters else []
    details += [f"limit {view.limit}"] if view.limit else []
    return f"- {view.name} ({view.type}): " + "; ".join(details)


def pick_view(base: BaseFile, name: str) -> BaseView:
    """Return the view called `name` (case-insensitive), the first view for "", or raise NotFound."""
    if not base.views:
        raise NotFound(f"{base.path} defines no views")
    if not name.strip():
        return base.views[0]
    for view in base.views:
        if view.name.casefold() == name.strip().casefold():
            return view
    raise NotFound(f"{base.path} has no view '{name}'; its views: {', '.join(v.name for v in base.views)}")


def _cell(prop: str, row: Row, problems: set[str]) -> str:
    """Return a table cell: the value as text, "" when the note lacks it, "?" when it cannot be computed here."""
    try:
        value = column_value(prop, row)
    except UnsupportedExpression as exc:
        problems.add(f"column {prop!r} ({exc})")
        return "?"
    return "" if value is None else format_value(value).replace("|", "\\|").replace("\n", " ")


def _order_key(value: object) -> tuple[int, float, str]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, format_value(value).casefold())


def _sorted_rows(rows: list[Row], keys: tuple[tuple[str, bool], ...], problems: set[str]) -> list[Row]:
    """Sort stably by each key from last to first; rows lacking the value go last either way."""
    for prop, descending in reversed(keys):
        values = {row.path: _value(prop, row, problems) for row in rows}
        present = sorted((r for r in rows if values[r.path] is not None), key=lambda r: _order_key(values[r.path]))
        if descending:
            present.reverse()
        rows = present + [row for row in rows if values[row.path] is None]
    return rows


def _value(prop: str, row: Row, problems: set[str]) -> object:
    try:
        return column_value(prop, row)
    except UnsupportedExpression as exc:
        problems.add(f"column {prop!r} ({exc})")
        return None


@dataclass(frozen=True, slots=True)
class ViewTable:
    """The rows of one view as a Markdown table, with what could not be evaluated here."""

    table: str  # header, divider, one row per matching file: its link, then the view's columns
    anchors: tuple[str, ...]  # the rows' links, in order
    problems: frozenset[str]  # expressions or columns not evaluated here
    has_uncertain: bool  # rows marked (?) passed only the filters that could be evaluated


def view_table(
    reader: VaultReader, snapshot: VaultSnapshot, base: BaseFile, view: BaseView, limit: int, *, this_path: str
) -> ViewTable:
    """Compute the rows of `view` (at most `limit`) as Obsidian lists them where `this_path` shows the base."""
    problems: set[str] = set()
    today = reader.today()
    rows: list[Row] = []
    uncertain: set[str] = set()
    for path in sorted((*snapshot.notes, *snapshot.other_files), key=str.lower):
        row = Row(snapshot, path, today, this_path=this_path)
        verdicts = [matches(base.filters, row, problems), matches(view.filters, row, problems)]
        if False not in verdicts:
            rows.append(row)
            if None in verdicts:
                uncertain.add(path)
    rows = _sorted_rows(rows, view.sort, problems)[: min(limit, view.limit or limit)]
    columns = [prop for prop in view.order if prop != "file.name"]
    lines = ["| " + " | ".join([base.column_title("file.name"), *map(base.column_title, columns)]) + " |"]
    lines.append("|" + " --- |" * (len(columns) + 1))
    anchors = []
    for row in rows:
        anchor = snapshot.anchor(row.path)
        anchors.append(anchor)
        mark = " (?)" if row.path in uncertain else ""
        lines.append("| " + " | ".join([anchor + mark, *(_cell(p, row, problems) for p in columns)]) + " |")
    return ViewTable("\n".join(lines), tuple(anchors), frozenset(problems), bool(uncertain))


def _query(
    reader: VaultReader, snapshot: VaultSnapshot, base: BaseFile, view: BaseView, limit: int, *, shown_in: str
) -> Reply:
    """Return the rows of `view` as the note `shown_in` shows them ("": the base opened on its own)."""
    this_path = shown_in or base.path
    computed = view_table(reader, snapshot, base, view, limit, this_path=this_path)
    where = f", as [[{snapshot.resolver.link_text_for(shown_in)}]] shows it" if shown_in else ""
    header = f"Base {base.path}, view '{view.name}' ({view.type}){where}: {len(computed.anchors)} row(s)."
    table = data_part("base", computed.table, computed.anchors, path=base.path, view=view.name)
    notes = []
    if computed.problems:
        notes.append("Not evaluated here: " + "; ".join(sorted(computed.problems)) + ".")
    if computed.has_uncertain:
        notes.append("Rows marked (?) passed every filter that could be evaluated; check them in Obsidian.")
    if uses_this([base.filters, view.filters]) and not shown_in:
        notes.append(
            "`this` was taken as the base file itself; where the base is embedded in a note, Obsidian uses that "
            "note: pass it as `note`."
        )
    return reply(header, table, *notes)


# Words of a message about bases (agent.tools.cues), for reading them and for adding to one.
BASE_CUES = ("base", "bases", ".base", "database", "table", "view", "views", "datenbank", "tabelle")


class BasesArgs(ToolArgs):
    """Arguments of bases."""

    command: Literal["list", "views", "query"] = Field(
        description="list: every base; views: the views of base; query: the rows of one view of base."
    )
    base: str = Field("", description="The base's name or path.")
    view: str = Field("", description="The view, e.g. 'Active'; empty: the first.")
    limit: int = Field(50, ge=1, le=200, description="At most this many rows.")
    note: str = Field("", description="query: the note the base is embedded in (what `this` means); empty: none.")


def run_bases(reader: VaultReader, args: BasesArgs) -> Reply:
    """List bases, describe a base's views, or compute the rows of one view."""
    snapshot = reader.snapshot()
    if args.command == "list":
        bases = [path for path in snapshot.other_files if path.lower().endswith(BASE_SUFFIX)]
        if not bases:
            return reply("The vault has no bases (.base files).")
        return reply(f"{len(bases)} base(s):", *(Part(f"- {path}") for path in bases))
    path = find_base(snapshot, require(args.base, "base", f"bases {args.command}"))
    base = parse_base(path, reader.read_text(snapshot, path))
    if args.command == "views":
        shared = json.dumps(base.filters, ensure_ascii=False) if base.filters else "none"
        views = [_describe_view(base, view) for view in base.views]
        return reply(f"{path} has {len(views)} view(s). Filters shared by every view: {shared}", *views)
    shown_in = snapshot.resolve_note_ref(args.note)[0] if args.note.strip() else ""
    return _query(reader, snapshot, base, pick_view(base, args.view), args.limit, shown_in=shown_in)


BASES = Tool(
    name="bases",
    description="Query Obsidian Bases (.base files: table views of notes by property); formulas are not computed.",
    args=BasesArgs,
    handler=run_bases,
    cues=BASE_CUES,
)
