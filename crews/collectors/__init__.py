"""Collectors: code, not the model, gathers a crew's material from the vault ("tasknotes.query", "tasks.open", ...).

Each collector declares a params model (unknown params are refused, so a team note with a typo fails at load
time, see `validate_params`) and a function that returns `crews.model.Material`.
"""

from __future__ import annotations

from collections.abc import Mapping
from difflib import get_close_matches
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from crews.collectors.base import CollectContext, Collector, CollectorError, CollectorParams, SearchFunction
from crews.collectors.daily import DAILY_NOTE
from crews.collectors.search import SEARCH
from crews.collectors.tasknotes import TASKNOTES_QUERY
from crews.collectors.tasks import TASKS_OPEN
from crews.definitions import describe_validation_error
from crews.model import Material

__all__ = [
    "COLLECTORS",
    "CollectContext",
    "Collector",
    "CollectorError",
    "SearchFunction",
    "collect",
    "validate_params",
]

COLLECTORS: Mapping[str, Collector[Any]] = MappingProxyType(
    {collector.name: collector for collector in (TASKNOTES_QUERY, TASKS_OPEN, DAILY_NOTE, SEARCH)}
)


def _collector(name: str) -> Collector[Any]:
    collector = COLLECTORS.get(name)
    if collector is None:
        raise CollectorError(f"unknown collector {name!r} (known: {', '.join(sorted(COLLECTORS))})")
    return collector


def _describe(collector: Collector[Any], exc: ValidationError) -> str:
    known = sorted(collector.params.model_fields)
    unknown = [str(error["loc"][0]) for error in exc.errors() if error["type"] == "extra_forbidden" and error["loc"]]
    if unknown:
        hints = []
        for param in unknown:
            close = get_close_matches(param, known, n=1)
            hints.append(f"{param!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return f"{collector.name} has no param {', '.join(hints)}; it takes {', '.join(known)}"
    return f"{collector.name} params: {describe_validation_error(exc)}"


def _params(collector: Collector[Any], params: Mapping[str, object] | None) -> CollectorParams:
    if params is not None and not isinstance(params, Mapping):
        raise CollectorError(f"{collector.name} params must be a mapping of name: value")
    try:
        validated: CollectorParams = collector.params.model_validate(dict(params or {}))
    except ValidationError as exc:
        raise CollectorError(_describe(collector, exc)) from exc
    return validated


def validate_params(name: str, params: Mapping[str, object] | None) -> str | None:
    """Return why a collector task's params cannot run (unknown collector, unknown or bad param), or None."""
    try:
        _params(_collector(name), params)
    except CollectorError as exc:
        return exc.message
    return None


def collect(name: str, params: Mapping[str, object] | None, context: CollectContext) -> Material:
    """Run the collector `name` with `params`; raise CollectorError for bad params or a folder that does not exist."""
    collector = _collector(name)
    return collector.run(_params(collector, params), context)
