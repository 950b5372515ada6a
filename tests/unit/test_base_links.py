"""Links and `this` in Bases filters: links compare by the file they resolve to, `this` is the base file."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from agent.tools.bases.filters import Row, column_value, matches, uses_this
from agent.tools.bases.values import LinkValue
from agent.tools.snapshot import build_snapshot
from rag.notes.markdown import parse_note
from rag.notes.vault import FileStat

NOTES = {
    "Categories/Books.md": "# Books\n",
    "Archive/Old/Books.md": "# Old books\n",  # also named Books: links must resolve, not just match names
    "People/Frank Herbert.md": "Wrote [[Dune]].\n",
    "References/Dune.md": '---\ncategories:\n  - "[[Books]]"\nauthor: "[[Frank Herbert]]"\n---\n# Dune\n',
    "References/Solo.md": '---\ncategories: "[[Categories/Books|my books]]"\n---\n',
    "References/Old.md": '---\ncategories: ["[[Archive/Old/Books]]"]\n---\n',
    "References/Film.md": '---\ncategories: ["[[Movies]]", "Books"]\n---\n',
    "References/Ghost.md": '---\ncategories: ["[[Nowhere]]"]\n---\n',
    "Notes/Author page.md": '---\nrelated: "[[Books.base]]"\n---\n![[Books.base]]\n',
}
BASE = "Bases/Books.base"


def make_row(path: str, this_path: str | None = BASE) -> Row:
    notes = {name: parse_note(name, text) for name, text in NOTES.items()}
    stats = {name: FileStat(0, len(text)) for name, text in NOTES.items()}
    return Row(build_snapshot(Path("/vault"), notes, stats, (BASE,)), path, date(2026, 11, 5), this_path=this_path)


@pytest.mark.parametrize(
    ("path", "expression", "expected"),
    [
        ("References/Dune.md", 'categories.contains(link("Books"))', True),
        ("References/Dune.md", 'categories.contains(link("Categories/Books.md", "Reading"))', True),
        ("References/Dune.md", 'categories.contains(link("[[Books|anything]]"))', True),
        ("References/Dune.md", 'categories.contains(link("Movies"))', False),
        ("References/Dune.md", 'categories.contains(link("Archive/Old/Books"))', False),  # same name, other file
        ("References/Solo.md", 'categories.contains(link("Books"))', True),  # one link, not a list; alias aside
        ("References/Solo.md", 'categories == link("Books") && note.categories != link("Movies")', True),
        ("References/Old.md", 'categories.contains(link("Books"))', False),
        ("References/Old.md", 'list(categories).contains(link("Archive/Old/Books"))', True),
        ("References/Film.md", 'categories.contains(link("Books"))', False),  # plain text is not a link
        ("References/Film.md", 'categories.contains("Books") && categories.containsAny(link("Movies"))', True),
        ("References/Film.md", 'categories.containsAll(link("Movies"), link("Books"))', False),
        ("References/Ghost.md", 'categories.contains(link("Nowhere"))', True),  # unresolved: same name, same link
        ("References/Ghost.md", 'categories.contains(link("Books"))', False),
        ("References/Dune.md", 'author == link("Frank Herbert") && list(author).contains(link("Frank Herbert"))', True),
        ("References/Dune.md", 'link("Books") == link("Categories/Books") && link("Books") != link("Nowhere")', True),
        ("References/Dune.md", 'file.links.contains(link("Frank Herbert")) && file.hasLink(link("Books"))', True),
        ("References/Dune.md", 'file.backlinks.contains(link("Frank Herbert"))', True),
        ("References/Dune.md", 'link("Frank Herbert").linksTo(file) && !link("Books").linksTo(file)', True),
        ("References/Dune.md", 'link("Books").asFile().path == "Categories/Books.md"', True),
        ("References/Dune.md", 'file.asLink() == link("Dune") && file(link("Books")).folder == "Categories"', True),
        ("References/Dune.md", 'link("Nowhere").asFile().isEmpty()', True),
    ],
)
def test_links_equal_when_they_resolve_to_the_same_file(path: str, expression: str, expected: bool) -> None:
    problems: set[str] = set()
    assert matches(expression, make_row(path), problems) is expected
    assert not problems


@pytest.mark.parametrize(
    ("path", "expression", "expected"),
    [
        ("References/Dune.md", 'this.file.name == "Books.base" && this.file.folder == "Bases"', True),
        ("References/Dune.md", 'file.path != this.file.path && this.file.ext == "base"', True),
        ("References/Dune.md", "list(author).contains(this)", False),
        ("Notes/Author page.md", "list(related).contains(this) && related == this.file", True),
        (
            "Notes/Author page.md",
            "file.hasLink(this) && file.links.contains(this.file) && file.embeds.contains(this.file)",
            True,
        ),
        ("References/Dune.md", "file.hasLink(this) || this.file.hasLink(file)", False),
        ("References/Dune.md", "this.status.isEmpty() && this.note.status.isEmpty()", True),
    ],
)
def test_this_is_the_base_file_itself(path: str, expression: str, expected: bool) -> None:
    problems: set[str] = set()
    assert matches(expression, make_row(path), problems) is expected
    assert not problems


def test_this_without_a_base_file_is_reported_not_guessed() -> None:
    problems: set[str] = set()
    assert matches("list(author).contains(this)", make_row("References/Dune.md", this_path=None), problems) is None
    assert "this: the file showing the base is not known here" in problems.pop()


def test_filters_that_mention_this_are_found_in_filter_trees() -> None:
    assert uses_this({"and": ['file.inFolder("A")', {"or": ["list(author).contains(this)"]}]})
    assert not uses_this({"and": ['file.name.contains("this")', "status == 'this'"]})
    assert not uses_this("this ==")  # unparsable: reported elsewhere, not guessed here


def test_link_columns_show_as_wikilinks() -> None:
    row = make_row("References/Dune.md")
    links = column_value("file.links", row)
    assert links == [
        LinkValue("Books", None, "Categories/Books.md"),
        LinkValue("Frank Herbert", None, "People/Frank Herbert.md"),
    ]
    assert [str(link) for link in links] == ["[[Books]]", "[[Frank Herbert]]"]
    assert str(column_value('link("Books", "Reading")', row)) == "[[Books|Reading]]"
    assert column_value("categories", row) == ["[[Books]]"]  # properties keep the text they hold
    assert str(column_value("this.file", row)) == BASE
