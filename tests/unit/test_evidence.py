"""The sentences under an answer: chosen by code from the passages read, verbatim, holding what the answer says."""

from __future__ import annotations

import re

from rag.answer.attribution import Passage, said_beyond
from rag.answer.evidence import closest_to, copied_from, evidence_for, is_borne_out, repeats_sentences
from rag.answer.excerpts import stem
from rag.answer.quoted_evidence import (
    CLOSEST_HEADING,
    EVIDENCE_BLOCK,
    EVIDENCE_HEADING,
    QUOTED_LINE,
    Evidence,
    evidence_block,
    quoted_line,
)

RECIPE = Passage(
    "[[Sourdough#Final recipe]]",
    "## Final recipe\n"
    "1. **Autolyse:** mix flours and 350 g of the water, rest 45 minutes.\n"
    "3. **Bulk fermentation:** about **5 hours at 24 °C** (the oven with only the light on). Four sets of folds.\n"
    "5. **Cold retard:** **14 hours in the fridge at 4 °C**, covered. …",
)
BUDGET = Passage(
    "[[Garden Plan 2027#Budget]]",
    "| Item | Cost |\n| --- | --- |\n| Annual fee (2027, after the committee vote) | €302 |\n| Seeds | €60 |\n"
    "| Total | €432 |",
)
DAILY = Passage("[[2026-11-13#Plan]]", "- [x] Bake before work\n- [ ] Call the allotment committee about the fee")


def test_a_misread_number_is_shown_beside_the_sentence_it_was_misread_from() -> None:
    # Recorded from Qwen2.5-Coder 0.5B: the fridge's 4 °C read as the bulk fermentation's 24 °C.
    answer = "The shaped sourdough loaf rests in the fridge for 14 hours at 24 °C."
    question = "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?"

    evidence = evidence_for(answer, [RECIPE, DAILY], question=question)

    assert [item.text for item in evidence] == [
        "**Cold retard:** **14 hours in the fridge at 4 °C**, covered.",
        "**Bulk fermentation:** about **5 hours at 24 °C** (the oven with only the light on).",
    ]
    assert {item.source for item in evidence} == {"[[Sourdough#Final recipe]]"}


def test_a_one_number_answer_gets_the_sentence_holding_that_number() -> None:
    passages = [
        Passage(
            "[[Fermentation Log#Rules of thumb]]",
            "Dry-salted vegetables (sauerkraut): **2 % salt by weight**. Brine: 3 %.",
        )
    ]

    evidence = evidence_for("2 %", passages, question="How much salt do I use for dry-salted sauerkraut?")

    assert evidence == [
        Evidence("Dry-salted vegetables (sauerkraut): **2 % salt by weight**.", "[[Fermentation Log#Rules of thumb]]")
    ]


def test_table_rows_are_shown_as_their_cells_and_a_row_counts_as_on_topic_by_its_heading() -> None:
    answer = "The allotment fee in 2027 will be €302, and the whole year's budget is €432."
    question = "What will the allotment fee be in 2027, and what does the garden plan estimate for the year's budget?"

    evidence = evidence_for(answer, [BUDGET], question=question)

    assert [item.text for item in evidence] == ["Annual fee (2027, after the committee vote) | €302", "Total | €432"]


def test_a_sentence_sharing_no_word_with_the_question_is_chance_and_not_shown() -> None:
    # "Bake" and "work" are the answer's words, but a to-do line of a daily note is not about the potluck.
    answer = "I brought a loaf to work, baked before work that morning."
    question = "What did I bring to Friday's team potluck?"

    assert evidence_for(answer, [DAILY], question=question) == []


def test_what_the_answer_repeats_word_for_word_is_not_shown_again() -> None:
    answer = "Cold retard: 14 hours in the fridge at 4 °C, covered."

    assert evidence_for(answer, [RECIPE], question="How long does the loaf stay in the fridge?") == []


