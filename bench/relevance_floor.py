"""The relevance gate per vault: false refusals of answerable questions and refusals of uncovered ones and near misses.

Usage: python -m bench.relevance_floor [--vault sample_vault --questions tests/fixtures/retrieval_questions.yaml]
       [--shared ../shared/vaults] [--data-root DIR] [--choose-on NAME] [--verbose]

Without --shared only the one vault is measured. With it, every vault in that folder that has a question set
bench/questions/<name>.yaml is measured too. "before" is the dense cosine alone against 0.27 (the previous
default); "after" is the gate as configured: RELEVANCE_FLOOR over the vault's noise level, plus
RELEVANCE_TERM_WEIGHT times the word weight the retrieved notes lack. --choose-on NAME searches floor and term
weight on that vault only (fewest false refusals, then most refusals) and reports the choice on every vault, so
the rule is chosen on one vault and judged on the others. --data-root keeps each index between runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

from app.wiring import build_services
from core.settings import Settings
from rag.answer.relevance_gate import RelevanceGate, is_covered

ROOT = Path(__file__).resolve().parents[1]
BEFORE_FLOOR = 0.27  # the dense-only floor measured on sample_vault before the term coverage existed
FLOORS = [step / 100 for step in range(-20, 31)]
WEIGHTS = [step / 20 for step in range(0, 13)]


@dataclass(frozen=True, slots=True)
class Measured:
    """One question's two signals and whether the notes cover it."""

    question: str
    label: str  # answerable, unanswerable, near miss
    score: float
    term_share: float | None
    noise: float | None
    check_seconds: float  # one gate check, with the question already embedded


@dataclass(frozen=True, slots=True)
class Tally:
    """What one rule does on one vault's questions."""

    answerable: int
    false_refusals: int
    unanswerable: int
    refused_unanswerable: int
    near_misses: int
    refused_near_misses: int

    @property
    def missed_refusals(self) -> int:
        """Return the uncovered questions and near misses that were let through."""
        return self.unanswerable - self.refused_unanswerable + self.near_misses - self.refused_near_misses


Rule = Callable[[Measured], bool]  # True: covered


def load_questions(path: Path) -> dict[str, list[str]]:
    """Return the answerable, unanswerable and near-miss questions of a question-set YAML file."""
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return {
        "answerable": [str(row["question"]) for row in data["questions"]],
        "unanswerable": [str(q) for q in data.get("unanswerable") or []],
        "near miss": [str(q) for q in data.get("near_misses") or []],
    }


def rule_of(floor: float, term_weight: float, *, relative: bool = True) -> Rule:
    """Return the gate's verdict for a floor and a term weight (`relative`: over the vault's noise level)."""
    return lambda m: is_covered(
        m.score, floor, term_share=m.term_share, term_weight=term_weight, noise=m.noise if relative else None
    )


def tally(rows: Sequence[Measured], rule: Rule) -> Tally:
    """Count what `rule` refuses per label."""

    def count(label: str, *, refused: bool) -> int:
        return sum(1 for m in rows if m.label == label and (not rule(m) if refused else True))

    return Tally(
        count("answerable", refused=False),
        count("answerable", refused=True),
        count("unanswerable", refused=False),
        count("unanswerable", refused=True),
        count("near miss", refused=False),
        count("near miss", refused=True),
    )


def choose(rows: Sequence[Measured]) -> tuple[float, float]:
    """Return the (floor, term weight) with the fewest false refusals, then the most refusals, then the lowest."""

    def cost(pair: tuple[float, float]) -> tuple[int, int, float, float]:
        result = tally(rows, rule_of(*pair))
        return (result.false_refusals, result.missed_refusals, pair[1], pair[0])

    return min(((floor, weight) for floor in FLOORS for weight in WEIGHTS), key=cost)


def measure_vault(vault: Path, questions: Path, data_dir: Path) -> tuple[list[Measured], Settings]:
    """Index `vault` into `data_dir` and measure every question of the set with the configured gate."""
    settings = Settings(_env_file=None, vault_path=vault, data_dir=data_dir)
    services = build_services(settings)
    try:
        services.reindexer.run_once()
        gate = RelevanceGate.from_settings(services.embedder, services.store, settings.answer)
        rows = []
        gate.check("warm up: embed the noise probes")  # once per process, not per question
        for label, texts in load_questions(questions).items():
            for text in texts:
                vector = services.embedder.embed_query(text)
                started = time.perf_counter()
                gate.check(text, embedding=vector)  # the production path, which skips what cannot change the verdict
                elapsed = time.perf_counter() - started
                coverage = gate.measure(text, embedding=vector)
                rows.append(Measured(text, label, coverage.score or 0.0, coverage.term_share, coverage.noise, elapsed))
        return rows, settings
    finally:
        services.close()


