"""A frontmatter written as one YAML flow map is rewritten in block style, then edited like any other."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequest, NotFound
from edits.text import frontmatter as fm

FLOW = "---\n{title: X, tags: [a, b]}\n---\nbody\n"


def test_setting_a_property_of_a_flow_map_frontmatter_writes_it_block_style() -> None:
    assert fm.set_property(FLOW, "status", "draft") == "---\ntitle: X\ntags: [a, b]\nstatus: draft\n---\nbody\n"


def test_adding_a_tag_to_a_flow_map_frontmatter_keeps_every_key_in_order() -> None:
    assert fm.add_tag(FLOW, "c") == "---\ntitle: X\ntags: [a, b, c]\n---\nbody\n"


def test_removing_a_tag_and_adding_an_alias_work_on_a_flow_map_frontmatter() -> None:
    assert fm.remove_tag(FLOW, "a") == "---\ntitle: X\ntags: [b]\n---\nbody\n"
    assert fm.add_alias(FLOW, "Ex") == "---\ntitle: X\ntags: [a, b]\naliases:\n  - Ex\n---\nbody\n"


def test_removing_the_last_property_of_a_flow_map_frontmatter_removes_the_block() -> None:
    assert fm.remove_property("---\n{title: X}\n---\nbody\n", "title") == "body\n"
    with pytest.raises(NotFound):
        fm.remove_property(FLOW, "status")


@pytest.mark.parametrize(
    ("flow", "block"),
    [
        # JSON frontmatter, which Obsidian accepts and converts to YAML itself: quotes and types are kept.
        ('{"title": "X", "year": 2020, "done": false}', '"title": "X"\n"year": 2020\n"done": false'),
        ("{title: 'it''s', when: 2024-01-02, up: '[[Home]]'}", "title: 'it''s'\nwhen: 2024-01-02\nup: '[[Home]]'"),
        ("{a: {b: 1}, c: null, d: [x, y]}", "a: {b: 1}\nc:\nd: [x, y]"),  # nested flow stays; null written empty
        ("{title: {{title}}, created: {{date}}}", "title: {{title}}\ncreated: {{date}}"),  # template placeholders
        ("  {title: X}  ", "title: X"),
    ],
)
def test_a_flow_map_is_rewritten_with_its_keys_values_and_order(flow: str, block: str) -> None:
    assert fm.set_property(f"---\n{flow}\n---\n", "z", 1) == f"---\n{block}\nz: 1\n---\n"


def test_an_empty_flow_map_gives_way_to_the_first_property() -> None:
    assert fm.add_tag("---\n{}\n---\nbody\n", "x") == "---\ntags:\n  - x\n---\nbody\n"


def test_comment_and_blank_lines_around_a_flow_map_stay() -> None:
    before = "---\n# from the importer\n{title: X}\n\n---\nbody\n"
    assert fm.set_property(before, "title", "Y") == "---\n# from the importer\ntitle: Y\n\n---\nbody\n"


def test_a_comment_after_a_flow_map_stays_on_its_own_line() -> None:
    before = "---\n{title: X, year: 2020}  # imported\n---\n"
    assert fm.set_property(before, "year", 2021) == "---\n# imported\ntitle: X\nyear: 2021\n---\n"


def test_a_flow_map_that_is_not_valid_yaml_is_still_refused() -> None:
    with pytest.raises(InvalidRequest, match="not valid YAML"):
        fm.set_property("---\n{title: X, tags: [a, b}\n---\n", "status", "draft")