def test_a_second_sentence_is_shown_only_when_it_holds_more_of_the_answer() -> None:
    answer = "It rests 14 hours in the fridge at 4 °C."
    question = "How long does the loaf rest in the fridge?"

    evidence = evidence_for(answer, [RECIPE, RECIPE], question=question)

    assert [item.text for item in evidence] == ["**Cold retard:** **14 hours in the fridge at 4 °C**, covered."]


def test_tool_text_without_a_note_and_no_answer_get_nothing() -> None:
    assert evidence_for("", [RECIPE], question="How long does the loaf rest in the fridge?") == []
    assert (
        evidence_for("14 hours at 4 °C.", [Passage("", "Cold retard: 14 hours at 4 °C.")], question="How long?") == []
    )


def test_an_answer_saying_nothing_beyond_the_question_gets_the_sentence_holding_most_of_the_question() -> None:
    # Recorded from Qwen2.5-Coder 0.5B: "nomic", asked which model was chosen and why not nomic; and a bare "No.".
    choice = Passage(
        "[[Embedding Model Choice#Decision]]",
        "## Decision\n**BAAI/bge-small-en-v1.5.** I chose it for the librarian: it indexes the vault in 3 minutes.\n"
        "Nomic is two points better on Recall@5, but takes 3.6 times as long to index.",
    )
    index = Passage("[[Librarian MOC#Design]]", "- [[Embedding Model Choice]]: which model and why, nomic or bge")
    decisions = Passage(
        "[[2026-11-12 Architecture Review#Decisions]]",
        "- **No LLM query rewriting in v0.1.** It doubled latency and moved Recall@5 from 0.89 to 0.88.",
    )
    question = "Which embedding model did I choose for the librarian, and why not nomic?"

    assert evidence_for("nomic", [index, choice], question=question) == [
        Evidence(
            "**BAAI/bge-small-en-v1.5.** I chose it for the librarian: it indexes the vault in 3 minutes.",
            "[[Embedding Model Choice#Decision]]",
        )
    ]  # the map-of-content line holds the question's words, and says nothing beyond them
    assert [
        item.text for item in evidence_for("No.", [decisions], question="Did we decide on LLM query rewriting?")
    ] == ["**No LLM query rewriting in v0.1.** It doubled latency and moved Recall@5 from 0.89 to 0.88."]
    # A refusal in the model's own words says nothing beyond the question either, and gets nothing.
    for refusal in (
        "Not in the notes.",
        "The notes do not say.",
        "Not mentioned.",
        "I couldn't find this in your notes.",
    ):
        assert evidence_for(refusal, [decisions], question="Did we decide on LLM query rewriting?") == []
    # Two question words in one sentence at least, or one beside the note's own: one shared word is chance.
    assert evidence_for("The fridge.", [RECIPE], question="Where does the loaf rest, the fridge?") == []


def test_an_answer_that_is_only_a_link_gets_the_sentences_of_the_note_it_links_to() -> None:
    # Recorded from Qwen2.5-Coder 1.5B on vaultofknowledge: the reply was the link alone, and the bookmarks list's
    # KWin line, holding the question's "uses" and "theme", stood under it beside the Sela note's own sentence.
    sela = Passage(
        "[[How I revived Sela#For a new site (my trick)]]",
        "Activate the Sela theme on a new site by installing each retired theme in sequential order.",
    )
    bookmarks = Passage(
        "[[Bookmarks List#1.1. Unixporn]]",
        "KWin used to be themed with deKorator, now it uses Aurorae theme engine and its blog uses the classic theme.",
    )
    # Written in lower case, "sela" names nothing (rag/answer/named_subject.py): only the link narrows the passages.
    question = "What is the address of my own blog that uses the sela theme?"

    linked = evidence_for("[[How I revived Sela#For a new site (my trick)]]", [bookmarks, sela], question=question)
    unlinked = evidence_for("Sela.", [bookmarks, sela], question=question)

    assert [item.source for item in linked] == ["[[How I revived Sela#For a new site (my trick)]]"]
    assert "[[Bookmarks List#1.1. Unixporn]]" in [item.source for item in unlinked]  # no link: every passage
    # As the question was asked, "Sela" names what it is about, and the bookmarks list does not hold it.
    named = question.replace("blog", "WordPress blog").replace("sela", "Sela")
    assert [item.source for item in evidence_for("Sela.", [bookmarks, sela], question=named)] == [sela.source]


