"""Crews for an MCP client: list them, and run one dry so that its planned writes wait as proposals.

A dry run writes nothing to the notes; its writes become proposals like any write tool's, so only the user's accept
in `apply_proposals` applies them (through the same edit path, with the crew's base hashes as staleness checks).
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import mcp_types as types

from app.http.routes.crews import catalog_json
from app.mcp.backend import McpBackend
from app.mcp.writes import describe_for_mcp, text_result
from app.services.crew_chat import proposals_of_run, unfinished_dry_run
from app.services.proposal_access import MCP_CONVERSATION
from core.errors import UpstreamUnavailable
from crews.service import CrewService
from rag.answer.secrets import redact_secrets


def _crews(backend: McpBackend) -> CrewService:
    if backend.crews is None:  # the tools are not listed then; a client calling one anyway gets this
        raise UpstreamUnavailable("crews", "crews are not available in this service")
    return backend.crews


async def list_crews(backend: McpBackend) -> types.CallToolResult:
    """Return the crews and the crew notes that cannot run, as JSON (GET /v1/crews)."""
    service = _crews(backend)
    catalog = await asyncio.to_thread(service.catalog)
    return text_result(json.dumps(catalog_json(catalog, service.schedule_statuses(catalog)), ensure_ascii=False))


async def run_crew_dry(backend: McpBackend, name: str) -> types.CallToolResult:
    """Run the crew dry and store its planned writes as proposals; return their ids and diffs."""
    state = await _crews(backend).run(name, dry_run=True, trigger="mcp")
    if state.status != "ok":
        return text_result(_for_the_model(backend, unfinished_dry_run(state)), is_error=True)
    if not state.planned:
        return text_result(f"The {state.crew} crew ran (dry run {state.id}) and found nothing to change.")
    edits = backend.edits
    ttl = timedelta(minutes=edits.settings.proposal_ttl_minutes)
    proposals = proposals_of_run(state, MCP_CONVERSATION, now=backend.clock(), ttl=ttl)
    for proposal in proposals:
        edits.store.add(proposal)
    shown = _for_the_model(backend, "\n\n".join(describe_for_mcp(proposal) for proposal in proposals))
    return text_result(
        f"The {state.crew} crew ran as a dry run ({state.id}) and would make {len(proposals)} change(s):\n\n{shown}"
    )


def _for_the_model(backend: McpBackend, text: str) -> str:
    """Return `text` as the model may read it: diff context and task lines come from notes, masked as in chat."""
    return redact_secrets(text) if backend.reader.redacts_secrets else text
