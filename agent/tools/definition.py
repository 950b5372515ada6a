"""A read tool: its arguments model (the JSON schema the LLM reads), its description and its handler."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from agent.tools.outcome import Reply
from agent.tools.reader import VaultReader
from core.chat import ToolSpec
from core.errors import InvalidRequest, NotFound


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown parameters are refused so the model learns the right ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _drop_nulls(cls, data: object) -> object:
        """Treat `"folder": null` as an omitted parameter: small models often send null for "not needed"."""
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data


ArgsT = TypeVar("ArgsT", bound=ToolArgs)


def _without_titles(schema: object) -> object:
    """Drop pydantic's generated "title" keys: they repeat the names and cost a small model's context."""
    if isinstance(schema, dict):
        return {
            key: _without_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema


def parameters_schema(args: type[ToolArgs]) -> dict[str, object]:
    """Return the JSON schema of a tool's arguments as OpenAI function parameters."""
    schema = _without_titles(args.model_json_schema())
    if not isinstance(schema, dict):
        raise TypeError(f"{args.__name__} does not produce a JSON object schema")
    schema.pop("description", None)  # the class docstring: the tool's own description already says it
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for prop in properties.values():
            # "required" already says a parameter may be left out; an empty default says nothing more.
            if isinstance(prop, dict) and prop.get("default", 0) in ("", [], None):
                prop.pop("default")
    return schema


def describe_validation_error(tool: str, args: type[ToolArgs], exc: ValidationError) -> str:
    """Return a message the model can act on: which parameter is wrong and what is allowed."""
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown parameter '{field}'")
        elif error["type"] == "missing":
            problems.append(f"'{field}' is required")
        else:
            problems.append(f"'{field}': {error['msg']} (got {error.get('input')!r})")
    names = ", ".join(args.model_fields)
    return f"invalid arguments for {tool}: {'; '.join(problems)}. Its parameters are: {names}."


def require(value: str, name: str, usage: str) -> str:
    """Return `value` stripped, or raise InvalidRequest saying which parameter `usage` needs."""
    if not value.strip():
        raise InvalidRequest(f"{usage} needs '{name}'")
    return value.strip()


@dataclass(frozen=True, slots=True)
class Tool(Generic[ArgsT]):
    """A read tool offered to the model."""

    name: str
    description: str
    args: type[ArgsT]
    handler: Callable[[VaultReader, ArgsT], Reply]
    cues: tuple[str, ...] = ()  # words of a message that call for the tool (agent.tools.cues); empty: always offered

    def spec(self) -> ToolSpec:
        """Return what the model is shown: name, description and parameter schema."""
        return ToolSpec(self.name, self.description, parameters_schema(self.args))

    def call(self, reader: VaultReader, arguments: Mapping[str, object]) -> Reply:
        """Validate the model's arguments and run the tool (blocking: call it from a worker thread)."""
        try:
            parsed = self.args.model_validate(arguments)
        except ValidationError as exc:
            raise InvalidRequest(describe_validation_error(self.name, self.args, exc)) from exc
        return self.handler(reader, parsed)


def pick_one(exact: list[str], by_name: list[str], *, ref: str, what: str, known: list[str], hint: str = "") -> str:
    """Return the single match for `ref` (exact path first, then by name), or say clearly why there is none."""
    found = exact or by_name
    if len(found) == 1:
        return found[0]
    if found:
        raise InvalidRequest(f"'{ref}' matches several {what}s: {', '.join(found)}{hint}")
    raise NotFound(f"no {what} named '{ref}'; {what}s: {', '.join(known) or 'none'}")
