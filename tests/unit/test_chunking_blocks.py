"""Chunking code blocks and tables: kept whole when they fit, split with fences or headers repeated when not."""

from __future__ import annotations

from tests.unit.chunk_notes import chunk, count_chars, count_words, lay_out, paragraph


def test_code_block_that_fits_is_never_cut() -> None:
    code = "```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```"
    text = "\n\n".join([paragraph(1, 20), paragraph(2, 20), code, paragraph(3, 20), paragraph(4, 20)])
    laid = lay_out([(("Code",), text)])

    chunks = chunk(laid.note, max_tokens=45, overlap=8)

    holding = [c for c in chunks if "def f():" in c.text]
    assert len(holding) == 1
    assert code in holding[0].text
    assert all(c.text.count("```") % 2 == 0 for c in chunks)


def test_oversized_code_block_is_split_by_lines_with_reopened_fences() -> None:
    body = [f"value_{i} = compute({i})" for i in range(60)]
    code = "\n".join(["~~~python title=demo.py", *body, "~~~"])
    laid = lay_out([(("Code",), code)])

    chunks = chunk(laid.note, max_tokens=50)

    assert len(chunks) > 2
    for piece in chunks:
        rows = piece.text.split("\n")
        assert rows[0] == "~~~python title=demo.py"
        assert rows[-1] == "~~~"
        assert count_words(piece.embed_text) <= 50
    inner = [row for piece in chunks for row in piece.text.split("\n")[1:-1]]
    assert list(dict.fromkeys(inner)) == body  # every line, in order (parts may share lines)


def test_unclosed_code_fence_is_closed_in_every_part() -> None:
    code = "\n".join(["```js", *[f"let v{i} = {i};" for i in range(40)]])
    laid = lay_out([(("Code",), code)])

    chunks = chunk(laid.note, max_tokens=40)

    assert len(chunks) > 1
    assert all(c.text.startswith("```js\n") and c.text.endswith("\n```") for c in chunks)


def test_code_line_longer_than_the_window_is_hard_split_inside_fences() -> None:
    blob = "A" * 3000
    laid = lay_out([(("Blob",), f"```text\n{blob}\n```")])

    chunks = chunk(laid.note, count=count_chars, max_tokens=60)

    assert len(chunks) > 1
    assert all(c.text.startswith("```text\n") and c.text.endswith("\n```") for c in chunks)
    assert "".join(c.text.split("\n")[1] for c in chunks) == blob
    assert all(count_chars(c.embed_text) <= 60 for c in chunks)


def test_oversized_table_repeats_header_and_divider_in_every_part() -> None:
    header, divider = "| Name | Value |", "| :--- | ----: |"
    rows = [f"| item {i} | {i * 10} |" for i in range(50)]
    laid = lay_out([((), "Before the table."), (("Table",), "\n".join([header, divider, *rows]))])

    chunks = [c for c in chunk(laid.note, max_tokens=40) if c.heading == "Table"]

    assert len(chunks) > 2
    for piece in chunks:
        lines = piece.text.split("\n")
        assert lines[:2] == [header, divider]
        assert all(line.startswith("|") for line in lines)
    body = [line for piece in chunks for line in piece.text.split("\n")[2:]]
    assert list(dict.fromkeys(body)) == rows
    assert chunks[0].line_start == 3  # header line of the table
    assert chunks[1].line_start > 5  # later parts cover only their own rows


def test_table_that_fits_stays_whole_beside_prose() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"
    text = "\n\n".join([paragraph(1, 30), table, paragraph(2, 30)])
    laid = lay_out([(("T",), text)])

    chunks = chunk(laid.note, max_tokens=48, overlap=0)

    assert sum(table in c.text for c in chunks) == 1
    assert all(c.text.count("|---|---|") <= 1 for c in chunks)
