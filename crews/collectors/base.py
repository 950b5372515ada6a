"""What every collector shares: the context a run gives it, its error, and how a collector is declared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from core.domain import SearchFilters, SearchHit
from core.errors import InvalidRequest
from core.settings import VaultSettings
from crews.model import Material

# Retriever.search as a collector calls it: (query, k, filters) -> hits, best first.
SearchFunction = Callable[[str, int, SearchFilters | None], list[SearchHit]]


class CollectorError(InvalidRequest):
    """A collector cannot gather its material: bad params, a folder that does not exist, no search index."""


@dataclass(frozen=True, slots=True)
class CollectContext:
    """What a collector may read: the vault (its ignore globs hold the crew root), the day, and the index."""

    vault: VaultSettings  # root path, ignore_globs, private_folders, max_note_bytes, redact_secrets
    today: date
    now: datetime  # local time
    search: SearchFunction | None = None  # None when there is no index
    crew_root: str = ""  # excluded too, for a VaultSettings whose ignore globs do not name it


class CollectorParams(BaseModel):
    """Base of every collector's params: an unknown param is an error, so a typo never silently widens a query."""

    model_config = ConfigDict(frozen=True, extra="forbid")


ParamsT = TypeVar("ParamsT", bound=CollectorParams)


@dataclass(frozen=True, slots=True)
class Collector(Generic[ParamsT]):
    """A named collector: its params model and the function that gathers material with them."""

    name: str
    params: type[ParamsT]
    gather: Callable[[ParamsT, CollectContext], Material]
    description: str

    def run(self, params: CollectorParams, context: CollectContext) -> Material:
        """Gather material with already validated params."""
        if not isinstance(params, self.params):
            raise CollectorError(f"{self.name}: params of the wrong kind ({type(params).__name__})")
        return self.gather(params, context)