def print_table(
    title: str, results: dict[str, tuple[Tally, Tally]], noise: dict[str, float | None], check_ms: dict[str, float]
) -> None:
    """Print before/after per vault."""
    print(title)
    print(
        f"  {'vault':<22} {'noise':>5} {'false refusals':>16} {'uncovered refused':>19} {'near misses refused':>21}"
        f" {'check ms':>9}"
    )
    for name, (before, after) in results.items():
        level = "  -  " if noise[name] is None else f"{noise[name]:.3f}"
        print(
            f"  {name:<22} {level:>5} {before.false_refusals:>5} -> {after.false_refusals:<2} of {before.answerable:<3}"
            f" {before.refused_unanswerable:>5} -> {after.refused_unanswerable:<2} of {before.unanswerable:<3}"
            f" {before.refused_near_misses:>5} -> {after.refused_near_misses:<2} of {before.near_misses:<3}"
            f" {check_ms[name]:>9.1f}"
        )


def print_details(name: str, rows: Sequence[Measured], rule: Rule) -> None:
    """Print each question's signals, marking the wrong verdicts."""
    print(f"{name}:")
    for m in sorted(rows, key=lambda m: (m.label, m.score)):
        wrong = rule(m) != (m.label == "answerable")
        share = "  -  " if m.term_share is None else f"{m.term_share:.2f}"
        print(f"  {'x' if wrong else ' '} {m.label:<12} cosine {m.score:.3f} words {share}  {m.question}")

    scores = [m.score for m in rows if m.label == "answerable"]
    print(f"  answerable cosines: min {min(scores):.3f} median {statistics.median(scores):.3f}")


def cases(args: argparse.Namespace) -> dict[str, tuple[Path, Path]]:
    """Return the vaults to measure with their question sets, by name."""
    found = {args.vault.name: (args.vault, args.questions)}
    if args.shared:
        for vault in sorted(path for path in args.shared.iterdir() if path.is_dir()):
            questions = ROOT / "bench" / "questions" / f"{vault.name}.yaml"
            if questions.is_file():
                found[vault.name] = (vault, questions)
    return found


def main() -> None:
    """Measure each vault, then print before/after and, with --choose-on, the rule chosen on one vault."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--questions", type=Path, default=ROOT / "tests" / "fixtures" / "retrieval_questions.yaml")
    parser.add_argument("--shared", type=Path, help="also every vault here with a bench/questions/<name>.yaml")
    parser.add_argument("--data-root", type=Path, help="keep each vault's index in DATA_ROOT/<name> between runs")
    parser.add_argument("--choose-on", help="choose floor and term weight on this vault; report them on all")
    parser.add_argument("--verbose", action="store_true", help="print every question's cosine and word share")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    measured: dict[str, list[Measured]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (vault, questions) in cases(args).items():
            data_dir = (args.data_root or Path(tmp)) / name
            measured[name], settings = measure_vault(vault, questions, data_dir)
    before = rule_of(BEFORE_FLOOR, 0.0, relative=False)
    noise = {name: next((m.noise for m in rows if m.noise is not None), None) for name, rows in measured.items()}
    check_ms = {name: 1000 * statistics.median(m.check_seconds for m in rows) for name, rows in measured.items()}
    after = rule_of(settings.relevance_floor, settings.relevance_term_weight)
    print(f"model {settings.embed_model}")
    print_table(
        f"before: dense floor {BEFORE_FLOOR}; after: RELEVANCE_FLOOR={settings.relevance_floor} "
        f"RELEVANCE_TERM_WEIGHT={settings.relevance_term_weight}",
        {name: (tally(rows, before), tally(rows, after)) for name, rows in measured.items()},
        noise,
        check_ms,
    )
    if args.choose_on:
        floor, weight = choose(measured[args.choose_on])
        chosen = rule_of(floor, weight)
        print_table(
            f"chosen on {args.choose_on}: floor {floor:.2f}, term weight {weight:.2f} (before -> chosen)",
            {name: (tally(rows, before), tally(rows, chosen)) for name, rows in measured.items()},
            noise,
            check_ms,
        )
    if args.verbose:
        for name, rows in measured.items():
            print_details(name, rows, after)


if __name__ == "__main__":
    main()
