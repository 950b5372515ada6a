"""The template a change request names for a new note, chosen by code from the vault's templates."""

from __future__ import annotations

from agent.change_contract.request_words import leading_words, template_phrase
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.templates import find_template, list_templates
from core.errors import AppError


class VaultTemplates:
    """The vault's templates, listed from its templates folder on first use: most change requests name none."""

    def __init__(self, reader: VaultReader, snapshot: VaultSnapshot) -> None:
        self._reader = reader
        self._snapshot = snapshot
        self._listed: dict[str, str] | None = None

    def listed(self) -> dict[str, str]:
        """Return the templates, name -> path ({} without a templates folder), listing them the first time."""
        if self._listed is None:
            self._listed = vault_templates(self._reader, self._snapshot)
        return self._listed

    def is_template(self, words: str) -> bool:
        """Return True when `words` name one of the templates (see `template_named`)."""
        return bool(template_named(self.listed(), words))


def vault_templates(reader: VaultReader, snapshot: VaultSnapshot) -> dict[str, str]:
    """Return the vault's templates, name -> path ({} without a templates folder)."""
    try:
        return list_templates(snapshot, reader.templates_folder(snapshot))
    except AppError:  # no templates folder: no template to start from
        return {}


def template_named(templates: dict[str, str], words: str) -> str:
    """Return the name of the template `words` name ("Meeting" finds "Meeting Template" too), or ""."""
    for name in (words, f"{words} Template", f"{words} Vorlage"):
        try:
            path = find_template(templates, name)
        except AppError:
            continue
        return next(key for key, value in templates.items() if value == path)
    return ""


def requested_template(templates: VaultTemplates, request: str) -> str:
    """Return the template the request names for a new note ("using the Movie Template"), as found, or "".

    Chosen by code, as the folder is. A template the folder does not hold is no template (the note is created
    without one rather than from a guess). The templates are listed only when the request has words naming one.
    """
    phrase = template_phrase(request, is_template=templates.is_template)
    return next(filter(None, (template_named(templates.listed(), words) for words in leading_words(phrase))), "")
