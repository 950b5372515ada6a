"""A kepano-style category base (`categories.contains(link("Books"))`, `this`) over a small vault: read and add.

The vault is written here (not copied from a shared one): category notes, books whose `categories` hold
"[[Books]]" as a list or as one value, a template that the base leaves out, and the base in Templates/Bases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import InvalidRequest
from tests.integration.test_agent_tools_bases import table_rows
from tests.integration.test_propose_create import apply, propose, query_base, refuse
from tests.vault_state import vault_hashes

BOOKS_BASE = """\
filters:
  and:
    - categories.contains(link("Books"))
    - '!file.name.contains("Template")'
properties:
  note.author:
    displayName: Author
  file.name:
    displayName: Name
views:
  - type: table
    name: Books
    order: [file.name, author, year]
    sort:
      - property: file.name
        direction: ASC
  - type: table
    name: Author
    filters:
      and:
        - list(author).contains(this)
    order: [file.name, year]
"""
FILES = {
    ".obsidian/app.json": json.dumps({"newFileLocation": "folder", "newFileFolderPath": "References"}),
    "Categories/Books.md": "---\ntags:\n  - categories\n---\n\n![[Books.base]]\n",
    "Categories/Movies.md": "---\ntags:\n  - categories\n---\n",
    "References/Dune.md": '---\ncategories:\n  - "[[Books]]"\nauthor:\n  - "[[Frank Herbert]]"\nyear: 1965\n---\n',
    "References/The Overstory.md": '---\ncategories: "[[Books|Books I read]]"\nyear: 2018\n---\n',
    "References/Blade Runner.md": '---\ncategories:\n  - "[[Movies]]"\nyear: 1982\n---\n',
    "References/Frank Herbert.md": '---\ncategories:\n  - "[[People]]"\n---\n',
    "References/Books to buy.md": "---\ncategories:\n  - Books\n---\n",  # text, not a link: not a book
    "Templates/Book Template.md": '---\ncategories:\n  - "[[Books]]"\nauthor: []\n---\n',
    "Templates/Bases/Books.base": BOOKS_BASE,
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_category_view_lists_the_notes_whose_categories_link_to_it(vault: Path) -> None:
    text = query_base(vault, "Books", "Books")
    assert text.startswith("Base Templates/Bases/Books.base, view 'Books' (table): 2 row(s).")
    assert table_rows(text) == [["[[Dune]]", "[[Frank Herbert]]", "1965"], ["[[The Overstory]]", "", "2018"]]
    assert "Not evaluated" not in text and "(?)" not in text and "`this`" not in text


def test_a_view_filtered_by_this_is_evaluated_for_the_base_file_and_says_so(vault: Path) -> None:
    text = query_base(vault, "Books", "Author")
    assert text.startswith("Base Templates/Bases/Books.base, view 'Author' (table): 0 row(s).")
    assert "`this` was taken as the base file itself; where the base is embedded in a note, Obsidian uses" in text
    (vault / "References" / "Dune.md").write_text(
        '---\ncategories: ["[[Books]]"]\nauthor: ["[[Books.base]]"]\n---\n', encoding="utf-8"
    )
    assert [row[0] for row in table_rows(query_base(vault, "Books", "Author"))] == ["[[Dune]]"]


def test_a_new_item_gets_the_category_link_and_shows_up_once_applied(vault: Path, store, tmp_path: Path) -> None:
    proposal = propose(
        vault, store, "add_base_item", base="Books", title="Children of Dune",
        properties={"author": ["[[Frank Herbert]]"], "year": 1976},
    )  # fmt: skip
    assert (proposal.path, proposal.operation) == (
        "References/Children of Dune.md",
        "add item to base Templates/Bases/Books.base",
    )
    assert proposal.new_text == "---\ncategories:\n  - '[[Books]]'\nauthor:\n  - '[[Frank Herbert]]'\nyear: 1976\n---\n"
    apply(vault, tmp_path, proposal)
    rows = table_rows(query_base(vault, "Books", "Books"))
    assert rows[0] == ["[[Children of Dune]]", "[[Frank Herbert]]", "1976"] and len(rows) == 3


def test_a_new_item_keeps_the_users_categories_and_adds_the_needed_one(vault: Path, store) -> None:
    proposal = propose(
        vault, store, "add_base_item", base="Books", title="Piranesi", properties={"Categories": ["[[Favorites]]"]}
    )
    assert proposal.new_text == "---\nCategories:\n  - '[[Favorites]]'\n  - '[[Books]]'\n---\n"
    again = propose(vault, store, "add_base_item", base="Books", title="Jonathan Strange",
                    properties={"categories": "[[Books|to read]]"})  # fmt: skip
    assert again.new_text == "---\ncategories:\n  - '[[Books|to read]]'\n---\n"


def test_items_for_views_meant_for_an_embedding_note_are_refused_with_the_reason(vault: Path, store) -> None:
    before = vault_hashes(vault)
    refuse(
        vault, store, "add_base_item", InvalidRequest,
        r"fails the filters of view 'Author': list\(author\).contains\(this\) \(`this` is the base file itself here",
        base="Books", view="Author", title="Dune Messiah", properties={"author": ["[[Frank Herbert]]"]},
    )  # fmt: skip
    refuse(vault, store, "add_base_item", InvalidRequest, r"fails .*Books.base: !file.name.contains\(\"Template\"\)",
           base="Books", title="Movie Template")  # fmt: skip
    assert vault_hashes(vault) == before
