"""The embedded store's own behaviour beyond the VectorStore contract (rag/stores/edge.py).

Upserts survive a killed process; a second process is refused the shard before it touches a file; and the shard is
reloaded after deletions, as qdrant-edge 0.9.0 keeps deleted points in its IDF statistics until it is loaded again
(the contract suite, test_vector_store_contract.py, checks both adapters score BM25 over the points left): how
often, searches during a reload, and a shard that will not load again.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from app.wiring import Services, build_services
from core.errors import UpstreamUnavailable
from core.settings import Settings
from rag.stores import edge as edge_store
from rag.stores.edge import EdgeVectorStore
from tests.fakes import HashingEmbedder
from tests.integration.vector_store_support import DIM, IDENTITY, bm25_score, item, query, vec


def test_the_edge_store_reopens_after_deletions_at_most_once_a_minute(tmp_path: Path) -> None:
    now = [0.0]
    store = EdgeVectorStore(tmp_path / "edge", clock=lambda: now[0])
    store.reset(IDENTITY)
    store.upsert([item("Rare.md", dense=vec({0: 1.0}), terms={1: 1.0}), item("Other.md", dense=vec({0: 1.0}))])
    alone = bm25_score(store, 1)
    store.upsert([item("Copy.md", dense=vec({0: 1.0}), terms={1: 1.0})])
    store.delete_paths(["Copy.md"])

    now[0] = edge_store.REOPEN_SECONDS - 1
    store.flush()
    soon = bm25_score(store, 1)  # within a minute of opening: a search is not held up for the statistics
    now[0] = edge_store.REOPEN_SECONDS
    store.flush()
    later = bm25_score(store, 1)
    store.close()

    assert soon < alone  # the deleted copy still counted (qdrant-edge 0.9.0)
    assert later == pytest.approx(alone)


def test_searches_while_the_edge_store_reopens_all_succeed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edge_store, "REOPEN_SECONDS", 0.0)
    store = EdgeVectorStore(tmp_path / "edge")
    store.reset(IDENTITY)
    store.upsert([item(f"Note {n}.md", dense=vec({n % DIM: 1.0}), terms={n: 1.0}) for n in range(50)])
    failures: list[BaseException] = []
    found: list[int] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                found.append(len(store.search(query(vec({0: 1.0}), {1: 1.0}), limit=5)))
            except BaseException as error:  # noqa: BLE001 - any failure is the finding
                failures.append(error)
                return

    searcher = threading.Thread(target=search)
    searcher.start()
    for n in range(20):  # each a re-index: delete, write, flush (which reopens)
        store.delete_paths([f"Note {n}.md"])
        store.upsert([item(f"Note {n}.md", dense=vec({n % DIM: 1.0}), terms={n: 1.0})])
        store.flush()
    done.set()
    searcher.join()
    store.close()

    assert failures == [] and found and set(found) == {5}


def test_an_edge_shard_that_fails_to_reload_is_rebuilt_by_the_next_reset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edge_store, "REOPEN_SECONDS", 0.0)
    store = EdgeVectorStore(tmp_path / "edge")
    store.reset(IDENTITY)
    store.upsert([item("A.md", dense=vec({0: 1.0})), item("B.md", dense=vec({0: 1.0}))])
    store.delete_paths(["B.md"])

    def broken(path: str) -> None:
        raise Exception(f"segment damaged at {path}")  # what qdrant-edge raises for every engine error

    with monkeypatch.context() as patch:
        patch.setattr(edge_store.qe.EdgeShard, "load", broken)
        with pytest.raises(UpstreamUnavailable, match="cannot open the shard"):
            store.flush()

    assert store.identity() is None and store.search(query(vec({0: 1.0})), limit=3) == []  # nothing stale served
    store.reset(IDENTITY)
    store.upsert([item("A.md", dense=vec({0: 1.0}))])
    assert [hit.chunk.path for hit in store.search(query(vec({0: 1.0})), limit=3)] == ["A.md"]
    store.close()
    assert EdgeVectorStore(tmp_path / "edge").identity() == IDENTITY


def test_edge_upserts_survive_a_killed_process_without_flush(tmp_path: Path) -> None:
    script = f"""
        import os, signal
        from pathlib import Path
        from core.domain import Chunk, EmbeddedChunk, Embedding, IndexIdentity, SparseVector
        from rag.stores.edge import EdgeVectorStore
        store = EdgeVectorStore(Path({str(tmp_path)!r}))
        store.reset(IndexIdentity("test/tiny", 2))
        embedding = Embedding((1.0, 0.0), SparseVector((1,), (1.0,)))
        chunks = [Chunk(f"N{{i}}.md", f"N{{i}}", (), f"[[N{{i}}]]", "text") for i in range(300)]
        store.upsert([EmbeddedChunk(chunk, embedding, chunk.path) for chunk in chunks])
        os.kill(os.getpid(), signal.SIGKILL)
    """
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=Path(__file__).parents[2], check=False)

    store = EdgeVectorStore(tmp_path)
    assert run.returncode < 0  # killed, not a clean exit
    assert store.count() == 300
    store.close()


def test_edge_shard_open_in_another_store_is_reported_unavailable(tmp_path: Path) -> None:
    first = EdgeVectorStore(tmp_path)
    first.reset(IDENTITY)

    with pytest.raises(UpstreamUnavailable, match="another process"):
        EdgeVectorStore(tmp_path)
    first.close()


def file_sizes(root: Path) -> dict[str, int]:
    """Return the size of every file under `root`, a WAL segment the holder is still preallocating by its final name.

    The holder's own WAL thread renames `wal/tmp-open-N` to `wal/open-N` when it has filled it, whenever that is.
    """
    return {
        re.sub(r"/tmp-(open-\d+)$", r"/\1", p.relative_to(root).as_posix()): p.stat().st_size
        for p in root.rglob("*")
        if p.is_file()
    }


def test_a_second_process_is_refused_the_shard_and_leaves_its_files_alone(tmp_path: Path) -> None:
    # qdrant-edge's own lock fails only after `EdgeShard.load` rewrote segment files the holder still used.
    first = EdgeVectorStore(tmp_path)
    first.reset(IDENTITY)
    first.upsert([item("A.md", dense=vec({0: 1.0}), terms={1: 1.0})])
    first.flush()
    files = file_sizes(tmp_path)
    script = f"""
        from pathlib import Path
        from core.errors import ResourceBusy
        from rag.stores.edge import EdgeVectorStore
        try:
            EdgeVectorStore(Path({str(tmp_path)!r}))
        except ResourceBusy as exc:
            print(exc.message)
    """
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], cwd=Path(__file__).parents[2], capture_output=True, text=True
    )

    assert "is open in another process" in run.stdout, run.stderr
    assert file_sizes(tmp_path) == files
    first.upsert([item("B.md", dense=vec({1: 1.0}), terms={2: 1.0})])
    first.flush()  # failed with "Tracker journal ... is shorter than expected" before the guard
    assert first.count() == 2
    first.close()


def test_an_index_run_that_finds_nothing_new_still_reloads_after_earlier_deletions(
    services: Services, settings: Settings, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A note edited within a minute of the last reload: its deleted points stay counted until a later run.
    garlic = vault / "Areas/Garden/Garlic.md"
    probe = services.embedder.embed_query("Germidour")
    monkeypatch.setattr(edge_store, "REOPEN_SECONDS", 3600.0)
    services.reindexer.run_once()
    for edit in range(5):
        garlic.write_text(garlic.read_text(encoding="utf-8") + f"\nEdit {edit}.\n", encoding="utf-8")
        services.reindexer.run_once()
    stale = services.store.search_lists(probe, limit=1).sparse[0].score
    monkeypatch.setattr(edge_store, "REOPEN_SECONDS", 0.0)

    report = services.reindexer.run_once()  # the next scheduled run: nothing changed

    rebuilt = build_services(settings.model_copy(update={"data_dir": tmp_path / "rebuilt"}), embedder=HashingEmbedder())
    rebuilt.reindexer.run_once()
    expected = rebuilt.store.search_lists(probe, limit=1).sparse[0].score  # the same vault indexed once
    rebuilt.close()
    assert report.chunks_indexed == 0 and not report.modified
    assert stale < expected  # the five deleted versions counted (qdrant-edge 0.9.0)
    assert services.store.search_lists(probe, limit=1).sparse[0].score == pytest.approx(expected)
