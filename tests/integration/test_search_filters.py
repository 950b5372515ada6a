"""POST /v1/search with a folder or tag no note has answers 404, as `librarian search` says it, not "no hits"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


@pytest.fixture
def client(settings: Settings, services: Services) -> Iterator[TestClient]:
    services.reindexer.run_once()  # indexed before the app starts, so no search waits for a first index
    app = create_app(settings.model_copy(update={"watch": False}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"folder": "Nope"}, "no folder 'Nope' in the vault"),
        ({"folder": "/Areas/Nope/"}, "no folder 'Areas/Nope' in the vault"),
        ({"tags": ["nosuchtag"]}, "no note is tagged #nosuchtag in the vault"),
        ({"tags": ["#nosuchtag", "nor-this"]}, "no note is tagged #nosuchtag or #nor-this in the vault"),
    ],
)
def test_a_folder_or_tag_the_vault_does_not_have_is_a_404_naming_it(
    client: TestClient, settings: Settings, filters: dict[str, object], message: str
) -> None:
    response = client.post("/v1/search", json={"query": "garden", **filters})

    assert response.status_code == 404
    error = response.json()["error"]
    assert error["message"] == message  # no server path: the client may be elsewhere
    assert (error["type"], error["code"]) == ("not_found_error", "not_found")


def test_filters_the_vault_has_still_search_whatever_their_case_and_slashes(client: TestClient) -> None:
    response = client.post("/v1/search", json={"query": "garden beds", "folder": "areas/garden/", "tags": ["#area"]})

    assert response.status_code == 200
    hits = response.json()["hits"]
    assert hits and all(hit["path"].startswith("Areas/Garden/") for hit in hits)
