"""Shared pieces of the crew run tests: a vault with the example crews, services, and a scripted model that answers
the schema it is sent (like a model under llama.cpp's grammar), or whatever a test scripts instead."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from app.wiring import EditServices, Services, build_crew_service, build_edit_services, build_services
from core.settings import Settings
from crews.install import install_examples
from crews.service import CrewService
from llm_client import OpenAICompatibleChatModel
from tests.fakes import HashingEmbedder
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn

BRIEFING = "- Overdue: renew the passport\n- Due this week: water the tomatoes"


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """Return the JSON schema a chat request asks for, or None."""
    response_format = body.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema")
    return schema if isinstance(schema, dict) else None


def schema_answer(body: dict[str, Any], *, briefing: str = BRIEFING) -> Turn:
    """Answer what the schema asks: a briefing, or for each note the first allowed value of each key."""
    schema = schema_of(body) or {}
    properties = schema.get("properties", {})
    if "markdown" in properties:
        return Turn.text(json.dumps({"markdown": briefing}))
    change = properties.get("changes", {}).get("items", {}).get("properties", {})
    paths = change.get("path", {}).get("enum", [])
    keys = change.get("set", {}).get("properties", {})
    values: dict[str, Any] = {}
    for key, rule in keys.items():
        if rule.get("type") == "array" and rule.get("items", {}).get("enum"):
            values[key] = rule["items"]["enum"][:1]
        elif rule.get("enum"):
            values[key] = rule["enum"][0]
    chosen = {key: value for key, value in values.items() if key == "priority"} or values
    return Turn.text(json.dumps({"changes": [{"path": path, "set": chosen} for path in paths]}))


@dataclass
class CrewWorld:
    """A vault with the example crews, its services, and the crew service on a scripted model."""

    settings: Settings
    services: Services
    edits: EditServices
    llm: ScriptedLLMServer
    crews: CrewService

    def run(self, name: str, *, dry_run: bool = False) -> dict[str, Any]:
        """Run a crew to its end and return its state as JSON."""
        return asyncio.run(self.crews.run(name, dry_run=dry_run, trigger="cli")).to_json()


@contextmanager
def crew_world(
    settings: Settings, *, script: Callable[[dict[str, Any]], Turn] | list[Turn] | None = None, **updates: Any
) -> Iterator[CrewWorld]:
    """Yield the example crews installed in the settings' vault, indexed, with a scripted model."""
    settings = settings.model_copy(update={"write_backend": "files", **updates})
    install_examples(settings.vault_path, settings.crews.root)
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    edits = build_edit_services(settings)
    with ScriptedLLMServer(script if script is not None else schema_answer) as llm:
        llm_settings = settings.llm.model_copy(update={"base_urls": (llm.base_url,), "retries": 0})
        model = OpenAICompatibleChatModel(llm_settings)

        async def reindex() -> None:
            await asyncio.to_thread(services.reindexer.run_once)

        crews = build_crew_service(settings, services, edits, model, after_write=reindex)
        try:
            yield CrewWorld(settings, services, edits, llm, crews)
        finally:
            edits.close()
            services.close()


def daily_note_of(vault: Path, day: str | None = None) -> Path:
    """Return where sample_vault's Daily notes settings put the note of `day` (YYYY-MM-DD; today, as of the call).

    Today is read at the call, not when a test module is imported: a suite running past midnight wrote tomorrow's.
    """
    day = day or date.today().isoformat()
    config = vault / ".obsidian" / "daily-notes.json"
    folder = json.loads(config.read_text(encoding="utf-8")).get("folder", "") if config.exists() else ""
    return vault / folder / f"{day}.md" if folder else vault / f"{day}.md"
