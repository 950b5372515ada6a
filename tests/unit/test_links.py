"""Unit tests for Obsidian link resolution, link text for citations and heading keys (rag.notes.links)."""

from __future__ import annotations

import pytest

from rag.notes.links import (
    LinkResolver,
    Resolution,
    backlink_keys,
    heading_key,
    link_key,
    strip_heading_for_link,
)

VAULT = (
    "Home.md",
    "Projects/Alpha.md",
    "Projects/Beta.md",
    "Projects/Sub/Deep.md",
    "Archive/Alpha.md",
    "Archive/Old/Alpha.md",
    "Daily/2024-01-02.md",
    "Notes/Meeting notes.md",
    "Notes/Report",
    "Notes/Report.md",
    "assets/img.png",
    "assets/Diagram.canvas",
    "Views/Books.base",
    "Case/Mixed Case.md",
)


@pytest.fixture
def resolver() -> LinkResolver:
    return LinkResolver(VAULT)


@pytest.mark.parametrize(
    ("target", "source", "expected"),
    [
        ("Home", "Projects/Alpha.md", Resolution("Home.md", ("Home.md",))),
        ("Home.md", "Projects/Alpha.md", Resolution("Home.md", ("Home.md",))),
        ("home", "Projects/Alpha.md", Resolution("Home.md", ("Home.md",))),
        ("Projects/Beta", "Home.md", Resolution("Projects/Beta.md", ("Projects/Beta.md",))),
        ("/Projects/Beta", "Home.md", Resolution("Projects/Beta.md", ("Projects/Beta.md",))),
        ("projects/beta.md", "Home.md", Resolution("Projects/Beta.md", ("Projects/Beta.md",))),
        ("Beta", "Home.md", Resolution("Projects/Beta.md", ("Projects/Beta.md",))),
        ("Sub/Deep", "Home.md", Resolution("Projects/Sub/Deep.md", ("Projects/Sub/Deep.md",))),
        ("deep", "Home.md", Resolution("Projects/Sub/Deep.md", ("Projects/Sub/Deep.md",))),
        ("2024-01-02", "Home.md", Resolution("Daily/2024-01-02.md", ("Daily/2024-01-02.md",))),
        ("Meeting notes", "Home.md", Resolution("Notes/Meeting notes.md", ("Notes/Meeting notes.md",))),
        ("img.png", "Home.md", Resolution("assets/img.png", ("assets/img.png",))),
        ("Books.base", "Home.md", Resolution("Views/Books.base", ("Views/Books.base",))),
        ("Diagram.canvas", "Home.md", Resolution("assets/Diagram.canvas", ("assets/Diagram.canvas",))),
        ("mixed case", "Home.md", Resolution("Case/Mixed Case.md", ("Case/Mixed Case.md",))),
        ("  Home  ", "Projects/Alpha.md", Resolution("Home.md", ("Home.md",))),
        ("img", "Home.md", Resolution(None)),
        ("Books", "Home.md", Resolution(None)),
        ("Missing", "Home.md", Resolution(None)),
        ("jects/Beta", "Home.md", Resolution(None)),
    ],
)
def test_resolve_follows_obsidian_rules(resolver: LinkResolver, target: str, source: str, expected: Resolution) -> None:
    assert resolver.resolve(target, source_path=source) == expected


def test_empty_target_is_the_source_note(resolver: LinkResolver) -> None:
    assert resolver.resolve("", source_path="Projects/Alpha.md") == Resolution(
        "Projects/Alpha.md", ("Projects/Alpha.md",)
    )


def test_ambiguous_name_prefers_the_source_folder(resolver: LinkResolver) -> None:
    resolution = resolver.resolve("Alpha", source_path="Archive/Old/Note.md")

    assert resolution.path == "Archive/Old/Alpha.md"
    assert resolution.is_ambiguous
    assert set(resolution.candidates) == {"Projects/Alpha.md", "Archive/Alpha.md", "Archive/Old/Alpha.md"}


def test_ambiguous_name_falls_back_to_the_shortest_path(resolver: LinkResolver) -> None:
    resolution = resolver.resolve("Alpha", source_path="Home.md")

    assert resolution == Resolution(
        "Archive/Alpha.md", ("Archive/Alpha.md", "Projects/Alpha.md", "Archive/Old/Alpha.md"), True
    )


def test_path_suffix_narrows_an_ambiguous_name(resolver: LinkResolver) -> None:
    assert resolver.resolve("Old/Alpha", source_path="Home.md") == Resolution(
        "Archive/Old/Alpha.md", ("Archive/Old/Alpha.md",)
    )


def test_exact_vault_path_wins_over_a_name_match() -> None:
    resolver = LinkResolver(["Alpha.md", "Deep/Alpha.md"])

    assert resolver.resolve("Alpha", source_path="Deep/Other.md") == Resolution("Alpha.md", ("Alpha.md",))


def test_exact_path_without_extension_wins_over_adding_md(resolver: LinkResolver) -> None:
    assert resolver.resolve("Notes/Report", source_path="Home.md").path == "Notes/Report"
    assert resolver.resolve("Notes/Report.md", source_path="Home.md").path == "Notes/Report.md"


