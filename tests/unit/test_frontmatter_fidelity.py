"""Frontmatter edits change only the property asked for: template placeholders and every other line stay as written."""

from __future__ import annotations

import pytest

from core.errors import InvalidRequest
from edits.text import frontmatter as fm

# Templates/Movie Template.md of the kepano-obsidian vault: Obsidian's core Templates fill {{date}} in later.
MOVIE = """---
categories:
  - "[[Movies]]"
cover:
genre: []
director:
cast: []
runtime:
rating:
year:
last: {{date}}
imdbId:
via:
---

"""


def test_setting_a_property_keeps_template_placeholders_byte_for_byte() -> None:
    after = fm.set_property(MOVIE, "via", "Letterboxd")
    assert after == MOVIE.replace("via:\n", "via: Letterboxd\n")


def test_adding_a_tag_keeps_template_placeholders_byte_for_byte() -> None:
    after = fm.add_tag(MOVIE, "film")
    assert after == MOVIE.replace("via:\n", "via:\ntags:\n  - film\n")


def test_removing_a_property_keeps_template_placeholders_byte_for_byte() -> None:
    assert fm.remove_property(MOVIE, "cover") == MOVIE.replace("cover:\n", "")


TEMPLATER = """---
title: {{title}} notes
created: <% tp.date.now("YYYY-MM-DD") %>
stamp: {{date:YYYY-MM-DD}}T{{time}}
up: [[{{title}}]]
---
Body
"""


def test_placeholders_that_are_no_valid_yaml_do_not_stop_an_edit_of_another_property() -> None:
    after = fm.set_property(TEMPLATER, "status", "draft")
    assert after == TEMPLATER.replace("]]\n---", "]]\nstatus: draft\n---")


def test_placeholders_inside_the_changed_property_stay_as_written() -> None:
    before = "---\naliases:\n  - {{title}}\ntags:\n  - <% tp.file.folder() %>\n---\n"
    after = fm.add_tag(fm.add_alias(before, "Film"), "movie")
    assert after == "---\naliases:\n  - {{title}}\n  - Film\ntags:\n  - <% tp.file.folder() %>\n  - movie\n---\n"


def test_setting_a_placeholder_property_replaces_only_its_line() -> None:
    after = fm.set_property(MOVIE, "last", "soon")
    assert after == MOVIE.replace("last: {{date}}\n", "last: soon\n")


# Lines YAML reads the same whatever their spacing or style, which a YAML writer would normalise.
QUIRKY = """---
a:   spaced
b: [x,y]
c: 'it''s'
d: ~
h:
    - deep
---
"""


def test_lines_of_other_properties_stay_byte_for_byte_whatever_their_style() -> None:
    assert fm.set_property(QUIRKY, "z", "new") == QUIRKY.replace("- deep\n", "- deep\nz: new\n")
    assert fm.set_property(QUIRKY, "a", "tight") == QUIRKY.replace("a:   spaced", "a: tight")
    assert fm.remove_property(QUIRKY, "b") == QUIRKY.replace("b: [x,y]\n", "")


def test_comments_and_blank_lines_between_properties_stay() -> None:
    before = "---\n# kept\nstatus: draft  # why\n\n# about tags\ntags:\n  - a\n# end\n---\n"
    after = fm.set_property(before, "status", "final")
    assert after == before.replace("status: draft  # why", "status: final  # why")
    assert fm.remove_property(before, "status") == before.replace("status: draft  # why\n", "")


def test_a_frontmatter_whose_lines_cannot_be_edited_one_property_at_a_time_is_refused() -> None:
    # A flow mapping spanning lines with a comment between entries: rewriting it one key per line would lose the
    # comment, and rewriting one property's lines would break the others, so nothing is written.
    with pytest.raises(InvalidRequest, match="not changed"):
        fm.set_property("---\n{a: 1,  # first\n b: 2}\n---\n", "b", 3)


def test_a_flow_map_across_lines_without_comments_is_rewritten_one_key_per_line() -> None:
    # Pretty-printed JSON frontmatter, which Obsidian converts to YAML itself when it saves the note.
    before = '---\n{\n  "title": "Trip",\n  "tags": ["a", "b"]\n}\n---\nBody\n'
    assert fm.set_property(before, "status", "draft") == (
        '---\n"title": "Trip"\n"tags": ["a", "b"]\nstatus: draft\n---\nBody\n'
    )


MINIMAL_THEME = """---
categories:
  - "[[Projects]]"
year: 2020
status:
  - "[[Active]]"
---
## To-do
"""


@pytest.mark.parametrize(
    ("before", "value", "expected"),
    [
        (MINIMAL_THEME, "Done", MINIMAL_THEME.replace('status:\n  - "[[Active]]"', "status:\n  - Done")),
        ("---\nstatus:\n- a\n- b\n---\n", "c", "---\nstatus:\n- c\n---\n"),
        ("---\ngenre: []\n---\n", "Drama", "---\ngenre:\n  - Drama\n---\n"),  # as Obsidian writes lists
        ("---\ngenre: [a, b]\n---\n", 7, "---\ngenre:\n  - 7\n---\n"),
        ("---\nstatus:\n  - a\n---\n", ["x", "y"], "---\nstatus:\n  - x\n  - y\n---\n"),
        ("---\nstatus:\n  - a\n---\n", "", "---\nstatus: []\n---\n"),
    ],
)
def test_a_list_property_set_to_one_value_stays_a_list_in_the_notes_list_style(
    before: str, value: fm.PropertyValue, expected: str
) -> None:
    assert fm.set_property(before, "status" if "status" in before else "genre", value) == expected


def test_a_new_property_given_the_text_of_a_checkbox_stays_text() -> None:
    # As documented: only a property already holding a number or checkbox keeps that type (see set_property).
    assert fm.set_property("---\na: 1\n---\n", "watched", "false") == "---\na: 1\nwatched: 'false'\n---\n"


def test_a_comment_after_a_list_that_gains_an_item_is_not_written_twice() -> None:
    # ruamel hangs the comment on the list's last item; the splice kept it in place and wrote it again.
    text = "---\ntags:\n  - a\n# about title\ntitle: T\n---\nbody\n"

    assert fm.add_tag(text, "new") == "---\ntags:\n  - a\n  - new\n# about title\ntitle: T\n---\nbody\n"