def test_a_long_sentence_is_cut_at_a_space_and_marked() -> None:
    long = Passage("[[Log]]", "The pump ran for 20 seconds " + "and then it waited a while " * 20 + "before the check.")

    (item,) = evidence_for("It ran for 20 seconds.", [long], question="How long does the pump run?", max_chars=60)

    assert item.text.startswith("The pump ran for 20 seconds") and item.text.endswith(" …")
    assert len(item.text) <= 62


def test_the_block_quotes_each_sentence_with_its_link() -> None:
    block = evidence_block([Evidence("Total | €432", "[[Garden Plan 2027#Budget]]")])

    assert block == f'{EVIDENCE_HEADING}\n- "Total | €432" [[Garden Plan 2027#Budget]]'
    assert evidence_block([]) == ""


def test_one_answer_word_beside_two_question_words_is_evidence_for_the_first_sentence() -> None:
    # "24" is a misread of the note's 42: only "Germidour" is the answer's, but the sentence is the garlic planting.
    garlic = Passage("[[Garlic]]", "Planted 42 cloves of 'Germidour' on 8 November 2026. Watered them in.")

    evidence = evidence_for(
        "You planted 24 cloves of Germidour.", [garlic], question="How many garlic cloves did I plant?"
    )

    assert evidence == [Evidence("Planted 42 cloves of 'Germidour' on 8 November 2026.", "[[Garlic]]")]


def test_a_compound_ending_in_a_question_word_is_about_it() -> None:
    # German names a kind by a compound: "Bergkäse" is a "Käse". An English answer about a German note shares one word
    # with it, and the sentence only "Käsespätzle" of its note besides.
    tips = Passage("[[Käsespätzle#Omas Tipps]]", "- Kein Gouda! Der Bergkäse ist das ganze Rezept.")
    question = "Welchen Käse nimmt Oma für die Käsespätzle?"

    evidence = evidence_for("Oma uses Bergkäse, which is the whole recipe.", [tips], question=question)

    assert evidence == [Evidence("Der Bergkäse ist das ganze Rezept.", "[[Käsespätzle#Omas Tipps]]")]
    # A word is no compound of a shorter one it merely ends with: "Rezept" is no kind of "zept".
    assert evidence_for("Oma uses Bergkäse.", [tips], question="Welchen Zept nimmt Oma für die Käsespätzle?") == []


def test_an_image_or_link_to_a_host_the_question_does_not_name_is_quoted_as_text() -> None:
    # A quoted image is still rendered by the chat app: note text must not send the conversation anywhere.
    passage = Passage(
        "[[Log]]", "Retard 14 hours at 4 °C ![x](https://evil.example/p.png?d=1) and [more](https://evil.example/c)."
    )

    (item,) = evidence_for("14 hours at 4 °C.", [passage], question="How long does the loaf retard?")

    assert "https://" not in item.text and "(image from evil.example not shown)" in item.text


def test_a_table_row_keeps_its_aliased_links_whole() -> None:
    row = Passage("[[Garden]]", "| Crop | Count |\n| --- | --- |\n| [[Garlic\\|garlic cloves]] planted | 42 |")

    (item,) = evidence_for("42 were planted.", [row], question="How many garlic cloves did I plant?")

    assert item.text == "[[Garlic|garlic cloves]] planted | 42"


