"""Conformance of the Local REST API stand-in with the header-era plugin contract (reference §1, 3.6.2/4.1.7)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.integration.conftest import STANDIN_KEY as KEY
from tests.obsidian_standin import StandinVault, obsidian_standin
from tests.obsidian_standin.errors import MESSAGES

NOTE = """---
title: Fixture
tags:
  - one
  - two
priority: 42
active: true
---
# Alpha

alpha-word #inline-tag

## Subsection

sub-word

# Beta

beta-word paragraph ^beta-block

# Über uns

umlaut-word

# Delta

delta-word
"""
AUTH_4X = (
    "Authorization required.  Find your API Key in the 'Local REST API with MCP' section of your Obsidian settings."
)
AUTH_3X = "Authorization required.  Find your API Key in the 'Local REST API' section of your Obsidian settings."


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Projects" / "Deep").mkdir(parents=True)
    (root / "Empty" / "Inner").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / ".hidden.md").write_text("secret")
    (root / "Fixture.md").write_text(NOTE)
    (root / "Projects" / "Plan.md").write_text("plan")
    (root / "Projects" / "Deep" / "Notes.md").write_text("deep")
    (tmp_path / "outside.md").write_text("outside")
    return root


def envelope(code: int, detail: str | None = None) -> dict[str, object]:
    message = MESSAGES[code] if detail is None else f"{MESSAGES[code]}\n{detail}"
    return {"message": message, "errorCode": code}


def test_root_answers_without_auth_and_reports_authentication(standin: StandinVault) -> None:
    anonymous = httpx.get(f"{standin.base_url}/")
    known = httpx.get(f"{standin.base_url}/", headers=standin.auth_headers)
    assert anonymous.status_code == 200
    assert anonymous.json()["status"] == "OK"
    assert anonymous.json()["authenticated"] is False
    assert "certificateInfo" not in anonymous.json()
    assert known.json()["authenticated"] is True
    assert known.json()["service"] == "Obsidian Local REST API"


@pytest.mark.parametrize("header", [None, f"bearer {KEY}", f"Bearer  {KEY}", "Bearer wrong", f"Token {KEY}"])
def test_vault_requires_exact_bearer_key_with_canonical_401(standin: StandinVault, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    for path in ("/vault/", "/vault/Fixture.md", "/no/such/route"):
        response = httpx.get(f"{standin.base_url}{path}", headers=headers)
        assert response.status_code == 401
        assert response.json() == {"message": AUTH_4X, "errorCode": 40101}


def test_3x_flavor_names_the_old_settings_section(vault: Path) -> None:
    with obsidian_standin(vault, api_key=KEY, flavor="3.6.2") as base_url:
        response = httpx.get(f"{base_url}/vault/")
    assert response.json() == {"message": AUTH_3X, "errorCode": 40101}


def test_unknown_route_and_vault_without_slash_are_404_envelopes(client: httpx.Client) -> None:
    for path in ("/nothing/", "/vault"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json() == {"message": "Not Found", "errorCode": 40400}


def test_root_listing_has_files_and_folders_but_no_dot_entries_or_empty_folders(client: httpx.Client) -> None:
    response = client.get("/vault/")
    assert response.status_code == 200
    assert response.json() == {"files": ["Fixture.md", "Projects/"]}


def test_folder_listing_names_direct_children(client: httpx.Client) -> None:
    assert client.get("/vault/Projects/").json() == {"files": ["Deep/", "Plan.md"]}
    assert client.get("/vault/Projects/Deep/").json() == {"files": ["Notes.md"]}


def test_folder_without_files_is_404(client: httpx.Client) -> None:
    for path in ("/vault/Empty/", "/vault/Empty/Inner/", "/vault/Missing/", "/vault/.obsidian/"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json() == envelope(40400)


def test_empty_vault_root_lists_nothing(tmp_path: Path) -> None:
    with obsidian_standin(tmp_path, api_key=KEY) as base_url:
        response = httpx.get(f"{base_url}/vault/", headers={"Authorization": f"Bearer {KEY}"})
    assert response.json() == {"files": []}


def test_raw_read_returns_bytes_as_markdown(client: httpx.Client) -> None:
    response = client.get("/vault/Fixture.md")
    assert response.status_code == 200
    assert response.text == NOTE
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"] == 'attachment; filename="Fixture.md"'
    assert client.get("/vault/Missing.md").status_code == 404
    # Reads go through the adapter's stat, which sees dot files; only listings (Obsidian's index) hide them.
    assert client.get("/vault/.hidden.md").status_code == 200


def test_head_reports_length_without_body(client: httpx.Client) -> None:
    response = client.head("/vault/Fixture.md")
    assert response.status_code == 200
    assert response.content == b""
    assert int(response.headers["content-length"]) == len(NOTE.encode())


def test_note_json_has_typed_frontmatter_tags_stat_and_content(client: httpx.Client) -> None:
    response = client.get("/vault/Fixture.md", headers={"Accept": "application/vnd.olrapi.note+json"})
    body = response.json()
    assert response.headers["content-type"] == "application/vnd.olrapi.note+json"
    assert list(body) == ["tags", "frontmatter", "stat", "path", "content"]
    assert body["frontmatter"]["priority"] == 42
    assert body["frontmatter"]["active"] is True
    assert body["tags"] == ["one", "two", "inline-tag"]
    assert all(isinstance(body["stat"][key], int) for key in ("ctime", "mtime", "size"))
    assert body["path"] == "Fixture.md"
    assert body["content"] == NOTE


def test_note_json_needs_the_exact_accept_value(client: httpx.Client) -> None:
    response = client.get("/vault/Fixture.md", headers={"Accept": "application/vnd.olrapi.note+json, */*"})
    assert response.text == NOTE


def test_put_creates_parent_folders_and_writes_text(client: httpx.Client, vault: Path) -> None:
    response = client.put("/vault/New/Sub/Note.md", content="hello", headers={"Content-Type": "text/markdown"})
    assert response.status_code == 204
    assert (vault / "New" / "Sub" / "Note.md").read_text() == "hello"
    assert client.get("/vault/New/Sub/Note.md").text == "hello"


def test_put_post_patch_delete_on_a_folder_path_are_40510(client: httpx.Client) -> None:
    for method in ("PUT", "POST", "PATCH", "DELETE"):
        response = client.request(method, "/vault/Projects/", content="x", headers={"Content-Type": "text/markdown"})
        assert response.status_code == 405, method
        assert response.json() == envelope(40510)


def test_post_adds_a_newline_when_the_file_lacks_one(client: httpx.Client, vault: Path) -> None:
    response = client.post("/vault/Projects/Plan.md", content="more\n", headers={"Content-Type": "text/markdown"})
    assert response.status_code == 204
    assert (vault / "Projects" / "Plan.md").read_text() == "plan\nmore\n"
    client.post("/vault/Projects/Plan.md", content="last", headers={"Content-Type": "text/markdown"})
    assert (vault / "Projects" / "Plan.md").read_text() == "plan\nmore\nlast"


def test_post_creates_a_missing_file_with_the_body(client: httpx.Client, vault: Path) -> None:
    response = client.post("/vault/Inbox/Fresh.md", content="first", headers={"Content-Type": "text/plain"})
    assert response.status_code == 204
    assert (vault / "Inbox" / "Fresh.md").read_text() == "first"


def test_post_with_a_non_text_body_is_40010(client: httpx.Client, vault: Path) -> None:
    response = client.post("/vault/Projects/Plan.md", json={"a": 1})
    assert response.status_code == 400
    assert response.json() == envelope(40010)
    assert (vault / "Projects" / "Plan.md").read_text() == "plan"


def test_delete_removes_permanently_then_404(client: httpx.Client, vault: Path) -> None:
    assert client.delete("/vault/Projects/Plan.md").status_code == 204
    assert not (vault / "Projects" / "Plan.md").exists()
    assert not (vault / ".trash").exists()
    assert client.get("/vault/Projects/Plan.md").status_code == 404
    second = client.delete("/vault/Projects/Plan.md")
    assert second.status_code == 404
    assert second.json() == envelope(40400)


@pytest.mark.parametrize("method", ["GET", "PUT", "POST", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["..%2Foutside.md", "%2E%2E/outside.md", "Projects/..%2F..%2Foutside.md", "%2Fetc"])
def test_path_traversal_is_40021_and_touches_nothing(client: httpx.Client, vault: Path, method: str, path: str) -> None:
    response = client.request(method, f"/vault/{path}", content="pwned", headers={"Content-Type": "text/markdown"})
    assert response.status_code == 400
    assert response.json() == envelope(40021)
    assert (vault.parent / "outside.md").read_text() == "outside"


def test_dot_segments_that_stay_inside_the_vault_resolve(client: httpx.Client) -> None:
    assert client.get("/vault/Projects%2F..%2FFixture.md").text == NOTE
