"""What the model is sent: is each golden answer item's evidence in the passages of its turn.

Usage: python -m bench.context_recall [--vault sample_vault] [--golden bench/golden/sample_vault.yaml]
       [--passage-chars 2800,1400] [--data-dir DIR] [--verbose]

No model is involved: each question goes through the relevance floor and the search as a chat turn does, and the
passages are built as for a model answering without tools (`rag.answer.context.build_context`, the base views they
embed written out; `--without-base-views` leaves them as embeds). Then:
  covered    the relevance floor let the question through (else the turn is refused before any model);
  notes      every expected note has a passage (note-level recall, as bench.retrieval_quality counts it);
  evidence   the share of evidence quotes whose words stand in a row in the passages (markup and case ignored);
  facts      the share of facts some accepted wording of which is in the passages: the most a model can state.
Evidence found in an expected note but cut from the passages is what chunk choice and trimming lose, which no
note-level figure shows. Each --passage-chars value is an ANSWER_PASSAGE_CHARS, measured on the same index.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from agent.tools.bases.embeds import BaseEmbeds
from agent.tools.reader import VaultReader
from app.eval.golden import GoldenItem, load_golden_set
from app.eval.matching import found_facts, has_phrase, tokens
from app.services.answering import indexed_text
from app.wiring import Services
from bench.indexed import indexed_vault
from rag.answer.context import PASSAGE_CHARS, build_context
from rag.answer.neighbours import MAX_DISTANCE
from rag.answer.relevance_gate import RelevanceGate

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ItemContext:
    """What one question's turn sends the model, scored against its golden item."""

    item: GoldenItem
    is_covered: bool
    has_notes: bool
    evidence: list[bool]
    facts: list[bool]
    chars: int


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--golden", type=Path, default=ROOT / "bench" / "golden" / "sample_vault.yaml")
    parser.add_argument("--passage-chars", default=str(PASSAGE_CHARS), help="comma-separated ANSWER_PASSAGE_CHARS")
    parser.add_argument("--distances", default=f"0,{MAX_DISTANCE}", help="comma-separated neighbour distances")
    parser.add_argument("--data-dir", type=Path, help="keep the index here between runs (default: a temp dir)")
    parser.add_argument(
        "--without-base-views", action="store_true", help="leave embedded base views as embeds (as before stop 31)"
    )
    parser.add_argument("--verbose", action="store_true", help="print the evidence each item's passages miss")
    return parser.parse_args()


def item_context(
    services: Services,
    gate: RelevanceGate,
    item: GoldenItem,
    *,
    chars: int,
    distance: int,
    base_embeds: BaseEmbeds | None = None,
) -> ItemContext:
    """Run `item`'s question through the floor and the search, and score the passages a model would read.

    `base_embeds`: the base views the hits embed are written out, as a chat turn writes them (None: left as embeds).
    """
    query = services.retriever.prepare(item.question)
    covered = gate.covers(query)
    hits = services.retriever.search_for(query, k=services.settings.top_k, passages=True) if covered else []
    if distance:
        hits = services.retriever.with_neighbours(hits, max_chars=chars, max_distance=distance)
    if base_embeds is not None:
        hits = base_embeds.expand(hits)
    context = build_context(
        hits, item.question, max_chars=chars, note_text=indexed_text(services.docstore), with_location=False
    )
    words = tokens(context)
    return ItemContext(
        item=item,
        is_covered=covered,
        has_notes=set(item.expected) <= {hit.chunk.path for hit in hits},
        evidence=[has_phrase(words, quote) for quote in item.evidence],
        facts=found_facts(context, item.facts),
        chars=len(context),
    )


def print_figures(label: str, results: list[ItemContext], *, verbose: bool) -> None:
    """Print one row of figures, and with `verbose` what each item's passages miss."""
    evidence = [found for result in results for found in result.evidence]
    facts = [found for result in results for found in result.facts]
    print(
        f"{label:>14}  covered {sum(r.is_covered for r in results)}/{len(results)}"
        f"  notes {sum(r.has_notes for r in results)}/{len(results)}"
        f"  evidence {sum(evidence) / max(1, len(evidence)):.3f}"
        f"  all evidence {sum(all(r.evidence) for r in results)}/{len(results)}"
        f"  facts {sum(facts) / max(1, len(facts)):.3f}"
        f"  mean chars {sum(r.chars for r in results) / max(1, len(results)):.0f}"
    )
    if not verbose:
        return
    for result in results:
        missed = [quote for quote, found in zip(result.item.evidence, result.evidence, strict=True) if not found]
        if missed or not result.is_covered:
            state = (
                f"notes {'found' if result.has_notes else 'MISSED'}" if result.is_covered else "refused by the floor"
            )
            print(f"    {result.item.id} ({state}): " + " | ".join(quote[:70] for quote in missed))


def main() -> None:
    """Index the vault with the configured embedder and print the figures per ANSWER_PASSAGE_CHARS."""
    args = parse_args()
    items = [item for item in load_golden_set(args.golden).items if item.kind == "answer"]
    with indexed_vault(args.vault, args.data_dir) as (settings, services):
        print(f"vault {args.vault}  ({services.store.count()} chunks, {len(items)} answer items)")
        gate = RelevanceGate.from_settings(services.embedder, services.store, settings.answer)
        views = None if args.without_base_views else BaseEmbeds(VaultReader(settings.vault, services.retriever))
        for chars in (int(value) for value in args.passage_chars.split(",")):
            for distance in (int(value) for value in args.distances.split(",")):
                results = [
                    item_context(services, gate, item, chars=chars, distance=distance, base_embeds=views)
                    for item in items
                ]
                print_figures(f"{chars} chars, nb {distance}", results, verbose=args.verbose)


if __name__ == "__main__":
    main()