def test_a_line_that_is_only_an_embed_or_a_link_is_no_sentence_to_quote() -> None:
    # Recorded from Qwen2.5-Coder 0.5B on kepano-obsidian: it answered with the embed's text, and the embed was quoted.
    author = Passage("[[Author Template#Books]]", "## Books\n![[Books.base#Author]]")
    related = Passage(
        "[[Kevin Kelly#Books]]", "## Books\n- [[Books.base#Author]]\n- See the Author view in [[Books.base]]."
    )

    evidence = evidence_for(
        "Books.base > Author", [author, related], question="Which template do I use for a new book?"
    )

    assert [item.text for item in evidence] == ["See the Author view in [[Books.base]]."]


def test_a_line_that_is_only_an_address_a_path_or_a_host_is_no_sentence_to_quote() -> None:
    # Seen with the 0.5B on obsidian-tasks-demo: "publish.obsidian.md" (from "<https://publish.obsidian.md/...>")
    # and a script's path in a code block were quoted as what the notes say.
    script = Passage(
        "[[Stress Test Readme#Running]]",
        "To populate this directory, run:\n\n```bash\n./scripts/stress_test_obsidian_tasks.py\n```",
    )
    docs = Passage("[[Urgency Scores#Purpose]]", "<https://publish.obsidian.md/tasks/Urgency>\n\nUrgency orders tasks.")
    question = "Where are the urgency docs and which script makes the stress test files?"

    evidence = evidence_for("publish.obsidian.md; stress_test_obsidian_tasks.py", [script, docs], question=question)

    assert evidence == []
    release = Passage("[[Tasks Release#Version]]", "Current: 7.20.0")  # a version number is no address
    assert [item.text for item in evidence_for("7.20.0", [release], question="Which Tasks version?")] == [
        "Current: 7.20.0"
    ]


def test_a_long_token_is_read_in_linear_time_and_words_around_an_address_still_count() -> None:
    # Unanchored, the address pattern backtracked from every character: a 32,000-character token took 8 s.
    assert evidence_for("x", [Passage("[[Long#Data]]", "1." * 16_000)], question="What data?") == []
    kept = Passage("[[Network#Stack]]", "TCP/IP is the stack the homelab uses.")
    assert [item.text for item in evidence_for("TCP/IP homelab stack", [kept], question="Which stack?")] == [
        "TCP/IP is the stack the homelab uses."
    ]


def test_a_passage_whose_sentence_the_answer_repeats_is_where_it_was_copied_from() -> None:
    review = Passage("[[Review#Potluck]]", "I brought a loaf. People asked for the recipe, so here is what I made.")
    recipe = Passage("[[Sourdough#Final recipe]]", "Mulched with straw. One loaf, about 900 g baked.")
    answer = "I brought a loaf. people asked for the recipe, so here is what I made. Mulched with straw."

    assert copied_from(answer, [recipe, review]) == ["[[Review#Potluck]]"]  # a short sentence may be anywhere
    assert copied_from("A loaf.", [recipe, review]) == []


def test_under_a_refusal_the_closest_sentence_is_the_one_saying_most_about_the_question() -> None:
    # vaultofknowledge: the 1.5B refused this, its answer in the first passage read.
    passages = [
        Passage(
            "[[Local AI Requirements#Sample Calculations]]",
            "NVIDIA A100 has 80 GB VRAM.\n\nSo one would need to offload the resources into the system memory.\n\n"
            "And real world performance is only 30-50% of the theoretical peak, so one could expect 0.5-1 tokens per "
            "second on a single H100.",
        ),
        Passage("[[AI Processor Metrics#Cloud Services]]", "Qualcomm's Cloud AI 100 promises up to 400 TOPS."),
    ]

    closest = closest_to("How many tokens per second could a single H100 card manage in practice?", passages)

    assert [item.text for item in closest][0].endswith("0.5-1 tokens per second on a single H100.")
    assert closest[0].source == "[[Local AI Requirements#Sample Calculations]]"
    assert evidence_block(closest, heading=CLOSEST_HEADING).startswith(f'{CLOSEST_HEADING}\n- "And real world')


