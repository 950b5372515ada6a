"""What there is to buy, listed by code from the open tasks (agent/tools/buy_lists.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tools.reader import VaultReader
from tests.code_list_vault import code_list_lines, code_list_reader

NOTES = {
    "Daily/2026-11-06.md": (
        "# 6 November\n\n## Plan\n\n- [ ] Buy straw for the garlic mulch\n- [x] Buy flour\n- [ ] Call the vet\n"
        "- [ ] #task Order seed potatoes 📅 2027-02-01\n"
    ),
    "Areas/Garden/Seed Inventory.md": (
        "# Seed Inventory\n\n## To buy for 2027\n\n- [ ] Sungold F1 📅 2027-02-15\n- [ ] Matina, 1 packet\n\n"
        "## Stored\n\n- [ ] Test the carrot seed\n"
    ),
    "Templates/Daily.md": "# {{date}}\n\n- [ ] Buy something\n",
    "Work/Checkout.md": (
        "# Online Shopping Checkout Revamp\n\n- [ ] Write the payment tests\n\n## Buy vs build\n\n"
        "- [ ] Compare vendors\n- [ ] Buy-in from Priya on the budget\n- [ ] Pick up the kids\n"
    ),
    "Daily/2026-11-07.md": "# 7 November\n\n- [ ] oat milk #groceries\n- [ ] Buy compost #garden\n",
    "Kitchen.md": "# Kitchen\n\nWe buy flour in 5 kg bags.\n",
}


@pytest.fixture
def reader(tmp_path: Path) -> VaultReader:
    return code_list_reader(tmp_path, NOTES)


lines = code_list_lines


def test_the_open_tasks_to_buy_are_listed_the_earliest_due_first(reader: VaultReader) -> None:
    # sample_vault: the 0.5B answered "What do I need to buy?" with one of five ("To buy three 9 V batteries at once.")
    assert lines(reader, "What do I need to buy?") == [
        "6 open tasks to buy (saying buy, order or purchase, or under a heading such as “To buy” or “Shopping”), the"
        " earliest due first:",
        "- [ ] #task Order seed potatoes 📅 2027-02-01 [[2026-11-06#Plan]]",  # its tag is no word of it
        "- [ ] Sungold F1 📅 2027-02-15 [[Seed Inventory#To buy for 2027]]",  # by its heading
        "- [ ] Matina, 1 packet [[Seed Inventory#To buy for 2027]]",  # the undated ones in the vault's order
        "- [ ] Buy straw for the garlic mulch [[2026-11-06#Plan]]",
        "- [ ] oat milk #groceries [[2026-11-07#7 November]]",  # by its tag
        "- [ ] Buy compost #garden [[2026-11-07#7 November]]",
    ]  # not the flour bought, the vet, the carrot seed stored, the template's placeholder, nor the checkout project's
    # tasks under headings that only hold "Shopping" or "Buy", a buy-in or the kids picked up


def test_what_the_buying_is_for_narrows_it_by_the_tasks_words_note_path_or_headings(reader: VaultReader) -> None:
    found = lines(reader, "What do I need to buy for the garden?")
    assert found is not None
    assert found[1:] == [
        "- [ ] Sungold F1 📅 2027-02-15 [[Seed Inventory#To buy for 2027]]",  # Areas/Garden/
        "- [ ] Matina, 1 packet [[Seed Inventory#To buy for 2027]]",
        "- [ ] Buy compost #garden [[2026-11-07#7 November]]",  # by its tag
    ]
    assert lines(reader, "What do I need to buy for the boat?") is None  # nothing to buy for it: the search's
    # asked after what to buy, "And for the garden?" asks the same for the garden
    assert lines(reader, "And for the garden?", ("What do I need to buy?",)) == found
    assert lines(reader, "And for the garden?", ("How is my knee doing?",)) is None
