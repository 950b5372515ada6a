"""Citation checking: links kept, pointed at real headings, reduced to the note, or unlinked; the sources list."""

from __future__ import annotations

import pytest

from rag.answer.citations import CitationReport, note_of, sources_list, verify_citations
from rag.answer.code_spans import code_ranges
from rag.notes.links import LinkResolver

HEADINGS = {
    "Areas/Cooking/Sourdough.md": ["Sourdough", "Starter", "Final recipe", "Notes: what failed?", 'The "best" loaf'],
    "Projects/Ideas.md": ["Ideas (software side projects)", "Shortlist", "Maybe later"],
    "Areas/Garden/Ideas.md": ["Ideas (garden)", "For 2027"],
    "Areas/Garden/Garlic.md": [],
    "Areas/Cooking/Käsespätzle.md": ["Zutaten (für 4 Personen)"],
    "Resources/Glossary.md": ["Bi-encoder", "Cross-encoder"],
}
RESOLVER = LinkResolver([*HEADINGS, "Attachments/diagram.png"])
ALLOWED = ("[[Sourdough#Final recipe]]", "[[Projects/Ideas#Shortlist]]", "[[Garlic]]", '[[Sourdough#The "best" loaf]]')


def check(answer: str, allowed: tuple[str, ...] = ALLOWED) -> CitationReport:
    return verify_citations(answer, allowed=allowed, resolver=RESOLVER, headings=lambda path: HEADINGS.get(path, []))