def test_the_questions_three_letter_words_count_for_the_closest_sentence() -> None:
    # sample_vault: "One loaf, about 900 g baked." was quoted as closest, sharing "loaf" and "baked"; "lid", too
    # short a word for an answer's terms, is what the question asks about.
    passages = [
        Passage(
            "[[Sourdough#Method]]",
            "6. **Bake** straight from the fridge in a Dutch oven preheated to 250 °C: **20 minutes with the lid on, "
            "then 25 minutes at 230 °C with the lid off**.",
        ),
        Passage("[[Sourdough#Yield]]", "One loaf, about 900 g baked."),
    ]

    closest = closest_to("How is the loaf baked, with the lid on and off?", passages)

    assert closest[0].source == "[[Sourdough#Method]]"
    assert "20 minutes with the lid on" in closest[0].text


def test_nothing_is_closest_when_no_sentence_shares_the_question() -> None:
    passages = [Passage("[[Garlic]]", "Planted 40 cloves of Germidour on 2 November.")]
    assert closest_to("What did the dentist say about my wisdom teeth?", passages) == []


def test_a_sentence_holding_quote_marks_is_set_in_curly_ones_and_still_read_as_a_quoted_line() -> None:
    line = quoted_line('"Kein Gouda!" sagt Oma.', "[[Käsespätzle#Omas Tipps]]")

    assert line == '- \u201c"Kein Gouda!" sagt Oma.\u201d [[Käsespätzle#Omas Tipps]]'
    block = f"{EVIDENCE_HEADING}\n{quoted_line('Plain.', '[[A]]')}\n{line}"
    assert re.fullmatch(EVIDENCE_BLOCK, block)
    assert [m["link"] for m in re.finditer(QUOTED_LINE, block)] == ["[[A]]", "[[Käsespätzle#Omas Tipps]]"]


def test_an_answers_list_numbers_are_not_what_it_says() -> None:
    # Recorded from Qwen2.5-Coder 0.5B on kepano's vault: "1. [[Out of Control]]\n2. [[The Machine Stops]]" had as
    # its evidence a line reading "… 2 rows" and one reading "… 1 row", which shared only its list numbers.
    said = said_beyond(
        "1. [[Out of Control]]\n2. The Machine Stops, from 1909\n 3) 4 stars", "Which books have I read?"
    )

    assert {"1", "2", "3"}.isdisjoint(said)
    assert {"1909", "4"} <= said  # numbers inside an item are still what it says


def test_a_line_that_is_only_the_notes_title_is_no_sentence_to_quote() -> None:
    # Recorded on kepano's vault: under the 0.5B's refusal stood "2023 Japan Trip" [[2023 Japan Trip]], the first
    # line of the note's properties passage, which says no more than its link.
    trip = Passage(
        "[[2023 Japan Trip]]",
        "2023 Japan Trip\ncategories: [[Trips]]\nstart: 2023-09-12\nend: 2023-09-30\nloc: [[Kyoto]]",
    )

    assert closest_to("When was I on my Japan trip?", [trip]) == []  # no other line holds the question's words
    said = evidence_for("From 12 September 2023, 2023-09-12.", [trip], question="When was I on my Japan trip?")
    assert [item.text for item in said] == ["start: 2023-09-12"]


def test_an_answer_repeating_a_short_sentence_about_the_question_repeats_the_notes() -> None:
    # The 0.5B answered with the note's two task lines (too short to count as copied) and a sentence of its own;
    # "Closest in your notes:" under it said the notes did not bear it out.
    project = Passage(
        "[[Important Project#Trash is important]]",
        "- [ ] #task Also: take out the trash!\n    - [ ] #task Throw the trash away",
    )
    aside = Passage("[[Teaming with Microbes#Plot 47]]", "Stopped digging the beds in autumn. A broadfork loosens.")
    answer = "The note says:\n\n- [ ] #task Also: take out the trash!\n\nIt is also in the previous note."

    assert repeats_sentences(answer, [project], question="What does the Important Project note say?")
    # A sentence repeated that is about nothing asked is an aside: no sign the answer is borne out.
    assert not repeats_sentences(
        "Stopped digging the beds in autumn. It helps.", [aside], question="What is in my mom's plum cake?"
    )


