"""Stage 1 on the model's raw reply: JSON extraction, the versioned schemas, and binding to the collected material."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import pytest

from crews.contract.outputs import OutputInvalid, bind, extract_json, output_contract, output_schema, response_format
from crews.definitions import OutputSpec
from crews.model import CollectedTask, FrontmatterChange, Material, Rejection
from tests.crew_output_cases import (
    BOOK,
    BRIEFING_MATERIAL,
    LANDLORD,
    SERVER,
    SMOKE,
    TAXES,
    TRIAGE_MATERIAL,
    reply,
)

TRIAGE = OutputSpec(family="frontmatter.set", allowed_keys=("priority", "contexts", "tags"))
BRIEFING = OutputSpec(family="section.write", max_chars=3000)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"markdown": "- one"}', {"markdown": "- one"}),
        ('```json\n{"markdown": "- one"}\n```', {"markdown": "- one"}),
        ('Here is the briefing:\n```\n{"markdown": "- one"}\n```\nHope it helps!', {"markdown": "- one"}),
        ('Sure! {"markdown": "- one"} Anything else?', {"markdown": "- one"}),
        ('{{"markdown": "- one"}}', {"markdown": "- one"}),
        ('{"markdown": "- one\n- two"}', {"markdown": "- one\n- two"}),  # a raw line break inside the string
        ('<think>They want JSON {"x": 1}.</think>{"markdown": "- one"}', {"markdown": "- one"}),
        ('The changes: [{"path": "a.md", "set": {}}] done', [{"path": "a.md", "set": {}}]),
        ('\ufeff{"changes": []}', {"changes": []}),
    ],
)
def test_extract_json_finds_the_json_however_it_is_wrapped(raw: str, expected: object) -> None:
    assert extract_json(raw) == expected


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("Mark all task notes as low.", "no JSON"),
        ('{"markdown": "- overdue: renew the passport', "incomplete"),
    ],
)
def test_extract_json_says_why_a_reply_has_no_json(raw: str, reason: str) -> None:
    with pytest.raises(OutputInvalid, match=reason):
        extract_json(raw)


def test_triage_schema_binds_paths_keys_and_values_to_the_material() -> None:
    schema = output_schema(TRIAGE, TRIAGE_MATERIAL)
    jsonschema.Draft202012Validator.check_schema(schema)
    change = schema["properties"]["changes"]["items"]["properties"]
    assert change["path"]["enum"] == [BOOK, LANDLORD, TAXES, SMOKE]
    assert set(change["set"]["properties"]) == {"priority", "contexts", "tags"}
    assert change["set"]["additionalProperties"] is False
    assert change["set"]["properties"]["priority"] == {"type": "string", "enum": ["high", "low", "normal"]}
    assert change["set"]["properties"]["tags"]["items"]["enum"] == ["admin", "home", "task", "work"]
    valid = {"changes": [{"path": BOOK, "set": {"priority": "high", "tags": ["home"]}}]}
    jsonschema.validate(valid, schema)
    for invented in (
        {"changes": [{"path": "TaskNotes/Invented.md", "set": {"priority": "high"}}]},
        {"changes": [{"path": BOOK, "set": {"priority": "urgent"}}]},
        {"changes": [{"path": BOOK, "set": {"status": "done"}}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(invented, schema)


def test_triage_schema_lists_only_the_paths_the_model_was_shown() -> None:
    schema = output_schema(TRIAGE, TRIAGE_MATERIAL, paths=[SMOKE, BOOK, "Elsewhere/x.md"])
    assert schema["properties"]["changes"]["items"]["properties"]["path"]["enum"] == [BOOK, SMOKE]


def test_a_key_without_folder_values_is_bound_by_its_type_only() -> None:
    material = replace(TRIAGE_MATERIAL, folder_values={})
    properties = output_schema(TRIAGE, material)["properties"]["changes"]["items"]["properties"]["set"]["properties"]
    assert properties["priority"] == {"type": "string", "minLength": 1, "maxLength": 200}
    assert properties["tags"]["type"] == "array"


def test_briefing_schema_limits_the_markdown_to_max_chars() -> None:
    wanted = response_format(BRIEFING, BRIEFING_MATERIAL)
    assert wanted["type"] == "json_schema"
    assert wanted["json_schema"]["name"] == "briefing-v1"
    assert wanted["json_schema"]["strict"] is True
    assert wanted["json_schema"]["schema"]["properties"]["markdown"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 3000,
    }
    assert response_format(TRIAGE, TRIAGE_MATERIAL)["json_schema"]["name"] == "triage-v1"


def test_bind_keeps_a_valid_change_bound_to_the_note() -> None:
    data = {"changes": [{"path": BOOK, "set": {"priority": "High", "contexts": ["@errands"]}, "reason": "inspection"}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert output.family == "frontmatter.set"
    assert output.changes == (
        FrontmatterChange(BOOK, {"priority": "high", "contexts": ["@errands"]}, reason="inspection"),
    )
    assert output.rejected == ()


def test_bind_rejects_an_invented_path_and_keeps_the_rest() -> None:
    data = {
        "changes": [
            {"path": "TaskNotes/Water the plants.md", "set": {"priority": "low"}},
            {"path": ".obsidian/app.json", "set": {"priority": "low"}},
            {"path": SMOKE, "set": {"priority": "high"}},
        ]
    }
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert [change.path for change in output.changes] == [SMOKE]
    assert [r.what for r in output.rejected] == ["TaskNotes/Water the plants.md", ".obsidian/app.json"]
    assert all("invented path" in r.reason for r in output.rejected)


def test_bind_rejects_a_path_that_was_cut_from_the_prompt() -> None:
    data = {"changes": [{"path": TAXES, "set": {"priority": "high"}}, {"path": BOOK, "set": {"priority": "low"}}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL, paths=[BOOK])
    assert [change.path for change in output.changes] == [BOOK]
    assert [r.what for r in output.rejected] == [TAXES]


@pytest.mark.parametrize(
    "spelled",
    ["[[Replace smoke detector batteries]]", "TaskNotes/Replace smoke detector batteries", "./" + SMOKE, SMOKE.upper()],
)
def test_bind_accepts_a_path_spelled_loosely_when_it_names_one_note(spelled: str) -> None:
    output = bind({"changes": [{"path": spelled, "set": {"priority": "low"}}]}, TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == (FrontmatterChange(SMOKE, {"priority": "low"}),)


def test_bind_rejects_keys_that_are_not_allowed() -> None:
    data = {"changes": [{"path": BOOK, "set": {"status": "done", "title": "x", "priority": "low"}}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == (FrontmatterChange(BOOK, {"priority": "low"}),)
    assert [r.what for r in output.rejected] == [f"{BOOK}: status", f"{BOOK}: title"]
    assert "not allowed" in output.rejected[0].reason


def test_bind_rejects_values_the_folder_does_not_use_item_by_item() -> None:
    data = {"changes": [{"path": BOOK, "set": {"priority": "urgent", "tags": ["car", "home", "errands"]}}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    # tags are added to the note's own (["task"]): only "home" is a value the folder uses.
    assert output.changes == (FrontmatterChange(BOOK, {"tags": ["task", "home"]}),)
    assert [r.what for r in output.rejected] == [
        f"{BOOK}: priority=urgent",
        f"{BOOK}: tags=car",
        f"{BOOK}: tags=errands",
    ]
    assert all("not a value the folder uses" in r.reason for r in output.rejected)


def test_bind_adds_to_a_list_and_skips_values_the_note_already_has() -> None:
    data = {"changes": [{"path": LANDLORD, "set": {"tags": ["home", "task"], "contexts": "@home"}}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == ()
    assert output.rejected == ()


def test_bind_accepts_the_shapes_small_models_drift_into() -> None:
    flat_list = [{"path": BOOK, "priority": "low"}]
    one_change = {"path": BOOK, "set": {"priority": "low"}}
    for data in (flat_list, one_change, {"changes": flat_list}):
        assert bind(data, TRIAGE, TRIAGE_MATERIAL).changes == (FrontmatterChange(BOOK, {"priority": "low"}),)


def test_bind_keeps_the_type_the_notes_use() -> None:
    material = replace(
        TRIAGE_MATERIAL,
        items=(replace(TRIAGE_MATERIAL.items[0], frontmatter={"priority": 2}), *TRIAGE_MATERIAL.items[1:]),
        folder_values={"priority": frozenset({"1", "2", "3"})},
    )
    output = bind({"changes": [{"path": LANDLORD, "set": {"priority": "2"}}]}, TRIAGE, material)
    assert output.changes == (FrontmatterChange(LANDLORD, {"priority": 2}),)


def test_bind_rejects_empty_and_structured_values() -> None:
    data = {"changes": [{"path": BOOK, "set": {"priority": "", "tags": [], "contexts": {"a": 1}}}]}
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == ()
    assert [(r.what, r.reason.split(" ")[0]) for r in output.rejected] == [
        (f"{BOOK}: priority", "empty"),
        (f"{BOOK}: tags", "empty"),
        (f"{BOOK}: contexts", "not"),
    ]


def test_bind_rejects_a_second_different_value_for_the_same_note() -> None:
    data = [{"path": BOOK, "set": {"priority": "low"}}, {"path": BOOK, "set": {"priority": "high", "tags": ["work"]}}]
    output = bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == (FrontmatterChange(BOOK, {"priority": "low", "tags": ["task", "work"]}),)
    assert output.rejected == (
        Rejection(f"{BOOK}: priority", "set twice with different values; the first one is kept"),
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"notes": []}, "the reply: 'changes' is a required property"),
        ({"changes": "none"}, "changes: 'none' is not of type 'array'"),
        ({"changes": [{"set": {"priority": "low"}}]}, "changes/0: 'path' is a required property"),
        ({"changes": [{"path": BOOK, "set": "low"}]}, "changes/0/set: 'low' is not of type 'object'"),
        ("low", "the reply: 'low' is not of type 'object'"),
    ],
)
def test_bind_raises_output_invalid_for_the_wrong_shape(data: object, message: str) -> None:
    with pytest.raises(OutputInvalid) as caught:
        bind(data, TRIAGE, TRIAGE_MATERIAL)
    assert caught.value.message == message


def test_bind_takes_the_section_text() -> None:
    output = bind({"markdown": "  - [[Renew passport]] overdue\n"}, BRIEFING, BRIEFING_MATERIAL)
    assert output.family == "section.write"
    assert output.markdown == "- [[Renew passport]] overdue"
    assert bind("- plain text", BRIEFING, BRIEFING_MATERIAL).markdown == "- plain text"
    assert bind({"briefing": "- one"}, BRIEFING, BRIEFING_MATERIAL).markdown == "- one"


def test_bind_drops_copied_delimiter_tags_but_refuses_copied_fragments() -> None:
    copied = '<material collector="tasks.open">\n- [[Renew passport]] overdue\n</material>'
    assert bind({"markdown": copied}, BRIEFING, BRIEFING_MATERIAL).markdown == "- [[Renew passport]] overdue"
    with pytest.raises(OutputInvalid, match="not the material's tags"):
        bind({"markdown": "- [[Renew passport]] <note path=x"}, BRIEFING, BRIEFING_MATERIAL)
    with pytest.raises(OutputInvalid, match="empty"):
        bind({"markdown": "<note>\n</note>"}, BRIEFING, BRIEFING_MATERIAL)


def test_bind_refuses_an_empty_or_too_long_section() -> None:
    with pytest.raises(OutputInvalid, match="empty"):
        bind({"markdown": "  \n"}, BRIEFING, BRIEFING_MATERIAL)
    with pytest.raises(OutputInvalid, match="3001 characters, more than the 3000 allowed: write a shorter text"):
        bind({"markdown": "x" * 3001}, BRIEFING, BRIEFING_MATERIAL)
    with pytest.raises(OutputInvalid, match="markdown"):
        bind({"text": 1, "other": 2}, BRIEFING, BRIEFING_MATERIAL)


@pytest.mark.parametrize(
    "markdown",
    [
        "<the section text: Markdown, no HTML, no heading, at most 3000 characters>",
        "## Briefing\n<the section text: Markdown, no HTML, no heading, at most 3000 characters>",
        "the section text: Markdown, no HTML, no heading, at most 3000 characters",  # brackets dropped
        "- <the section text: Markdown, no HTML",  # a part of it
        "<the section text>",
    ],
)
def test_bind_refuses_a_section_that_copies_the_contracts_shape_example(markdown: str) -> None:
    assert "<the section text: Markdown" in output_contract(BRIEFING, BRIEFING_MATERIAL)
    with pytest.raises(OutputInvalid, match="copies the example of the reply's shape"):
        bind({"markdown": markdown}, BRIEFING, BRIEFING_MATERIAL)


def test_bind_keeps_a_section_that_only_shares_a_few_words_with_the_example() -> None:
    markdown = "- The section text of the handbook is due: [[Renew passport]]"
    assert bind({"markdown": markdown}, BRIEFING, BRIEFING_MATERIAL).markdown == markdown


@pytest.mark.parametrize("value", ["<value>", "value", '"<value>"', "<path of a note above>"])
def test_bind_rejects_a_property_that_copies_the_contracts_shape_example(value: str) -> None:
    spec = OutputSpec(family="frontmatter.set", allowed_keys=("summary",))
    assert '"summary": "<value>"' in output_contract(spec, TRIAGE_MATERIAL)
    output = bind({"changes": [{"path": BOOK, "set": {"summary": value}}]}, spec, TRIAGE_MATERIAL)
    assert output.changes == ()
    assert output.rejected == (Rejection(f"{BOOK}: summary", "copies the example of the reply's shape, not a value"),)
    kept = bind({"changes": [{"path": BOOK, "set": {"summary": "High value car service"}}]}, spec, TRIAGE_MATERIAL)
    assert kept.changes == (FrontmatterChange(BOOK, {"summary": "High value car service"}),)


def test_the_contract_names_keys_and_allowed_values_in_a_few_lines() -> None:
    contract = output_contract(TRIAGE, TRIAGE_MATERIAL)
    assert "priority: high, low, normal" in contract
    assert '"tags": ["<value>"]' in contract and '"priority": "<value>"' in contract
    assert "status" not in contract
    assert len(contract.splitlines()) <= 6
    assert "at most 3000 characters" in output_contract(BRIEFING, BRIEFING_MATERIAL)


def test_a_schema_valid_reply_is_also_valid_for_the_binder() -> None:
    schema = output_schema(TRIAGE, TRIAGE_MATERIAL)
    data = {"changes": [{"path": TAXES, "set": {"priority": "high", "contexts": ["@home"], "tags": ["admin"]}}]}
    jsonschema.validate(data, schema)
    assert bind(json.loads(json.dumps(data)), TRIAGE, TRIAGE_MATERIAL).rejected == ()


# Raw replies of the real Qwen2.5-Coder 0.5B (llama.cpp's llama-server), with response_format ("rf") and without
# ("plain"), to the prompts run_llm_task builds for the two example crews (tests/fixtures/crew_replies/).
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("triage-rf-1.txt", [FrontmatterChange(LANDLORD, {"priority": "low", "tags": ["task", "home", "admin"]})]),
        ("triage-rf-2.txt", [FrontmatterChange(LANDLORD, {"priority": "normal"})]),
        (
            "triage-rf-3.txt",
            [
                FrontmatterChange(LANDLORD, {"priority": "low"}),
                FrontmatterChange(TAXES, {"priority": "high"}),
                FrontmatterChange(SMOKE, {"priority": "high"}),
            ],
        ),
        (
            "triage-plain-1.txt",
            [
                FrontmatterChange(BOOK, {"priority": "normal", "contexts": ["@errands"]}),
                FrontmatterChange(LANDLORD, {"priority": "normal"}),
                FrontmatterChange(TAXES, {"priority": "normal"}),
                FrontmatterChange(SMOKE, {"priority": "normal"}),
            ],
        ),
        (  # wrapped in a one-item list
            "triage-plain-wrapped.txt",
            [
                FrontmatterChange(LANDLORD, {"priority": "high", "tags": ["task", "home", "work"]}),
                FrontmatterChange(SMOKE, {"priority": "high", "tags": ["task", "home", "work"]}),
            ],
        ),
    ],
)
def test_real_triage_replies_bind(name: str, expected: list[FrontmatterChange]) -> None:
    output = bind(extract_json(reply(name)), TRIAGE, TRIAGE_MATERIAL)
    assert list(output.changes) == expected
    assert output.rejected == ()


def test_a_real_reply_with_an_invented_value_keeps_the_rest() -> None:
    output = bind(extract_json(reply("triage-plain-invented-value.txt")), TRIAGE, TRIAGE_MATERIAL)
    assert output.changes == (FrontmatterChange(LANDLORD, {"tags": ["task", "home", "admin"]}),)
    assert [r.what for r in output.rejected] == [f"{LANDLORD}: priority=open"]  # a status, not a priority


@pytest.mark.parametrize(
    ("name", "start", "length"),
    [
        # HTML headings become plain lines; an unknown tag stays text.
        ("briefing-plain-fenced.txt", "Today's briefing\n\n<bullet>Due today, tasks:", 258),
        # Links spelled as paths with ".md" and a heading resolve in Obsidian, so they bind.
        ("briefing-plain-1.txt", "Overdue Tasks\n\n- [[TaskNotes/Renew passport.md#due]]", 202),
        # The model copied the material's task lines, checkboxes too (the section action strips them).
        ("briefing-rf-checkboxes.txt", "Overdue Tasks:\n\n- [ ] Get new biometric passport photos", 431),
    ],
)
def test_real_briefing_replies_bind(name: str, start: str, length: int) -> None:
    output = bind(extract_json(reply(name)), BRIEFING, BRIEFING_MATERIAL)
    assert output.markdown.startswith(start)
    assert len(output.markdown) == length


def with_server_task(text: str) -> Material:
    """Return the briefing material with the server note's one open task (due 2026-12-02) written as `text`."""
    task = CollectedTask(path=SERVER, line=3, text=text, status=" ", due="2026-12-02")
    item = replace(BRIEFING_MATERIAL.items[3], tasks=(task,))
    return replace(BRIEFING_MATERIAL, items=(*BRIEFING_MATERIAL.items[:3], item))


