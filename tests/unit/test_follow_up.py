"""Follow-up questions: which count as one, and how their two searches are fused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.domain import Chunk, Embedding, SearchHit, SparseVector
from rag.follow_up import (
    FOLLOW_UP_MAX_TERMS,
    Query,
    context_before,
    fuse_by_rank,
    is_continuation,
    is_follow_up,
    is_topic_switch,
    picks_an_item,
    points_back,
    with_earlier,
)


def query_with_terms(count: int) -> Embedding:
    indices = tuple(range(count))
    return Embedding(dense=(1.0, 0.0), sparse=SparseVector(indices=indices, values=tuple(1.0 for _ in indices)))


def hit(path: str, index: int = 0, score: float = 1.0) -> SearchHit:
    chunk = Chunk(path=path, title=path, heading_path=(), anchor=f"[[{path}]]", text=path, index=index)
    return SearchHit(chunk=chunk, score=score)


def test_a_question_of_few_weighed_words_after_another_is_a_follow_up() -> None:
    assert is_follow_up(query_with_terms(FOLLOW_UP_MAX_TERMS), "What did I think of The Overstory?")
    assert not is_follow_up(query_with_terms(FOLLOW_UP_MAX_TERMS + 1), "What did I think of The Overstory?")
    assert not is_follow_up(query_with_terms(1), "  ")  # the first question of a conversation
    # Picking an item ("Which one gave the most per plant?"), BM25 weighs "one": one word more.
    earlier = "Which tomatoes did I grow?"
    assert is_follow_up(query_with_terms(FOLLOW_UP_MAX_TERMS + 1), earlier, text="Which one gave the most per plant?")
    assert not is_follow_up(query_with_terms(FOLLOW_UP_MAX_TERMS + 2), earlier, text="Which one gave most per plant?")


def test_a_follow_up_is_searched_after_the_earlier_question_and_judged_in_that_context() -> None:
    alone, together = query_with_terms(1), query_with_terms(5)
    text = with_earlier(" How did I rate it? ", "What did I think of The Overstory?\n")

    assert text == "What did I think of The Overstory?\nHow did I rate it?"
    assert Query("How did I rate it?", alone, (text, together)).coverage == (text, together)
    assert Query("How did I rate it?", alone, (text, together)).coverages == [(text, together)]


def terms(*indices: int) -> Embedding:
    return Embedding(dense=(1.0, 0.0), sparse=SparseVector(indices=indices, values=tuple(1.0 for _ in indices)))


def test_a_follow_up_whose_weighed_words_are_all_new_must_be_covered_alone_too() -> None:
    # "What is my dentist's phone number?" after a meeting question (kepano-obsidian, the 1.5B): covered only by the
    # meeting's words, it was answered with a list of links; alone the relevance gate refuses it.
    earlier = terms(1, 2, 3, 4)
    assert is_topic_switch("What is my dentist's phone number?", terms(7, 8, 9), earlier=earlier)
    # "How long does the sourdough rest?" shares a word
    assert not is_topic_switch("How long does the sourdough rest?", terms(3, 8, 9), earlier=earlier)
    assert not is_topic_switch("How did I rate it?", terms(8), earlier=earlier)  # too few words to stand alone
    alone, together = terms(7, 8, 9), terms(1, 2, 3, 4, 7, 8, 9)
    switched = Query("What is my dentist's phone number?", alone, ("…", together), is_topic_switch=True)
    assert switched.coverages == [("…", together), ("What is my dentist's phone number?", alone)]
    assert Query("What is kahm yeast?", alone).coverage == ("What is kahm yeast?", alone)


def test_two_new_words_are_a_new_topic_unless_the_question_points_back() -> None:
    # "What's the capital of Australia?" right after a question about the notes passed the floor in its context.
    earlier = terms(1, 2, 3, 4)
    assert is_topic_switch("What's the capital of Australia?", terms(8, 9), earlier=earlier)
    assert is_topic_switch("Is there a gym nearby?", terms(8, 9), earlier=earlier)
    assert not is_topic_switch("What time does it run?", terms(8, 9), earlier=earlier)
    assert not is_topic_switch("Were other values tried?", terms(8, 9), earlier=earlier)
    assert not is_topic_switch("At what temperature should the dough ferment?", terms(2, 9), earlier=earlier)


@pytest.mark.parametrize(
    "message", ["Tell me more", "and why?", "Go on, please", "What else?", "more details", "Can you explain that?"]
)
def test_a_message_asking_only_for_more_is_a_continuation(message: str) -> None:
    assert is_continuation(message)


@pytest.mark.parametrize("message", ["How did I rate it?", "Why not nomic?", "Tell me about garlic", "???", ""])
def test_a_message_with_words_of_its_own_is_no_continuation(message: str) -> None:
    assert not is_continuation(message)


def test_a_question_pointing_back_names_what_it_asks_about_by_the_question_before() -> None:
    assert points_back("And why did I replace it?")
    assert points_back("Were other values tried?")
    assert not points_back("Is there a gym nearby?")
    assert not points_back("Where is the italic text?")  # "it" inside a word
    assert points_back("Which one was the fastest?")  # after a list
    assert not points_back("Is one enough?")


def test_a_follow_up_leans_on_the_questions_its_question_before_follows() -> None:
    chain = ["What did I think of The Overstory?", "Which chain did I fit?", "And why did I replace it?"]

    assert context_before(chain) == "Which chain did I fit?\nAnd why did I replace it?"
    assert context_before([*chain[:2], "Tell me more", "and why?"]) == "Which chain did I fit?\nTell me more\nand why?"
    assert (
        context_before(["Bike chain?", "Tell me more", "and why?", "go on"])
        == "Bike chain?\nTell me more\nand why?\ngo on"
    )
    assert context_before(["Q?", *["More"] * 6]) == "\n".join(["More"] * 6)  # MAX_CHAIN
    assert context_before([]) == ""


def test_an_acknowledgement_is_no_continuation() -> None:
    assert not is_continuation("ok") and not is_continuation("okay")


def test_a_message_that_says_nothing_to_search_for() -> None:
    alone = terms(1)
    assert Query("???", alone).says_nothing
    assert Query("Tell me more", alone).says_nothing  # as the first message: nothing to say more of
    assert not Query("Tell me more", alone, ("…", terms(1, 2)), only_in_context=True).says_nothing
    assert not Query("What is kahm yeast?", alone).says_nothing
    assert not Query("泡菜怎么做?", alone).says_nothing  # words BM25 may not weigh are still words


def test_fusing_by_rank_keeps_each_chunk_once_and_rewards_chunks_in_both_lists() -> None:
    own = [hit("A.md"), hit("B.md"), hit("C.md")]
    in_context = [hit("D.md"), hit("B.md", score=0.2), hit("A.md", index=1)]

    fused = fuse_by_rank([own, in_context], rrf_k=10)

    assert [(h.chunk.path, h.chunk.index) for h in fused] == [
        ("B.md", 0),  # second in both
        ("A.md", 0),  # first in one: ties with D go to the first list
        ("D.md", 0),
        ("C.md", 0),
        ("A.md", 1),  # another chunk of A is another hit
    ]
    assert fused[0].score == 2 / 11 and fused[0].chunk is own[1].chunk  # 1 / (rank + k - 1), as Qdrant fuses


def test_a_list_weighted_double_places_its_second_hit_beside_the_others_first() -> None:
    words = [hit("A.md"), hit("B.md"), hit("C.md")]
    named = [hit("D.md"), hit("E.md"), hit("F.md")]

    fused = fuse_by_rank([words, named], rrf_k=10, weights=[1.0, 2.0])

    # E (2nd) ties A (1st), the first list winning the tie; F (3rd) comes before B (2nd).
    assert [h.chunk.path for h in fused] == ["D.md", "A.md", "E.md", "F.md", "B.md", "C.md"]
    assert fused[1].score == fused[2].score == 1 / 10


def test_a_word_searched_in_its_other_spelling_too_counts_once() -> None:
    # "And the colour of the tart?": "colour" is searched as "color" too (rag/spellings.py); still two words.
    spelled = Embedding(
        dense=(1.0, 0.0), sparse=SparseVector(indices=(1, 2, 11, 12), values=(1.0,) * 4), alternates=((11, 1), (12, 2))
    )
    assert spelled.terms == (1, 2)
    assert is_follow_up(spelled, "How do I make the nectarine tart?")
    # "colour" (2, searched as "color", 12 too) and "crust" (3) after a question that asked "color" (12): one new
    # word, too few for a new topic; without the pairing both would be new, and the question judged alone.
    colour_crust = Embedding(dense=(1.0, 0.0), sparse=SparseVector((2, 3, 12), (1.0,) * 3), alternates=((12, 2),))
    assert not is_topic_switch("The colour of the crust?", colour_crust, earlier=terms(12, 5, 7))
    assert is_topic_switch("The colour of the crust?", colour_crust, earlier=terms(5, 7))


def test_only_a_follow_up_pointing_back_or_asking_for_more_reads_the_notes_the_answer_before_came_from() -> None:
    notes = ("AI Models I Tested.md",)
    context = ("…", terms(1, 2, 3))

    assert Query("Which one was the fastest?", terms(4), context, answered_from=notes).earlier_notes == notes
    assert Query("Tell me more", terms(), context, answered_from=notes).earlier_notes == notes
    # "And LiquidPlanner?" after Linear's features names a sibling: the Linear note took its slots.
    assert Query("And LiquidPlanner?", terms(4), context, answered_from=notes).earlier_notes == ()
    switched = Query("How many layers does that one have?", terms(4, 5, 6), context, is_topic_switch=True)
    assert replace(switched, answered_from=notes).earlier_notes == notes  # pointing back, in words of its own
    google = Query("How do I use Google Sheets for it?", terms(4, 5, 6), context, is_topic_switch=True)
    assert replace(google, answered_from=notes).earlier_notes == ()  # names its own subject
    peru = Query("And the capital of Peru?", terms(4, 5), context, is_topic_switch=True, answered_from=notes)
    assert peru.earlier_notes == ()
    assert Query("Which one was the fastest?", terms(4), answered_from=notes).earlier_notes == ()  # no follow-up


def test_a_question_picking_an_item_of_what_was_said_before() -> None:
    assert picks_an_item("Which one gave the most per plant?")
    assert picks_an_item("How much salt did that one need?")
    assert picks_an_item("Which of them did I rate 5?")
    assert not picks_an_item("Is one enough?")
    assert not picks_an_item("Which tomato gave the most per plant?")
