"""The services of a vault indexed for a benchmark: in a DATA_DIR kept between runs, or in a temporary one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.wiring import Services, build_services
from core.settings import Settings


@contextmanager
def indexed_vault(vault: Path, data_dir: Path | None) -> Iterator[tuple[Settings, Services]]:
    """Yield the settings and services of `vault` once indexed (built or updated in `data_dir`, else a temp dir).

    Offline unless HF_HUB_OFFLINE says otherwise: the bundled embedder needs no download.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir or Path(tmp) / "data")
        services = build_services(settings)
        try:
            services.reindexer.run_once()
            yield settings, services
        finally:
            services.close()