def test_bind_keeps_a_link_copied_word_for_word_from_the_material() -> None:
    # obsidian-tasks-demo: a task line links [[wikilink]], a note the vault does not have; the prompt says to copy
    # links exactly, so the copy is the user's own text, not an invented link.
    material = with_server_task("Read about [[wikilink]] syntax")
    markdown = "- Read about [[wikilink]] syntax ([[Home Server Migration]], due 2026-12-02)"
    assert bind({"markdown": markdown}, BRIEFING, material).markdown == markdown
    with pytest.raises(OutputInvalid, match=r"markdown links \[\[other\]\], which are not among the notes given"):
        bind({"markdown": markdown + "\n- [[other]]"}, BRIEFING, material)


def test_bind_drops_list_items_that_hold_nothing() -> None:
    # The 1.5B on obsidian-tasks-demo (stop 58): "Due tomorrow:" over two bare "-" lines, written into the daily note.
    material = with_server_task("Feed the baby")
    written = "Due today:\n\n- Feed the baby ([[Home Server Migration]])\nDue tomorrow:\n\n-\n- [ ]\n2.\n\n---\nEnd"

    bound = bind({"markdown": written}, BRIEFING, material).markdown

    assert bound == "Due today:\n\n- Feed the baby ([[Home Server Migration]])\nDue tomorrow:\n\n---\nEnd"
    with pytest.raises(OutputInvalid, match="markdown is empty"):
        bind({"markdown": "-\n-"}, BRIEFING, material)