CASES = {
    # name: (written, expected text, change kind or None when kept as written)
    "allowed anchor": ("[[Sourdough#Final recipe]]", "[[Sourdough#Final recipe]]", None),
    "allowed anchor with alias": ("[[Sourdough#Final recipe|recipe]]", "[[Sourdough#Final recipe|recipe]]", None),
    "allowed anchor html-escaped in the context": (
        "[[Sourdough#The &quot;best&quot; loaf]]",
        '[[Sourdough#The "best" loaf]]',
        "rewritten",
    ),
    "other case": ("[[sourdough#final RECIPE]]", "[[Sourdough#Final recipe]]", "rewritten"),
    "alias survives a rewrite": ("[[sourdough#final recipe|bread]]", "[[Sourdough#Final recipe|bread]]", "rewritten"),
    "table-escaped alias pipe": ("[[sourdough#final recipe\\|r]]", "[[Sourdough#Final recipe\\|r]]", "rewritten"),
    "punctuation compared the Obsidian way": (
        "[[Sourdough#notes what failed]]",
        "[[Sourdough#Notes what failed?]]",
        "rewritten",
    ),
    "nested subpath names the innermost heading": (
        "[[Sourdough#Sourdough#Starter]]",
        "[[Sourdough#Starter]]",
        "rewritten",
    ),
    "real heading of a note not retrieved": ("[[Glossary#cross-encoder]]", "[[Glossary#Cross-encoder]]", "rewritten"),
    "full path written": ("[[Resources/Glossary#Bi-encoder]]", "[[Glossary#Bi-encoder]]", "rewritten"),
    "colliding name: the note that has the heading": (
        "[[Ideas#For 2027]]",
        "[[Areas/Garden/Ideas#For 2027]]",
        "rewritten",
    ),
    "colliding name: the retrieved note first": (
        "[[Ideas#Maybe later]]",
        "[[Projects/Ideas#Maybe later]]",
        "rewritten",
    ),
    "non-ascii note and heading": (
        "[[käsespätzle#zutaten (für 4 personen)]]",
        "[[Käsespätzle#Zutaten (für 4 Personen)]]",
        "rewritten",
    ),
    "existing note without heading": ("[[garlic]]", "[[Garlic]]", "rewritten"),
    "existing note not retrieved": ("[[Glossary]]", "[[Glossary]]", None),
    "attachment": ("[[diagram.png]]", "[[diagram.png]]", None),
    "missing heading of a retrieved note": ("[[Sourdough#Baking times]]", "[[Sourdough]]", "note_only"),
    "missing heading keeps the alias": ("[[Sourdough#Baking times|bake]]", "[[Sourdough|bake]]", "note_only"),
    "colliding name, missing heading: the retrieved note": ("[[Ideas#Nope]]", "[[Projects/Ideas]]", "note_only"),
    "block of a retrieved note": ("[[Sourdough#^abc123]]", "[[Sourdough]]", "note_only"),
    "missing heading of a note not retrieved": ("[[Glossary#Transformers]]", "Glossary > Transformers", "unlinked"),
    "unknown note": ("[[Qdrant Snapshot Strategy]]", "Qdrant Snapshot Strategy", "unlinked"),
    "unknown note with heading": ("[[Threat Model#Risks]]", "Threat Model > Risks", "unlinked"),
    "unknown note with alias": ("[[Nowhere#Else|the plan]]", "the plan", "unlinked"),
    "same-note link means nothing in an answer": ("[[#Starter]]", "Starter", "unlinked"),
    "embed becomes a link": ("![[Sourdough#Final recipe]]", "[[Sourdough#Final recipe]]", "rewritten"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_each_link_is_kept_fixed_or_unlinked(case: str) -> None:
    written, expected, kind = CASES[case]

    report = check(f"The loaf proofs overnight {written}.")

    assert report.text == f"The loaf proofs overnight {expected}."
    assert [(change.original, change.replacement, change.kind) for change in report.changes] == (
        [] if kind is None else [(written, expected, kind)]
    )


@pytest.mark.parametrize(
    "answer",
    [
        "Use `[[Nowhere#X]]` to link.",
        "Use ``a `[[Nowhere]]` b`` to link.",
        "```markdown\n[[Nowhere#X]]\n```\n",
        "~~~~\n[[Nowhere]]\n~~~\nstill code\n",  # a shorter fence does not close a longer one
        "    ```\n[[Nowhere]]\n```",  # an indented fence is not a fence, so the link is checked ...
    ],
)
def test_links_inside_code_are_left_alone(answer: str) -> None:
    report = check(answer)

    if answer.startswith("    "):  # ... and unlinked
        assert report.text == "    ```\nNowhere\n```"
    else:
        assert report.text == answer
        assert report.changes == ()


def test_unmatched_backticks_do_not_hide_links() -> None:
    report = check("A ` stray backtick, then [[nowhere]].")

    assert report.text == "A ` stray backtick, then nowhere."


def test_cited_lists_the_resulting_links_once_in_order_of_first_use() -> None:
    answer = (
        "Salt [[Garlic]], then [[sourdough#final recipe|the recipe]], again [[Sourdough#Final recipe]], "
        "a guess [[Nowhere]], and [[Ideas#Nope]] plus [[Garlic|garlic]]."
    )

    report = check(answer)

    assert report.cited == ("[[Garlic]]", "[[Sourdough#Final recipe]]", "[[Projects/Ideas]]")
    assert [change.original for change in report.fixed] == ["[[sourdough#final recipe|the recipe]]", "[[Ideas#Nope]]"]
    assert [change.replacement for change in report.removed] == ["Nowhere"]
    assert report.text == (
        "Salt [[Garlic]], then [[Sourdough#Final recipe|the recipe]], again [[Sourdough#Final recipe]], "
        "a guess Nowhere, and [[Projects/Ideas]] plus [[Garlic|garlic]]."
    )


def test_without_retrieved_anchors_only_real_headings_stay_links() -> None:
    report = check("[[Sourdough#Final recipe]] and [[Sourdough#Baking times]]", allowed=())

    assert report.text == "[[Sourdough#Final recipe]] and Sourdough > Baking times"
    assert report.cited == ("[[Sourdough#Final recipe]]",)


def test_an_answer_without_links_is_unchanged() -> None:
    report = check("Nothing to cite here; [single brackets] and [a](link.md) stay.")

    assert report == CitationReport("Nothing to cite here; [single brackets] and [a](link.md) stay.", (), ())


SOURCES_CASES = {
    "cited, each once, in order": (
        ["[[B]]", "[[A#x]]", "[[B]]"],
        ["[[Z]]"],
        "Sources:\n- [[B]]\n- [[A#x]]",
    ),
    "nothing cited: the top fallback hits, as searched": (
        [],
        ["[[H1]]", "[[H1]]", "[[H2]]", "[[H3]]", "[[H4]]"],
        "Notes searched:\n- [[H1]]\n- [[H2]]\n- [[H3]]",
    ),
    "nothing at all": ([], [], ""),
}


@pytest.mark.parametrize("case", SOURCES_CASES, ids=list(SOURCES_CASES))
def test_sources_list(case: str) -> None:
    cited, fallback, expected = SOURCES_CASES[case]

    assert sources_list(cited, fallback=fallback) == expected


def test_an_uncited_answer_lists_the_passages_it_was_drawn_from_as_sources() -> None:
    assert sources_list([], drawn_from=["[[H3]]", "[[H3]]"], fallback=["[[H1]]"]) == "Sources:\n- [[H3]]"
    assert sources_list(["[[A]]"], drawn_from=["[[H3]]"]) == "Sources:\n- [[A]]"  # its own citations win


CODE_CASES = {
    "inline span": ("a `b` c", ["`b`"]),
    "double backticks hold a single one": ("x ``a ` b`` y", ["``a ` b``"]),
    "unclosed run is literal": ("a ` b", []),
    "fence to its closing line": ("t\n```py\ncode\n```\nafter `x`", ["```py\ncode\n```", "`x`"]),
    "unclosed fence runs to the end": ("t\n~~~\ncode", ["~~~\ncode"]),
}


@pytest.mark.parametrize("case", CODE_CASES, ids=list(CODE_CASES))
def test_code_ranges(case: str) -> None:
    text, expected = CODE_CASES[case]

    assert [text[start:end] for start, end in code_ranges(text)] == expected


def test_a_link_to_an_existing_block_is_kept_and_a_missing_block_is_not() -> None:
    blocks = {**HEADINGS, "Areas/Cooking/Sourdough.md": [*HEADINGS["Areas/Cooking/Sourdough.md"], "^final-dough"]}

    def headings(path: str) -> list[str]:
        return blocks.get(path, [])

    report = verify_citations(
        "See [[Sourdough#^final-dough]] and [[Sourdough#^gone]].", allowed=(), resolver=RESOLVER, headings=headings
    )

    assert "[[Sourdough#^final-dough]]" in report.text
    assert "[[Sourdough#^gone]]" not in report.text
    assert report.cited[0] == "[[Sourdough#^final-dough]]"


@pytest.mark.parametrize(
    ("anchor", "note"),
    [
        ("[[Garlic]]", "Garlic"),
        ("[[Garlic#Planting|when to plant]]", "Garlic"),
        ("[[Areas/Garden/Garlic#Planting#Depth]]", "Areas/Garden/Garlic"),
        ("[[Tomato Varieties#2026 results\\|the table]]", "Tomato Varieties"),  # escaped pipe, as in a table row
        ("[[Sleep#^caffeine]]", "Sleep"),
        ("Garlic#Planting", "Garlic"),
    ],
)
def test_note_of_names_the_note_of_a_link(anchor: str, note: str) -> None:
    assert note_of(anchor) == note
