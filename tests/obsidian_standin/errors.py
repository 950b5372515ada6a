"""The plugin's error envelope: canonical messages per errorCode and the exception that carries one."""

from __future__ import annotations

import json
from typing import Literal

from starlette.responses import Response

Flavor = Literal["3.6.2", "4.1.7"]

_AUTH_MESSAGE = "Authorization required.  Find your API Key in the '{section}' section of your Obsidian settings."

# Canonical texts, verbatim from the plugin's constants (reference §1.3).
MESSAGES: dict[int, str] = {
    40005: "Document frontmatter could not be parsed.",
    40010: (
        "Incoming content must be text data and have an appropriate text/* Content-type header set "
        "(e.g. text/markdown)."
    ),
    40011: (
        "Content-Type header required; this API accepts data in multiple content-types and you must indicate "
        "the content-type of your request body via the Content-Type header."
    ),
    40012: "Unknown or invalid Content-Type specified in Content-Type header.",
    40015: "Your request body could not be processed as the content-type specified in your Content-Type header.",
    40020: "Destination header is required for MOVE operations.",
    40021: "Path traversal is not allowed. Paths must be relative and within the vault.",
    40022: "The 'Destination' header you provided could not be parsed.",
    40053: "No 'Target-Type' header was provided.",
    40054: "The 'Target-Type' header you provided was invalid.",
    40055: "No 'Target' header was provided.",
    40056: "No 'Operation' header was provided.",
    40057: "The 'Operation' header you provided was invalid.",
    40058: "The 'Target' header you provided was invalid.",
    40059: (
        "The 'Target-Scope' header you provided was invalid. Valid values are 'content', 'marker', and "
        "'markerAndContent'."
    ),
    40080: "The patch you provided could not be applied to the target content.",
    40400: "Not Found",
    40500: "Method Not Allowed",
    40510: "Request method is valid only for file paths, not directories.",
    40920: "Destination file already exists.",
    50000: "Internal Server Error",
    50020: "File operation failed. Check the error message for details.",
}


def auth_message(flavor: Flavor) -> str:
    """Return the 401 text; 4.1.1 renamed the settings section it points to."""
    section = "Local REST API" if flavor.startswith("3.") else "Local REST API with MCP"
    return _AUTH_MESSAGE.format(section=section)


class ApiError(Exception):
    """An error the plugin answers with its JSON envelope; status is errorCode // 100."""

    def __init__(self, code: int, detail: str | None = None, *, message: str | None = None) -> None:
        self.code = code
        self.detail = detail
        self.message = message if message is not None else MESSAGES[code]
        super().__init__(f"{code}: {self.message}")

    def to_response(self) -> Response:
        """Render the envelope the way `returnCannedResponse` does (pretty-printed, two spaces)."""
        text = self.message if self.detail is None else f"{self.message}\n{self.detail}"
        body = json.dumps({"message": text, "errorCode": self.code}, indent=2)
        return Response(body, status_code=self.code // 100, media_type="application/json; charset=utf-8")