def test_bind_drops_the_marks_code_wrote_where_it_left_material_out() -> None:
    # A small model copies what it is shown: the material's "[… not shown]" marks are code's, never a note's text.
    material = with_server_task("Feed the baby")
    written = (
        "- Feed the baby ([[Home Server Migration]]) … [1,234 more characters not shown]\n"
        "- … [3 more task(s) of this note not shown, to fit the model's context]\n"
        "… [shortened to fit the model's context: 2,048 more characters not shown]\n"
        "- The [2 shown] lamps stay [not shown to guests]"
    )

    bound = bind({"markdown": written}, BRIEFING, material).markdown

    assert bound == "- Feed the baby ([[Home Server Migration]])\n- The [2 shown] lamps stay [not shown to guests]"


def test_bind_refuses_a_tag_no_collected_note_has_and_keeps_the_materials_own() -> None:
    # The 0.5B on obsidian-tasks-demo wrote "#feed the baby" for the task "Feed the baby": written into the daily
    # note, that tags it "feed".
    material = with_server_task("Feed the baby #home")
    kept = "- Feed the baby #home ([[Home Server Migration]], due 2026-12-02)\n- `#not-a-tag` in code, C# too"
    assert bind({"markdown": kept}, BRIEFING, material).markdown == kept
    with pytest.raises(OutputInvalid, match=r"markdown tags #feed, which no note given has"):
        bind({"markdown": "#feed the baby ([[Home Server Migration]]; due 2026-12-02)"}, BRIEFING, material)