@pytest.mark.parametrize(
    ("target", "source", "expected"),
    [
        ("./Beta", "Projects/Alpha.md", "Projects/Beta.md"),
        ("../Home", "Projects/Alpha.md", "Home.md"),
        ("../Projects/Sub/Deep.md", "Archive/Alpha.md", "Projects/Sub/Deep.md"),
        ("Sub/Deep", "Projects/Alpha.md", "Projects/Sub/Deep.md"),
        ("./Alpha", "Archive/Old/Note.md", "Archive/Old/Alpha.md"),
        ("../../Home", "Projects/Alpha.md", None),
        ("./Home", "Projects/Alpha.md", None),
    ],
)
def test_relative_paths_resolve_against_the_source_folder(
    resolver: LinkResolver, target: str, source: str, expected: str | None
) -> None:
    assert resolver.resolve(target, source_path=source).path == expected


def test_case_variants_on_a_case_sensitive_file_system_are_ambiguous() -> None:
    resolver = LinkResolver(["Note.md", "note.md"])

    assert resolver.resolve("Note", source_path="x.md") == Resolution("Note.md", ("Note.md",))
    resolution = resolver.resolve("NOTE", source_path="x.md")
    assert resolution.is_ambiguous
    assert set(resolution.candidates) == {"Note.md", "note.md"}


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("Home.md", "Home"),
        ("Projects/Beta.md", "Beta"),
        ("Projects/Alpha.md", "Projects/Alpha"),
        ("Archive/Alpha.md", "Archive/Alpha"),
        ("Archive/Old/Alpha.md", "Archive/Old/Alpha"),
        ("assets/img.png", "img.png"),
        ("Views/Books.base", "Books.base"),
        ("Notes/Report.md", "Notes/Report.md"),  # "Notes/Report" names the extensionless file
        ("New/Unknown.md", "Unknown"),
    ],
)
def test_link_text_is_the_name_when_unique_else_the_full_path(resolver: LinkResolver, path: str, text: str) -> None:
    assert resolver.link_text_for(path) == text


def test_link_text_collision_is_case_insensitive() -> None:
    resolver = LinkResolver(["A/Topic.md", "B/topic.md"])

    assert resolver.link_text_for("A/Topic.md") == "A/Topic"
    assert resolver.link_text_for("B/topic.md") == "B/topic"


@pytest.mark.parametrize("path", VAULT)
def test_link_text_resolves_back_to_its_path(resolver: LinkResolver, path: str) -> None:
    text = resolver.link_text_for(path)

    assert resolver.resolve(text, source_path="Elsewhere/Source.md").path == path


@pytest.mark.parametrize(
    ("path", "heading", "anchor"),
    [
        ("Projects/Beta.md", "Goals", "[[Beta#Goals]]"),
        ("Projects/Alpha.md", "Goals", "[[Projects/Alpha#Goals]]"),
        ("Projects/Beta.md", None, "[[Beta]]"),
        ("Projects/Beta.md", "", "[[Beta]]"),
        ("Projects/Beta.md", "Q&A: what | why?", "[[Beta#Q&A what why?]]"),
        ("Projects/Beta.md", "C# ^tips [[x]] %%y%%", "[[Beta#C tips x y]]"),
        ("Projects/Beta.md", ":#|^", "[[Beta]]"),
    ],
)
def test_anchor_for_builds_a_wikilink_obsidian_can_follow(
    resolver: LinkResolver, path: str, heading: str | None, anchor: str
) -> None:
    assert resolver.anchor_for(path, heading) == anchor


@pytest.mark.parametrize(
    ("heading", "stripped"),
    [
        ("Plain heading", "Plain heading"),
        ("Time: 10:30", "Time 10 30"),
        ("a  #  b", "a b"),
        ("[[Link]] here", "Link here"),
        ("keep (parens) & dots.", "keep (parens) & dots."),
    ],
)
def test_strip_heading_for_link_replaces_link_breaking_characters(heading: str, stripped: str) -> None:
    assert strip_heading_for_link(heading) == stripped


def test_heading_key_matches_headings_that_differ_in_punctuation_and_case() -> None:
    assert heading_key("Q&A: What?") == heading_key("q a  what")
    assert heading_key("Plain") != heading_key("Plainer")


@pytest.mark.parametrize(
    ("target", "key"),
    [("Folder/My Note.md", "folder/my note"), ("/Home", "home"), (" Img.PNG ", "img.png"), ("Note.MD", "note")],
)
def test_link_key_normalises_a_raw_target(target: str, key: str) -> None:
    assert link_key(target) == key


@pytest.mark.parametrize(
    ("path", "keys"),
    [
        ("Projects/Sub/Deep.md", {"deep", "sub/deep", "projects/sub/deep"}),
        ("Home.md", {"home"}),
        ("assets/img.png", {"img.png", "assets/img.png"}),
    ],
)
def test_backlink_keys_cover_names_and_path_suffixes(path: str, keys: set[str]) -> None:
    assert backlink_keys(path) == keys


@pytest.mark.parametrize("target", ["Deep", "Sub/Deep", "projects/sub/deep.md", "/Projects/Sub/Deep"])
def test_backlink_keys_contain_the_key_of_every_resolving_target(resolver: LinkResolver, target: str) -> None:
    path = "Projects/Sub/Deep.md"

    assert resolver.resolve(target, source_path="Home.md").path == path
    assert link_key(target) in backlink_keys(path)
