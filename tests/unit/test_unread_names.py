"""Names an answer states that no note it read holds get a caution; German nouns and acronyms do not."""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.unread_names import unread_names
from rag.answer.vocabulary import ordinary_words

TASKS = Passage(
    "[[Recurring Tasks#Library]]",
    "Recurrence rules are parsed by the rrule library, which the plugin bundles. "
    "See [[About Recurring Tasks]] for how the next date is computed.",
)
KAESE = Passage(
    "[[Käsespätzle#Zutaten]]",
    "- 250 g würziger Bergkäse, mindestens 6 Monate gereift, grob gerieben\n- 100 g Emmentaler, gerieben",
)


def test_a_name_no_passage_holds_is_named() -> None:
    reply = "The recurrence rules library was written by Davio, who maintains it on GitHub."
    question = "Who wrote the recurrence rules library?"

    assert unread_names(reply, [TASKS], question=question) == ["Davio", "GitHub"]
    assert unread_names("The author is Davio Smith.", [TASKS], question=question) == ["Davio Smith"]


def test_names_the_passages_the_question_or_a_cited_link_hold_are_not() -> None:
    reply = "Recurrence uses the Rrule library [[About Recurring Tasks]], as Recurring Tasks says; ask Tasks."

    assert unread_names(reply, [TASKS], question="Which library do Tasks use?") == []


def test_a_name_the_passages_link_holds_was_read() -> None:
    # The model reads each passage under its link, <note source="[[Käsespätzle#Käsespätzle nach Oma Käthe]]">: the
    # 1.5B's "Oma verwendet Bergkäse in der Käsespätzle nach Oma Käthe." was cautioned for "Oma Käthe".
    intro = Passage("[[Käsespätzle#Käsespätzle nach Oma Käthe]]", "Das Rezept meiner Großmutter aus dem Allgäu.")
    reply = "Oma verwendet Bergkäse in der Käsespätzle nach Oma Käthe."

    assert unread_names(reply, [intro, KAESE], question="Welchen Käse nimmt Oma für die Käsespätzle?") == []
    assert unread_names(reply, [KAESE], question="Welchen Käse nimmt Oma für die Käsespätzle?") == ["Oma Käthe"]


def test_a_sentences_first_word_acronyms_code_links_and_the_services_notices_are_not_names() -> None:
    reply = (
        "Davio is not named [[Recurring Tasks]]. The LLM and CPU matter; run `Rrule.parse()` or see https://Example.org/Page.\n"
        "*(Stopped here: the model began repeating itself.)*\n\n**Sources:**\n- [[Recurring Tasks]]"
    )

    assert unread_names(reply, [TASKS]) == []


def test_the_models_own_headings_labels_and_list_items_are_not_names() -> None:
    reply = (
        "To answer this, let's break it down:\n\n### Understanding the Filter\n\n"
        "1. **Explanation**: Combining filters does not work.\n2. Version two repeats it.\n"
        "3. Error Cases: none.\n4. **Create a directory for testing**: Navigate to it.\n**Final Answer**\n"
        "Use the rrule library."
    )

    assert unread_names(reply, [TASKS]) == []


def test_a_reply_that_capitalises_every_noun_is_read_as_german_and_left_unchecked() -> None:
    reply = (
        "Oma nimmt für die Käsespätzle würzigen Bergkäse, der mindestens sechs Monate gereift ist, und dazu "
        "Emmentaler. Den Käse reibt sie grob, die Zwiebeln brät sie in Butter."
    )

    assert unread_names(reply, [KAESE], question="Welchen Käse nimmt Oma?") == []


def test_capitalised_words_in_a_row_are_one_name_shown_whole_when_one_of_them_is_no_ordinary_word() -> None:
    passage = Passage("[[Build props]]", "ro.com.google.gmsversion=5.1")

    assert unread_names("This is the version of the Google Play Services.", [passage]) == []
    assert unread_names("It was built by Bauer Lindqvist for Android.", [passage]) == ["Bauer Lindqvist"]
    title_case = "Use the Kubernetes Ingress Configuration here."
    assert unread_names(title_case, [passage]) == ["Kubernetes Ingress Configuration"]


def test_a_short_reply_is_checked_whatever_its_capitals() -> None:
    assert unread_names("Mostly Gruyère.", [KAESE]) == ["Gruyère"]


def test_ordinary_words_are_the_whole_words_of_the_bundled_vocabulary() -> None:
    words = ordinary_words()

    assert {"configuration", "navigate", "android", "john"} <= words
    assert not {"davio", "lindqvist", "github", "##ing"} & words


def test_a_link_written_against_a_word_is_not_glued_to_it() -> None:
    # Recorded from Qwen2.5-Coder 1.5B on kepano's vault: the caution named "RunnerLINKLINKLINK", the placeholder a
    # link stands as joined to the word before it.
    genre = Passage("[[Sci-fi]]", "| [[Blade Runner]] | 7 | [[Movies]] |\n| [[Futurama]] | 7 | [[Shows]] |")
    reply = "Blade Runner[[Blade Runner]][[Futurama]][[The Machine Stops]]"

    assert unread_names(reply, [genre], question="Which sci-fi movies and shows are in my notes?") == []
