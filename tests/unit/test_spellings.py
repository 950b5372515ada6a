"""Other spellings of a question's words (rag/spellings.py): which words have one, and how they are added."""

from __future__ import annotations

import zlib

import pytest

from core.domain import SparseVector
from rag.spellings import NOT_SPELLINGS, ONE_WAY, one_spelling, other_spelling, with_other_spellings


def term(word: str) -> list[int]:
    """A stand-in for BM25's stemmed hash: "travelling" and "traveling" stem alike, as Snowball's do."""
    return [zlib.crc32(word.removesuffix("ling").removesuffix("ing").encode())]


def query(*words: str) -> SparseVector:
    indices = tuple(sorted({term(word)[0] for word in words}))
    return SparseVector(indices, tuple(1.0 for _ in indices))


@pytest.mark.parametrize(
    ("word", "other"),
    [("authorise", "authorize"), ("Authorize", "authorise"), ("colour", "color"), ("centres", "centers")],
)
def test_british_and_american_spellings_lead_to_each_other(word: str, other: str) -> None:
    assert other_spelling(word) == other


@pytest.mark.parametrize("word", ["tire", "draft", "program", "meter", "disk", "bread", "the"])
def test_an_american_spelling_that_is_another_word_too_has_no_other_spelling(word: str) -> None:
    # "tire" is also "be tired" in British English: its pair would search for car tyres.
    assert other_spelling(word) is None


@pytest.mark.parametrize(("word", "other"), [("tyre", "tire"), ("draughts", "drafts"), ("metres", "meters")])
def test_the_british_spelling_that_means_one_thing_finds_the_american_one(word: str, other: str) -> None:
    assert other_spelling(word) == other


@pytest.mark.parametrize("word", ["filter", "philtre", "groyne", "prologue"])
def test_pairs_of_different_words_in_the_list_are_never_paired(word: str) -> None:
    assert other_spelling(word) is None


def test_every_excluded_american_spelling_is_in_the_list_it_is_excluded_from() -> None:
    from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS

    assert set(AMERICAN_ENGLISH_SPELLINGS) >= NOT_SPELLINGS | ONE_WAY


def test_the_other_spelling_is_added_and_paired_with_the_word_it_spells() -> None:
    text = "When I authorise my app"
    sparse, alternates = with_other_spellings(query("authorise", "app"), text, term)

    (added,) = term("authorize")
    assert alternates == ((added, term("authorise")[0]),)
    assert added in sparse.indices and len(sparse.indices) == 3
    assert dict(zip(sparse.indices, sparse.values, strict=True))[added] == 1.0


def test_nothing_is_added_for_a_spelling_that_stems_alike_or_is_already_asked() -> None:
    both = query("colour", "color")
    assert with_other_spellings(both, "colour or color", term) == (both, ())
    assert with_other_spellings(query("bread"), "bread", term) == (query("bread"), ())  # no other spelling


def test_a_word_without_a_term_of_its_own_adds_nothing() -> None:
    sparse = query("app")  # "colour" was dropped as if it were a stop word
    assert with_other_spellings(sparse, "colour app", term) == (sparse, ())


def test_one_spelling_makes_both_spellings_of_a_word_equal() -> None:
    assert one_spelling("colours") == one_spelling("colors") == "colors"
    assert one_spelling("tyre") == one_spelling("tire") == "tire"  # the British spelling means one thing
    assert one_spelling("philtre") == "philtre" and one_spelling("bread") == "bread"


def test_the_answer_checks_stem_a_british_word_as_its_american_spelling() -> None:
    from rag.answer.excerpts import question_stems, stem

    assert stem("colours") == stem("color")
    assert question_stems("What colour is the centre?") == question_stems("What color is the center?")
