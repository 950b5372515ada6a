"""The coverage rule: a cosine held against the vault's noise level, raised by the word weight the notes lack."""

from __future__ import annotations

import pytest

from rag.answer.relevance_gate import GATE_OFF, is_covered, required_score
from rag.answer.term_coverage import idf, weighted_share


def test_a_question_whose_words_are_all_found_needs_the_noise_level_plus_the_floor() -> None:
    assert required_score(-0.1, term_share=1.0, term_weight=0.25, noise=0.38) == pytest.approx(0.28)
    assert is_covered(0.29, -0.1, term_share=1.0, term_weight=0.25, noise=0.38)
    assert not is_covered(0.27, -0.1, term_share=1.0, term_weight=0.25, noise=0.38)


def test_missing_words_raise_the_score_needed_by_their_share_of_the_weight() -> None:
    assert required_score(-0.1, term_share=0.0, term_weight=0.25, noise=0.2) == pytest.approx(0.35)
    assert required_score(-0.1, term_share=0.6, term_weight=0.25, noise=0.2) == pytest.approx(0.2)
    # The same cosine passes with the words found and fails without them.
    assert is_covered(0.3, -0.1, term_share=1.0, term_weight=0.25, noise=0.2)
    assert not is_covered(0.3, -0.1, term_share=0.2, term_weight=0.25, noise=0.2)


def test_the_same_cosine_means_less_over_a_noisier_vault() -> None:
    # 0.35 clears a small recipe vault's noise but not that of 2,700 notes on everything.
    assert is_covered(0.35, -0.1, term_share=1.0, term_weight=0.25, noise=0.18)
    assert not is_covered(0.35, -0.1, term_share=1.0, term_weight=0.25, noise=0.48)


@pytest.mark.parametrize("share", [None, 0.0, 1.0])
def test_an_empty_index_covers_nothing_and_the_off_floor_everything_else(share: float | None) -> None:
    assert not is_covered(None, GATE_OFF, term_share=share, term_weight=0.25, noise=0.3)
    assert is_covered(-0.9, GATE_OFF, term_share=share, term_weight=0.25, noise=0.3)


def test_unmeasured_words_and_noise_cost_nothing() -> None:
    assert required_score(0.27) == pytest.approx(0.27)  # an absolute floor, as before the noise level
    assert required_score(0.1, term_share=None, term_weight=0.5, noise=0.2) == pytest.approx(0.3)


def test_rare_terms_weigh_more_than_common_ones() -> None:
    assert idf(0, 1000) > idf(3, 1000) > idf(100, 1000) > idf(900, 1000) > 0.0
    assert idf(10, 100) == pytest.approx(idf(100, 1000), rel=0.02)  # a share of the vault, not a count


def test_the_share_is_the_weight_of_the_found_terms_over_all_weight() -> None:
    weights = {1: 3.0, 2: 1.0}

    assert weighted_share(weights, [1]) == pytest.approx(0.75)
    assert weighted_share(weights, [2, 2, 7]) == pytest.approx(0.25)  # duplicates and strangers do not count
    assert weighted_share(weights, []) == 0.0
    assert weighted_share({}, [1]) is None
