"""The web UI's pages over HTTP: who may see them and send their forms, the Index page and the retrieval tracer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from tests.web_support import API_KEY, NOTE, csrf_of, propose_locally, run_write_tool_locally

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

LOOPBACK = "http://127.0.0.1"  # TestClient's base URL: a loopback name, as the Host check wants
SAME_SITE = {"Origin": LOOPBACK}
PAGES = ("/", "/proposals", "/changes", "/crews")


def client_of(settings: Settings, services: Services, **updates: Any) -> TestClient:
    app = create_app(settings.model_copy(update={"write_backend": "files", "watch": False, **updates}), services)
    return TestClient(app, base_url=LOOPBACK, follow_redirects=False)


@pytest.fixture
def indexed(services: Services) -> Services:
    """The services with sample_vault indexed, before the app starts (its own first run then finds nothing new)."""
    services.reindexer.run_once()
    return services


@pytest.fixture
def keyed(settings: Settings, services: Services) -> Iterator[TestClient]:
    with client_of(settings, services, api_key=SecretStr(API_KEY)) as client:
        yield client


@pytest.fixture
def open_client(settings: Settings, services: Services) -> Iterator[TestClient]:
    with client_of(settings, services) as client:
        yield client


def log_in(client: TestClient, next_path: str = "/") -> Any:
    return client.post("/login", data={"api_key": API_KEY, "next": next_path}, headers=SAME_SITE)


def test_pages_send_a_visitor_without_the_key_to_the_login_form_which_sets_a_strict_http_only_cookie(
    keyed: TestClient,
) -> None:
    asked = [keyed.get(path) for path in (*PAGES, "/crews/runs/x?y=1")]
    wrong = keyed.post("/login", data={"api_key": "guess", "next": "/"}, headers=SAME_SITE)
    offsite = keyed.post("/login", data={"api_key": API_KEY, "next": "//evil.example/"}, headers=SAME_SITE)
    keyed.cookies.clear()
    logged_in = log_in(keyed, "/crews")
    pages = [keyed.get(path) for path in PAGES]
    logged_out = keyed.post("/logout", data={"csrf": csrf_of(pages[0].text)}, headers=SAME_SITE)
    after = keyed.get("/")

    assert [r.status_code for r in asked] == [303] * 5
    assert [r.headers["location"] for r in asked[:2]] == ["/login?next=%2F", "/login?next=%2Fproposals"]
    assert asked[4].headers["location"] == "/login?next=%2Fcrews%2Fruns%2Fx%3Fy%3D1"
    assert wrong.status_code == 401 and "not the API key" in wrong.text and "set-cookie" not in wrong.headers
    assert offsite.headers["location"] == "/"  # never to another site after logging in
    assert logged_in.status_code == 303 and logged_in.headers["location"] == "/crews"
    cookie = logged_in.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert [r.status_code for r in pages] == [200] * 4
    assert "Log out" in pages[0].text
    assert logged_out.headers["location"] == "/login" and after.status_code == 303


def test_a_forged_cookie_is_no_login_and_a_bearer_key_is_one(keyed: TestClient) -> None:
    cookie = log_in(keyed).cookies["librarian_session"]
    session_id, issued, signature = cookie.split(".")
    bearer = TestClient(keyed.app, base_url=LOOPBACK, follow_redirects=False)  # no cookie of its own
    bearer.cookies.set("librarian_session", f"{session_id}x.{issued}.{signature}")
    forged = bearer.get("/")
    bearer.cookies.clear()
    by_key = bearer.get("/", headers={"Authorization": f"Bearer {API_KEY}"})
    by_wrong_key = bearer.get("/", headers={"Authorization": "Bearer not-the-key"})

    assert forged.status_code == 303
    assert by_key.status_code == 200 and "set-cookie" not in by_key.headers
    assert by_wrong_key.status_code == 303


def test_a_form_without_its_token_or_from_another_site_changes_nothing(
    keyed: TestClient, settings: Settings, vault: Path
) -> None:
    before = (vault / NOTE).read_bytes()
    proposal_id = propose_locally(settings, "- only with the token")
    log_in(keyed)
    token = csrf_of(keyed.get("/proposals").text)
    form = {"ids": proposal_id, "csrf": token}

    refused = [
        keyed.post("/proposals/apply", data={"ids": proposal_id}, headers=SAME_SITE),
        keyed.post("/proposals/apply", data={**form, "csrf": "0" * 64}, headers=SAME_SITE),
        keyed.post("/proposals/apply", data=form, headers={"Origin": "http://evil.example"}),
        keyed.post("/proposals/apply", data=form, headers={"Origin": "null"}),
        keyed.post("/proposals/apply", data=form, headers={"Sec-Fetch-Site": "cross-site"}),
    ]
    unchanged = (vault / NOTE).read_bytes()
    without_cookie = TestClient(keyed.app, base_url=LOOPBACK, follow_redirects=False)
    anonymous = without_cookie.post("/proposals/apply", data=form, headers=SAME_SITE)
    applied = keyed.post("/proposals/apply", data=form, headers=SAME_SITE)

    assert [r.status_code for r in refused] == [403] * 5
    assert "out of date" in refused[0].text and "evil.example" in refused[2].text
    assert unchanged == before
    assert anonymous.status_code == 303 and anonymous.headers["location"] == "/login?next=%2F"
    assert applied.status_code == 200 and "Applied" in applied.text
    assert (vault / NOTE).read_text(encoding="utf-8").endswith("- only with the token\n")


def test_without_api_key_pages_open_on_loopback_and_their_forms_still_need_the_session_token(
    open_client: TestClient, settings: Settings, vault: Path
) -> None:
    proposal_id = propose_locally(settings, "- discarded from the page")
    stranger = TestClient(open_client.app, base_url=LOOPBACK, follow_redirects=False)
    no_session = stranger.post("/proposals/discard", data={"ids": proposal_id, "csrf": "x"}, headers=SAME_SITE)
    page = open_client.get("/proposals")
    discarded = open_client.post(
        "/proposals/discard", data={"ids": proposal_id, "csrf": csrf_of(page.text)}, headers=SAME_SITE
    )

    assert no_session.status_code == 403
    assert page.status_code == 200 and "librarian_session=" in page.headers["set-cookie"]
    assert "Log out" not in page.text  # no key, nothing to log out of
    assert discarded.status_code == 200 and "Discarded 1 proposal(s)." in discarded.text
    assert "No proposals are waiting." in discarded.text


def test_the_proposals_page_says_a_move_keeps_its_text_instead_of_a_bare_diff_header(
    open_client: TestClient, settings: Settings
) -> None:
    run_write_tool_locally(settings, "move_note", {"path": NOTE, "new_path": "Archive/"})

    page = open_client.get("/proposals")

    assert page.status_code == 200 and "its text stays the same" in page.text
    assert "+++ b/Archive/Quick capture.md" not in page.text


def test_pages_answer_only_under_loopback_names_and_forbid_framing_and_inline_script(
    open_client: TestClient,
) -> None:
    rebinding = open_client.get("/", headers={"Host": "evil.example"})
    page = open_client.get("/")
    schema = open_client.get("/openapi.json").json()

    assert rebinding.status_code == 400
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    assert page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in page.text and " style=" not in page.text and " on" + "click=" not in page.text
    assert not [path for path in schema["paths"] if not path.startswith(("/v1/", "/health", "/ready", "/mcp"))]


def test_the_index_page_shows_counts_runs_agreement_and_every_file_with_a_problem(
    settings: Settings, services: Services, vault: Path
) -> None:
    (vault / "Broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (vault / "Bad bytes.md").write_bytes(b"\xff\xfe\x00bad \x00 text")
    services.reindexer.run_once()

    with client_of(settings, services) as client:
        # The app's own run at start finds nothing new, but until it ends the stores are not compared ("checking…").
        deadline = time.monotonic() + 30
        while not client.get("/v1/index/status").json()["runs_completed"] and time.monotonic() < deadline:
            time.sleep(0.05)
        page = client.get("/").text

    assert "Bad bytes.md" in page and "not a text file" in page and "not indexed" in page
    assert "Broken.md" in page and "invalid YAML frontmatter" in page
    assert '<span class="value small ok">agree</span>' in page
    assert "Next run</dt><dd>—" not in page  # the scheduler's next run is shown


def test_the_search_box_and_the_api_tell_each_hits_place_in_the_dense_and_bm25_lists(
    settings: Settings, indexed: Services
) -> None:
    query = {"query": "sourdough starter feeding", "k": 5}
    with client_of(settings, indexed) as client:
        plain = client.post("/v1/search", json=query).json()
        explained = client.post("/v1/search", json={**query, "explain": True}).json()
        page = client.get("/", params={"q": "sourdough starter feeding", "k": "5"}).text

    assert [h["path"] for h in explained["hits"]] == [h["path"] for h in plain["hits"]]  # the same search
    assert "dense_rank" not in plain["hits"][0]
    assert any(h["dense_rank"] and h["bm25_rank"] for h in explained["hits"])
    assert any(h["path"] == "Areas/Cooking/Sourdough.md" and h["bm25_rank"] == 1 for h in explained["hits"])
    assert all(h["rrf_score"] == pytest.approx(h["score"]) for h in explained["hits"])  # no reranker here
    assert explained["trace"]["fusion"] == "rrf" and explained["trace"]["depth"] >= 5
    first = explained["hits"][0]
    assert first["path"] in page and f"#{first['dense_rank'] or first['bm25_rank']}" in page
