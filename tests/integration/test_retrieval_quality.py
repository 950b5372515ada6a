"""Retrieval quality floor on sample_vault with the real bundled model, and what must never be findable."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.wiring import Services
from rag.embedding.rerank import PassthroughReranker
from rag.evaluation import evaluate, load_question_set
from rag.retrieve import Retriever
from tests.conftest import REAL_MODEL_GROUP

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "tests" / "fixtures" / "retrieval_questions.yaml"
HIDDEN = [
    ("restic repository password", "velvet-turnip-saddle-9041"),
    ("restic repository password key", "K004-FAKE"),
    ("charge money for this", "charge money for this"),
    ("beat until bubbles form", "beat until bubbles form"),
    ("zeppelin grocery delivery Quokkaballoon", "Quokkaballoon"),
    ("helium balloon delivery", "helium"),
]


# The quality floor is about the real model: the bundled MiniLM's index of sample_vault, built once per run
# (tests/conftest.py: real_model_index).
pytestmark = [pytest.mark.model, pytest.mark.xdist_group(REAL_MODEL_GROUP)]


@pytest.fixture(scope="module")
def indexed(real_model_index: Services) -> Services:
    return real_model_index


def test_question_set_scores_above_the_quality_floor(indexed: Services) -> None:
    # Measured 0.975 hit@6 and 0.89 MRR with the bundled int8 MiniLM (RRF k=10); the floor leaves room for noise.
    result = evaluate(indexed.retriever, load_question_set(QUESTIONS), k=6)
    assert result.total >= 30
    assert result.hit_rate >= 0.85, result.misses
    assert result.mrr >= 0.75, result.misses


def test_the_default_fusion_finds_more_than_rrf_with_k_60(indexed: Services) -> None:
    # RRF_K=10 against Qdrant's default 60, the same index: recall@6 0.954 vs 0.921 here, and better or equal on
    # the question sets of the three shared vaults (README, Benchmarks).
    questions = load_question_set(QUESTIONS)
    old = indexed.settings.retrieval.model_copy(update={"rrf_k": 60})
    before = evaluate(Retriever(indexed.embedder, indexed.store, PassthroughReranker(), old), questions, k=6)

    now = evaluate(indexed.retriever, questions, k=6)

    assert now.recall > before.recall, now.misses
    assert now.hit_rate >= before.hit_rate


@pytest.mark.parametrize(("query", "secret"), HIDDEN)
def test_comments_and_trash_are_never_findable(indexed: Services, query: str, secret: str) -> None:
    hits = indexed.retriever.search(query, k=50)
    assert hits
    assert not any(secret in hit.chunk.text for hit in hits)


def test_every_hit_carries_a_citation_anchor_that_names_its_note(indexed: Services) -> None:
    hits = indexed.retriever.search("garden ideas for next year", k=10)
    for hit in hits:
        assert hit.chunk.anchor.startswith("[[") and hit.chunk.anchor.endswith("]]")
        link = hit.chunk.anchor[2:-2].split("#")[0]
        assert hit.chunk.path.removesuffix(".md").endswith(link)
    # The two notes called "Ideas" are cited by path, so each link resolves to the right one.
    ideas = [hit.chunk.anchor for hit in hits if hit.chunk.title == "Ideas"]
    assert ideas and all(a.startswith(("[[Areas/Garden/Ideas", "[[Projects/Ideas")) for a in ideas)


def test_a_follow_up_finds_the_notes_of_the_question_before_it(indexed: Services) -> None:
    retriever = indexed.retriever
    book_notes = {"Resources/Books/The Overstory.md", "Resources/Books/Reading List 2026.md"}

    query = retriever.prepare("How did I rate it?", "What did I think of The Overstory?")
    alone = {hit.chunk.path for hit in retriever.search("How did I rate it?", k=6)}
    found = {hit.chunk.path for hit in retriever.search_for(query, k=6)}

    assert query.in_context is not None
    assert not alone & book_notes  # "rate it" alone finds other notes
    assert found & book_notes


def test_a_question_of_its_own_is_searched_alone_after_an_unrelated_one(indexed: Services) -> None:
    retriever = indexed.retriever
    question = "Which tomato variety gave the biggest harvest in 2026?"

    query = retriever.prepare(question, "What did I think of The Overstory?")

    assert query.in_context is None
    assert retriever.search_for(query, k=6) == retriever.search(question, k=6)


def test_sentences_are_ranked_by_meaning_where_they_share_no_word_with_the_question(indexed: Services) -> None:
    # What a refusal's "Closest in your notes:" fills with (rag/answer/closest_meaning.py): the 1.5B refused this
    # over vaultofknowledge, and the word test quoted the slot sentence, which shares "card".
    question = "My laptop's wireless card keeps spamming the console with error messages. What can I pass at startup?"
    sentences = [
        "Apparently the slot is not the Network Card, but the PCIe Bridge.",
        'Disable AER (Advanced Error Reporting) with "pci=noaer" kernel boot parameter',
        "Knead the dough for ten minutes.",
    ]

    scores = indexed.retriever.similarities(question, sentences)

    assert len(scores) == 3 and scores[1] > scores[2] and scores[0] > scores[2]
    assert indexed.retriever.similarities(question, []) == []
