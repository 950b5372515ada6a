"""Conformance of the stand-in's header-era PATCH with the plugin (reference §1.6, markdown-patch semantics)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from tests.integration.test_obsidian_standin import KEY, NOTE, envelope
from tests.obsidian_standin import StandinVault, obsidian_standin

DOC = """# Alpha

alpha-word

## Subsection

sub-word

# Beta

beta-word paragraph ^beta-block

standalone target

^lone

# Über uns

umlaut-word
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "Doc.md").write_text(DOC)
    (tmp_path / "Fixture.md").write_text(NOTE)
    return tmp_path


def patch(
    client: httpx.Client, body: str, *, path: str = "Doc.md", content_type: str = "text/markdown", **headers: str
) -> httpx.Response:
    wire = {name.replace("_", "-"): value for name, value in headers.items()}
    return client.patch(f"/vault/{path}", content=body.encode(), headers={"Content-Type": content_type, **wire})


def heading(client: httpx.Client, operation: str, target: str, body: str, **headers: str) -> httpx.Response:
    return patch(client, body, Operation=operation, Target_Type="heading", Target=quote(target), **headers)


def test_heading_append_lands_after_the_last_subsection(client: httpx.Client, vault: Path) -> None:
    response = heading(client, "append", "Alpha", "added\n")
    expected = DOC.replace("sub-word\n\n# Beta", "sub-word\n\nadded\n\n# Beta")
    assert response.status_code == 200
    assert response.text == expected
    assert (vault / "Doc.md").read_text() == expected


def test_heading_append_to_the_last_section_collapses_trailing_blank_lines(client: httpx.Client, vault: Path) -> None:
    (vault / "Doc.md").write_text("# A\n\ntext\n\n\n")
    response = heading(client, "append", "A", "more\n")
    assert response.text == "# A\n\ntext\nmore\n"


def test_heading_prepend_goes_right_after_the_heading_line(client: httpx.Client) -> None:
    response = heading(client, "prepend", "Alpha::Subsection", "first\n")
    assert response.text == DOC.replace("## Subsection\n", "## Subsection\nfirst\n")


def test_heading_replace_swaps_the_whole_section_including_subsections(client: httpx.Client) -> None:
    response = heading(client, "replace", "Alpha", "fresh\n")
    assert response.text == DOC.replace("\nalpha-word\n\n## Subsection\n\nsub-word\n\n", "fresh\n\n")
    assert "sub-word" not in response.text


def test_heading_target_is_percent_decoded_and_delimiter_configurable(client: httpx.Client) -> None:
    response = heading(client, "append", "Über uns", "x\n")
    assert response.text == DOC + "x\n"
    nested = heading(client, "prepend", "Alpha//Subsection", "y\n", Target_Delimiter="//")
    assert "## Subsection\ny\n" in nested.text


def test_bare_subheading_name_is_invalid_target(client: httpx.Client, vault: Path) -> None:
    response = heading(client, "append", "Subsection", "x\n")
    assert response.status_code == 400
    assert response.json() == envelope(40080, "invalid-target")
    assert (vault / "Doc.md").read_text() == DOC


def test_create_target_if_missing_adds_the_heading_path(client: httpx.Client) -> None:
    response = heading(client, "append", "Beta::Log", "entry\n", Create_Target_If_Missing="true")
    assert response.status_code == 200
    assert response.text == DOC.replace("\n^lone\n\n# Über", "\n^lone\n\n## Log\nentry\n# Über")


def test_block_append_has_no_separator_and_keeps_the_marker(client: httpx.Client) -> None:
    response = patch(client, " more", Operation="append", Target_Type="block", Target="beta-block")
    assert response.text == DOC.replace("beta-word paragraph ^beta-block", "beta-word paragraph more ^beta-block")


def test_block_replace_on_a_standalone_id_targets_the_previous_block(client: httpx.Client) -> None:
    response = patch(client, "swapped", Operation="replace", Target_Type="block", Target="lone")
    assert response.text == DOC.replace("standalone target\n", "swapped\n")


def test_missing_block_with_create_appends_it_at_the_end(client: httpx.Client) -> None:
    response = patch(
        client, "new", Operation="append", Target_Type="block", Target="fresh", Create_Target_If_Missing="true"
    )
    assert response.text == DOC + "\nnew\n\n^fresh"


def test_frontmatter_replace_with_text_sets_a_string(client: httpx.Client) -> None:
    response = patch(client, "2", path="Fixture.md", Operation="replace", Target_Type="frontmatter", Target="title")
    assert response.status_code == 200
    assert response.text.startswith("---\ntitle: '2'\ntags:\n  - one\n  - two\npriority: 42\nactive: true\n---\n")
    assert response.text.endswith(NOTE.split("---\n", 2)[2])


