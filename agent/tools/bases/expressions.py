"""The Bases expression language, parsed: `file.inFolder("X") && note.status == "active"` into a small tree."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(
    r"\s*(?:(?P<str>\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<op>==|!=|>=|<=|&&|\|\||[<>!(),.])|(?P<name>[A-Za-z_][A-Za-z0-9_]*))"
)
_COMPARISONS = ("==", "!=", ">=", "<=", ">", "<")
_LITERALS: Mapping[str, object] = {"true": True, "false": False, "null": None}


class UnsupportedExpression(Exception):
    """An expression (or part of one) this evaluator does not implement."""


@dataclass(frozen=True, slots=True)
class Lit:
    """A literal: string, number, true, false or null."""

    value: object


@dataclass(frozen=True, slots=True)
class Name:
    """A bare name: `file`, `note`, or a note property."""

    name: str


@dataclass(frozen=True, slots=True)
class Attr:
    """`owner.name`."""

    owner: Node
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    """`owner.name(args)`, or a global function `name(args)` when owner is None."""

    owner: Node | None
    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """`!operand`."""

    operand: Node


@dataclass(frozen=True, slots=True)
class Logic:
    """`left && right` or `left || right`."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Compare:
    """`left op right` with op one of == != > < >= <=."""

    op: str
    left: Node
    right: Node


Node = Lit | Name | Attr | Call | Not | Logic | Compare


class _Parser:
    """Recursive descent over: or := and ('||' and)*; and := not ('&&' not)*; not := '!' not | cmp."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text.rstrip()):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                raise UnsupportedExpression(f"cannot read {text!r} at {text[position:][:12]!r}")
            kind = match.lastgroup or ""
            self.tokens.append((kind, match[kind]))
            position = match.end()
        self.index = 0

    def peek(self) -> str:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.index >= len(self.tokens) or (expected is not None and self.peek() != expected):
            raise UnsupportedExpression(f"expected {expected or 'more'} at token {self.index + 1}")
        self.index += 1
        return self.tokens[self.index - 1]

    def parse(self) -> Node:
        node = self.either()
        if self.index != len(self.tokens):
            raise UnsupportedExpression(f"unexpected {self.peek()!r}")
        return node

    def either(self) -> Node:
        node = self.both()
        while self.peek() == "||":
            self.take()
            node = Logic("||", node, self.both())
        return node

    def both(self) -> Node:
        node = self.negation()
        while self.peek() == "&&":
            self.take()
            node = Logic("&&", node, self.negation())
        return node

    def negation(self) -> Node:
        if self.peek() == "!":
            self.take()
            return Not(self.negation())
        node = self.postfix()
        if self.peek() in _COMPARISONS:
            op = self.take()[1]
            node = Compare(op, node, self.postfix())
        return node

    def postfix(self) -> Node:
        node = self.primary()
        while self.peek() == ".":
            self.take()
            kind, name = self.take()
            if kind != "name":
                raise UnsupportedExpression(f"expected a name after '.', got {name!r}")
            node = Call(node, name, self.arguments()) if self.peek() == "(" else Attr(node, name)
        return node

    def arguments(self) -> tuple[Node, ...]:
        self.take("(")
        args: list[Node] = []
        while self.peek() != ")":
            args.append(self.either())
            if self.peek() != ")":
                self.take(",")
        self.take(")")
        return tuple(args)

    def primary(self) -> Node:
        kind, text = self.take()
        if kind == "str":
            return Lit(re.sub(r"\\(.)", r"\1", text[1:-1]))
        if kind == "num":
            return Lit(float(text) if "." in text else int(text))
        if text == "(":
            node = self.either()
            self.take(")")
            return node
        if kind == "name" and text in _LITERALS:
            return Lit(_LITERALS[text])
        if kind == "name":
            return Call(None, text, self.arguments()) if self.peek() == "(" else Name(text)
        raise UnsupportedExpression(f"unexpected {text!r}")


@lru_cache(maxsize=512)
def parse_expression(text: str) -> Node:
    """Parse an expression, or raise UnsupportedExpression."""
    return _Parser(text).parse()