def test_a_joined_name_is_said_beyond_the_question_words_it_is_made_of() -> None:
    # The 1.5B's "`polkit-kde-agent`" said, word by word, only "polkit" and "agent" ("kde" is too short to count),
    # both the question's: withheld as an answer naming nothing. The name itself is what it says.
    agents = Passage("[[Polkit]]", "Common Polkit agents available are:\n- `polkit-gnome`\n- `polkit-kde-agent`")
    question = "Which Polkit agent does my Hyprland config start at launch?"

    assert is_borne_out("The agent my config starts is `polkit-kde-agent`.", [agents], question=question)
    assert not is_borne_out("The agent my config starts is `polkit-xfce-agent`.", [agents], question=question)


def test_a_name_joining_letters_and_digits_is_said_too() -> None:
    # "Q4_0" was no term at all: the 1.5B's "used Q4_0 quantization" was judged by "used" alone, and withheld.
    tested = Passage("[[AI Models I Tested#TinyLlama 1.1B]]", "- Quantization: Q4_0\n- Layers: 22")
    question = "Which quantization did the TinyLlama 1.1B model I tested use?"

    assert is_borne_out("The TinyLlama 1.1B model I tested used Q4_0 quantization.", [tested], question=question)
    assert not is_borne_out("The TinyLlama 1.1B model I tested used Q8_0 quantization.", [tested], question=question)


def test_an_answer_stating_no_figure_does_not_answer_a_question_asking_for_one() -> None:
    # The 1.5B's reply to a near miss over vaultofknowledge: a sentence of the note, copied, which dates nothing.
    cdma = Passage(
        "[[Free Radio Firmware#2G (Digital Telecommunications)]]",
        "cdmaOne: Code Division Multiple Access One (2G). It is the first technology that made use of the CDMA access "
        "method.",
    )
    question = "In which year was cdmaOne first launched commercially?"

    assert not is_borne_out(
        "cdmaOne was the first technology that made use of the CDMA access method.", [cdma], question=question
    )
    assert is_borne_out(
        "It is the first technology that made use of the CDMA access method.", [cdma], question="What is cdmaOne?"
    )
    sessions = Passage("[[Physio#Plan]]", "Six sessions of TENS, twice a week.")
    assert is_borne_out("Six sessions, twice a week.", [sessions], question="How many TENS sessions did I have?")


def test_a_short_verbs_past_form_is_the_word_its_other_forms_are() -> None:
    # "baked" and "Bake" were different stems ("bakes" was "bake"): the sentence shared no word with the question.
    method = Passage("[[Bread#Method]]", "Bake in a Dutch oven preheated to 250 °C, lid on for 20 minutes.")

    assert stem("baked") == stem("bake") == stem("bakes") == "bake"
    assert [item.source for item in evidence_for("In a Dutch oven.", [method], question="How is it baked?")] == [
        method.source
    ]


def test_a_short_sentence_is_quoted_with_its_neighbour_in_the_line() -> None:
    # The 0.5B answered "€18" for the new chain's price (stop 44); "€18." alone says nothing of what cost it.
    fix = Passage(
        "[[Bike Repair Notes#Fix]]",
        "- New chain on 10 November: **KMC X9**, 114 links shortened to 110 to match the old one, closed with the "
        "quick link. €18.\n- New ferrule and a drop of oil in the housing.",
    )
    question = "How much did the new chain for my commuter bike cost?"

    (shown,) = evidence_for("€18", [fix], question=question)

    assert shown.text.startswith("New chain on 10 November: **KMC X9**") and shown.text.endswith("quick link. €18.")
    opening = Passage("[[Costs]]", "€18. The new chain, fitted on 10 November.")
    assert [item.text for item in evidence_for("€18", [opening], question=question)] == [
        "€18. The new chain, fitted on 10 November."
    ]