def test_frontmatter_append_json_list_and_create_key(client: httpx.Client) -> None:
    appended = patch(
        client, '["three"]', path="Fixture.md", content_type="application/json",
        Operation="append", Target_Type="frontmatter", Target="tags",
    )  # fmt: skip
    assert "tags:\n  - one\n  - two\n  - three\n" in appended.text
    created = patch(
        client, "7", path="Fixture.md", content_type="application/json",
        Operation="replace", Target_Type="frontmatter", Target="count", Create_Target_If_Missing="true",
    )  # fmt: skip
    assert "active: true\ncount: 7\n---\n" in created.text


def test_frontmatter_missing_key_without_create_is_invalid_target(client: httpx.Client) -> None:
    response = patch(client, "x", path="Fixture.md", Operation="replace", Target_Type="frontmatter", Target="nope")
    assert response.json() == envelope(40080, "invalid-target")


def test_frontmatter_append_of_a_number_is_not_mergeable(client: httpx.Client) -> None:
    response = patch(
        client, "5", path="Fixture.md", content_type="application/json",
        Operation="append", Target_Type="frontmatter", Target="priority",
    )  # fmt: skip
    assert response.json() == envelope(40080, "content-not-mergeable")


@pytest.mark.parametrize("content_type", ["text/markdown; charset=utf-8", "text/plain", "application/octet-stream"])
def test_patch_content_type_must_match_exactly(client: httpx.Client, content_type: str) -> None:
    response = patch(client, "x", content_type=content_type, Operation="append", Target_Type="heading", Target="Beta")
    assert response.status_code == 400
    assert response.json() == envelope(40012)


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({"Operation": "append", "Target": "Beta"}, 40053),
        ({"Operation": "append", "Target_Type": "section", "Target": "Beta"}, 40054),
        ({"Target_Type": "heading", "Target": "Beta"}, 40056),
        ({"Operation": "delete", "Target_Type": "heading", "Target": "Beta"}, 40057),
        ({"Operation": "append", "Target_Type": "heading", "Target": "Beta", "Target_Scope": "all"}, 40059),
    ],
)
def test_patch_header_errors_use_canonical_codes(client: httpx.Client, headers: dict[str, str], code: int) -> None:
    response = patch(client, "x", **headers)
    assert response.status_code == code // 100
    assert response.json() == envelope(code)


def test_4x_validates_headers_before_looking_up_the_file(client: httpx.Client) -> None:
    assert patch(client, "x", path="Missing.md", Operation="append").json() == envelope(40053)
    missing = patch(client, "x", path="Missing.md", Operation="append", Target_Type="heading", Target="A")
    assert missing.status_code == 404


def test_3x_looks_up_the_file_first_and_rejects_preexisting_content(vault: Path) -> None:
    with (
        obsidian_standin(vault, api_key=KEY, flavor="3.6.2") as base_url,
        httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {KEY}"}) as client,
    ):
        assert patch(client, "x", path="Missing.md", Operation="append").status_code == 404
        again = heading(client, "append", "Alpha", "alpha-word\n")
        allowed = heading(client, "append", "Alpha", "alpha-word\n", Apply_If_Content_Preexists="true")
    assert again.json() == envelope(40080, "content-already-preexists-in-target")
    assert allowed.status_code == 200


def test_4x_rejects_preexisting_content_only_on_request(client: httpx.Client) -> None:
    rejected = heading(client, "append", "Alpha", "alpha-word\n", Reject_If_Content_Preexists="true")
    assert rejected.json() == envelope(40080, "content-already-preexists-in-target")
    assert heading(client, "append", "Alpha", "alpha-word\n").status_code == 200


def test_invalid_json_body_is_40015(client: httpx.Client) -> None:
    response = patch(
        client, "{nope", content_type="application/json", Operation="append", Target_Type="frontmatter", Target="t"
    )
    assert response.json() == envelope(40015)


def test_requests_are_recorded_with_headers_and_body(client: httpx.Client, standin: StandinVault) -> None:
    heading(client, "append", "Über uns", "x\n")
    recorded = standin.requests[-1]
    assert (recorded.method, recorded.path, recorded.body) == ("PATCH", "/vault/Doc.md", b"x\n")
    assert recorded.headers["target"] == quote("Über uns")
    assert recorded.headers["authorization"] == f"Bearer {KEY}"