@pytest.mark.parametrize(
    ("markdown", "bound"),
    [
        # The 0.5B on obsidian-tasks-demo: rendered, an unknown element whose words are attributes shows nothing.
        ("<task A 1 Some task ([[Home Server Migration]]); task A 2 ([[Home Server Migration]])>",
         "task A 1 Some task ([[Home Server Migration]]); task A 2 ([[Home Server Migration]])"),
        ("<task A 1 ([[Home Server Migration]])\n\ntask B 1", "task A 1 ([[Home Server Migration]])\n\ntask B 1"),
        ("task A 1\n<task A 2\n<task B 1>", "task A 1\ntask A 2\ntask B 1"),
        ("<task A 1\ntask B 1>", "task A 1\ntask B 1"),
        ("<https://example.org> is the tracker", "<https://example.org> is the tracker"),
        ("<p>Due today</p>", "Due today"),
    ],
)  # fmt: skip
def test_bind_unwraps_the_angle_brackets_a_small_model_puts_around_its_text(markdown: str, bound: str) -> None:
    assert bind({"markdown": markdown}, BRIEFING, BRIEFING_MATERIAL).markdown == bound


# The model copied the agent prompt's "[[link]]" placeholder: a link to no collected note, so the reply is refused
# (and repaired once by run_llm_task).
@pytest.mark.parametrize("name", ["briefing-rf-1.txt", "briefing-rf-echo.txt"])
def test_real_briefing_replies_with_invented_links_are_refused(name: str) -> None:
    with pytest.raises(OutputInvalid, match=r"markdown links \[\[link\]\], which are not among the notes given"):
        bind(extract_json(reply(name)), BRIEFING, BRIEFING_MATERIAL)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("triage-plain-prose.txt", "the reply holds no JSON object"),
        ("triage-plain-broken-quote.txt", "the reply's JSON is not valid: Expecting value (line 2, column 104)"),
        # Without response_format the model copied the material, quotes and all, into its JSON string.
        ("briefing-plain-copied-material.txt", "the reply's JSON is not valid: Expecting ',' delimiter (line 2"),
        # A looping reply, cut off by run_llm_task at its token limit.
        ("briefing-plain-runaway.txt", "the reply's JSON is incomplete"),
    ],
)
def test_real_broken_replies_are_invalid_with_a_reason_for_the_repair(name: str, reason: str) -> None:
    with pytest.raises(OutputInvalid) as caught:
        extract_json(reply(name))
    assert caught.value.message.startswith(reason)