def test_a_sentence_about_the_notes_it_links_restated_for_another_subject_bears_out_nothing() -> None:
    # The 1.5B on sample_vault (stop 57), asked for the ingredients of a plum cake no note holds: the Kitchen MOC's
    # line on the sourdough, given to the cake (its links shown as text, no note of that name being read).
    moc = Passage(
        "[[Kitchen MOC#Recipes]]",
        "- [[Sourdough]] — the weekend loaf; [[Sourdough#Final recipe|recipe only]]\n"
        "- Still to write down: [[Mom's Plum Cake]]",
    )
    question = "What are the ingredients of my mom's plum cake?"

    swapped = "[[Mom's Plum Cake]] — the weekend loaf; [[Mom's Plum Cake|recipe only]]"
    assert not is_borne_out(swapped, [moc], question=question)
    # Restated for the note it is about, or for a question sharing its words, it is borne out as before.
    assert is_borne_out("Sourdough — the weekend loaf; recipe only", [moc], question="Which bread is my weekend loaf?")
    assert is_borne_out("The weekend loaf, recipe only.", [moc], question="Which sourdough loaf do I bake?")


def test_a_records_row_is_about_what_its_values_name_not_the_keys_every_record_has() -> None:
    # The 0.5B on kepano's vault (stop 57): "Kevin Kelly" for who wrote The Machine Stops rested on Out of Control's
    # "author: [[Kevin Kelly]]", that record being about the question by its "year" row, which every book has.
    machine = Passage("[[The Machine Stops]]", "The Machine Stops\nauthor: [[E. M. Forster]]\nyear: 1909")
    control = Passage(
        "[[Out of Control]]",
        "Out of Control\ncategories: [[Books]]\nisbn: 201483408\npages: 528\nyear: 1992\nauthor: [[Kevin Kelly]]",
    )
    question = "Who wrote The Machine Stops, and in which year was it published?"

    assert not is_borne_out("Kevin Kelly", [machine, control], question=question)
    assert is_borne_out("E. M. Forster", [machine, control], question=question)
    # Its values still make a record about a question: asked of Kevin Kelly's book, its year row bears out "1992".
    assert is_borne_out("1992", [machine, control], question="When was the Kevin Kelly book published?")


def test_an_answer_held_only_by_a_word_saying_nothing_and_a_number_cut_short_is_not_borne_out() -> None:
    # The 0.5B on vaultofknowledge (stop 58), shown: "also" and the "2" of "2.75G" were the answer's terms its passages
    # held, beside the question's "standard".
    firmware = Passage(
        "[[Free Radio Firmware#2G (Digital Telecommunications)]]",
        "- cdmaOne\n\t- Also known as IS-95 (Interim Standard 95)\n- GSM (and related 2G and 2.5G standards)",
    )
    question = "Why did the first 2G phone standard built on code division lose customers to GSM?"
    answer = (
        "The first 2G phone standard built on code division lost customers to GSM because it was so good that it was "
        "also called 2.75G."
    )

    assert not is_borne_out(answer, [firmware], question=question)


def test_where_in_the_note_an_answer_says_it_stands_claims_nothing() -> None:
    # The 1.5B on vaultofknowledge's yes-or-no set (stop 58), withheld: "under" and "section" were read as claims
    # beside the "Settings" line it repeats.
    tested = Passage(
        "[[AI Models I Tested#TinyLlama 1.1B]]",
        "- Quantization: Q4_0\n- Layers: 22\n- Settings\n\t- Context Width Per Sequence: 2048",
    )
    question = "Was the TinyLlama model I tested quantised to Q4_0?"
    answer = (
        "Yes, the TinyLlama model I tested was quantised to Q4_0. This is stated in the note "
        '[[AI Models I Tested#TinyLlama 1.1B]] under the "Settings" section.'
    )

    assert is_borne_out(answer, [tested], question=question)
    assert not is_borne_out(answer.replace("Settings", "Attempts"), [tested], question=question)
