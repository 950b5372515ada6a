"""The rule that stops offering tools to a model that does not call them, per model id, and LLM_TOOLS."""

from __future__ import annotations

import logging

import pytest

from agent.tool_use import ToolUse


def test_two_unusable_replies_from_a_model_that_never_called_a_tool_switch_only_that_model_off(
    caplog: pytest.LogCaptureFixture,
) -> None:
    use = ToolUse()
    with caplog.at_level(logging.WARNING, logger="agent.tool_use"):
        use.record("qwen2.5-0.5b", has_called=False, is_unusable=False)  # a plain answer says nothing
        use.record("qwen2.5-0.5b", has_called=False, is_unusable=True)
        assert use.is_offered("qwen2.5-0.5b")  # one broken call is not enough
        use.record("qwen2.5-0.5b", has_called=False, is_unusable=True)
        use.record("qwen2.5-0.5b", has_called=False, is_unusable=True)

    assert not use.is_offered("qwen2.5-0.5b") and use.is_offered("llama3.1:8b")
    assert len(caplog.records) == 1 and "qwen2.5-0.5b" in caplog.records[0].getMessage()
    assert use.describe("qwen2.5-0.5b").startswith("off (the model made no tool call")


def test_a_model_that_has_called_a_tool_keeps_tools_after_unusable_replies() -> None:
    use = ToolUse()
    use.record("m", has_called=False, is_unusable=True)
    use.record("m", has_called=True, is_unusable=False, is_structured=True)
    use.record("m", has_called=False, is_unusable=True)
    use.record("m", has_called=False, is_unusable=True)
    assert use.is_offered("m") and use.describe("m") == "on (the model has made tool calls)"


def test_questions_get_tools_only_once_the_model_has_made_a_structured_call() -> None:
    use = ToolUse()
    assert use.is_offered("m") and not use.is_offered_on_questions("m")
    use.record("m", has_called=True, is_unusable=False)  # a call written as text: run, but says little
    assert not use.is_offered_on_questions("m") and "writes its tool calls as text" in use.describe("m")
    use.record("m", has_called=True, is_unusable=False, is_structured=True)
    assert use.is_offered_on_questions("m") and not use.is_offered_on_questions("other")
    assert ToolUse("on").is_offered_on_questions("m") and not ToolUse("off").is_offered_on_questions("m")


@pytest.mark.parametrize(("setting", "is_offered"), [("on", True), ("off", False)])
def test_llm_tools_on_and_off_are_never_changed_by_what_the_model_does(setting: str, is_offered: bool) -> None:
    use = ToolUse(setting)  # type: ignore[arg-type]
    use.record("m", has_called=False, is_unusable=True)
    use.record("m", has_called=True, is_unusable=False)
    assert use.is_offered("m") is is_offered and use.describe("m").startswith(f"{setting} (LLM_TOOLS={setting})")
    assert use.uses_contract("m") is not is_offered  # LLM_TOOLS=off: change requests go through a contract


def test_change_requests_go_through_a_contract_until_the_model_makes_a_structured_call() -> None:
    use = ToolUse()
    assert use.uses_contract("m") and "changes by contract" in use.describe("m")
    use.record("m", has_called=True, is_unusable=False)  # a call written as text: still a contract
    assert use.uses_contract("m")
    use.record("m", has_called=True, is_unusable=False, is_structured=True)  # the warm-up probe's finding
    assert not use.uses_contract("m") and use.uses_contract("other")
