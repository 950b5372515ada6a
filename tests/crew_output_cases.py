"""Material, tasks and agents for the llm-task and output tests: the sample vault's task notes, as collected."""

from __future__ import annotations

from pathlib import Path

from crews.definitions import CrewAgent, LlmTask, OutputSpec
from crews.model import CollectedTask, Material, MaterialItem
from edits.diffs import content_hash

ROOT = Path(__file__).resolve().parent.parent
REPLIES = ROOT / "tests" / "fixtures" / "crew_replies"
EXAMPLE_AGENTS = ROOT / "crews" / "examples" / "agents"

BOOK = "TaskNotes/Book the car service.md"
LANDLORD = "TaskNotes/Call the landlord about the radiator.md"
TAXES = "TaskNotes/File the tax return.md"
SMOKE = "TaskNotes/Replace smoke detector batteries.md"


def _note(path: str, front: dict[str, object], text: str) -> MaterialItem:
    return MaterialItem(path=path, content_hash=f"hash-of-{path}", title=Path(path).stem, frontmatter=front, text=text)


# The backlog of sample_vault/TaskNotes without a priority, as tasknotes.query collects it (include_content).
TRIAGE_MATERIAL = Material(
    collector="tasknotes.query",
    items=(
        _note(BOOK, {"status": "open", "tags": ["task"]}, "The shared car is due for its inspection."),
        _note(
            LANDLORD,
            {"status": "open", "contexts": ["@home"], "tags": ["task", "home"]},
            "The bedroom radiator stays cold unless it is bled every week.",
        ),
        _note(
            TAXES,
            {"status": "in-progress", "due": "2099-07-31", "contexts": ["@home"], "tags": ["task", "admin"]},
            "Through ELSTER, as every year.",
        ),
        _note(
            SMOKE,
            {"status": "open", "contexts": ["@home"], "tags": ["task", "home"]},
            "The hallway detector chirps every few minutes at night.",
        ),
    ),
    folder_values={
        "priority": frozenset({"high", "normal", "low"}),
        "contexts": frozenset({"@home", "@work", "@errands"}),
        "tags": frozenset({"task", "home", "admin", "work"}),
        "status": frozenset({"open", "in-progress", "done"}),
    },
    summary="4 task notes in TaskNotes/ missing priority",
)

PASSPORT = "TaskNotes/Renew passport.md"
SLIDES = "TaskNotes/Prepare slides for the quarterly review.md"
SERVER = "Projects/Home Server Migration.md"


def _tasks(path: str, *tasks: tuple[str, str | None]) -> MaterialItem:
    collected = tuple(CollectedTask(path=path, line=n, text=t, status=" ", due=due) for n, (t, due) in enumerate(tasks))
    return MaterialItem(path=path, content_hash=f"hash-of-{path}", title=Path(path).stem, tasks=collected)


# Open tasks due within a week or overdue (today is 2026-12-01), as tasks.open collects them.
BRIEFING_MATERIAL = Material(
    collector="tasks.open",
    items=(
        _tasks(
            PASSPORT,
            ("Get new biometric passport photos taken", "2020-03-01"),
            ("Book the appointment at the Bürgeramt", None),
        ),
        _tasks(SLIDES, ("Ask the analytics team for the delivery numbers", "2026-12-03")),
        _tasks(TAXES, ("Collect the receipts for the home office costs", "2026-12-01")),
        _tasks(SERVER, ("Move the backups to the new NAS", "2026-12-02")),
    ),
    summary="5 open tasks due within 7 days or overdue",
)

TRIAGE_TASK = LlmTask(
    id="triage",
    agent="Triage",
    instruction=(
        "For each task note, choose a priority. Add contexts or tags only when the note clearly implies them. "
        "Use only the values listed as allowed. Leave a note out when you are unsure."
    ),
    output=OutputSpec(family="frontmatter.set", allowed_keys=("priority", "contexts", "tags")),
)
BRIEFING_TASK = LlmTask(
    id="briefing",
    agent="Briefer",
    instruction=(
        "Write today's briefing from these open tasks: overdue first, then due today, then the rest of the week. "
        "One bullet per task, with its note as a [[link]]. At most 12 bullets."
    ),
    output=OutputSpec(family="section.write", max_chars=3000),
)


def example_agent(name: str) -> CrewAgent:
    """Return an agent of the shipped examples (its body is the system prompt)."""
    text = (EXAMPLE_AGENTS / f"{name}.md").read_text(encoding="utf-8")
    prompt = text.split("---", 2)[2].strip()
    return CrewAgent(name=name, path=f"_crews/agents/{name}.md", system_prompt=prompt, content_hash=content_hash(text))


def reply(name: str) -> str:
    """Return a recorded raw reply of the real 0.5B model (tests/fixtures/crew_replies/NAME)."""
    return (REPLIES / name).read_text(encoding="utf-8")
