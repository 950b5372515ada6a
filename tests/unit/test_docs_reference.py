"""The docs written from the code are up to date, and the README's links lead to files that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cogapp import Cog

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("docs/configuration.md", "docs/cli.md")


@pytest.mark.parametrize("doc", GENERATED)
def test_the_generated_reference_matches_the_code(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the cog blocks import scripts/reference_docs.py relative to the project

    status = Cog().main(["cog", "--check", doc])

    assert status == 0, f"{doc} is stale: run `cog -r {doc}`"


def test_every_link_of_the_readme_and_the_docs_opens_a_file_of_the_project() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")

    assert broken == []


def test_the_readme_stays_a_page_a_newcomer_reads() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    assert len(readme.encode("utf-8")) < 14_000
    assert "bash scripts/test.sh" in readme and "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
