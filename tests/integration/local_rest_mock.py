"""A minimal Local REST API (header era) as an httpx.MockTransport over a folder, per reference §1.2-1.4.

Covers only what the writer sends: `GET /`, and GET/PUT/POST/DELETE/MOVE on `/vault/{path}`; PATCH answers with a
scripted reply. The full stand-in (tests/obsidian_standin) replaces this where it is available.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import httpx

_AUTH = "Authorization required.  Find your API Key in the 'Local REST API' section of your Obsidian settings."
_MESSAGES = {
    40010: "Incoming content must be text data and have an appropriate text/* Content-type header set "
    "(e.g. text/markdown).",
    40012: "Unknown or invalid Content-Type specified in Content-Type header.",
    40020: "Destination header is required for MOVE operations.",
    40021: "Path traversal is not allowed. Paths must be relative and within the vault.",
    40080: "The patch you provided could not be applied to the target content.",
    40101: _AUTH,
    40400: "Not Found",
    40500: "Method Not Allowed",
    40920: "Destination file already exists.",
}


def error(code: int, detail: str = "") -> httpx.Response:
    message = _MESSAGES[code] + (f"\n{detail}" if detail else "")
    return httpx.Response(code // 100, json={"message": message, "errorCode": code})


@dataclass
class LocalRestMock:
    """The plugin over `vault`; flip `is_online` to simulate Obsidian closing and opening."""

    vault: Path
    api_key: str
    version: str = "4.1.7"
    is_online: bool = True
    patch_reply: httpx.Response | None = None
    requests: list[httpx.Request] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        if not self.is_online:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        self.requests.append(request)
        is_authenticated = request.headers.get("Authorization") == f"Bearer {self.api_key}"
        raw = request.url.raw_path.decode("ascii").partition("?")[0]
        if raw == "/":
            manifest = {"id": "obsidian-local-rest-api", "version": self.version}
            body = {"status": "OK", "manifest": manifest, "versions": {"obsidian": "1.8.10", "self": self.version}}
            return httpx.Response(
                200, json={**body, "service": "Obsidian Local REST API", "authenticated": is_authenticated}
            )
        if not is_authenticated:
            return error(40101)
        if not raw.startswith("/vault/"):
            return error(40400)
        path = unquote(raw[len("/vault/") :])  # decodeURIComponent of the whole path, as 3.x/4.x do
        if posixpath.normpath("/" + path) != "/" + path.rstrip("/") or ".." in path.split("/"):
            return error(40021)
        if not path or path.endswith("/"):
            return httpx.Response(
                405, json={"message": "Request method is valid only for file paths", "errorCode": 40510}
            )
        handler = getattr(self, f"_on_{request.method.lower()}", None)
        return handler(request, path) if handler else error(40500)

    def _file(self, path: str) -> Path:
        return self.vault / path

    def _on_get(self, request: httpx.Request, path: str) -> httpx.Response:
        file = self._file(path)
        if not file.is_file():
            return error(40400)
        return httpx.Response(200, content=file.read_bytes(), headers={"Content-Type": "text/markdown; charset=utf-8"})

    def _on_put(self, request: httpx.Request, path: str) -> httpx.Response:
        file = self._file(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(request.content)
        return httpx.Response(204)

    def _on_post(self, request: httpx.Request, path: str) -> httpx.Response:
        if not request.headers.get("Content-Type", "").startswith("text/"):
            return error(40010)
        file = self._file(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        existing = file.read_bytes() if file.is_file() else b""
        if existing and not existing.endswith(b"\n"):
            existing += b"\n"
        file.write_bytes(existing + request.content)
        return httpx.Response(204)

    def _on_delete(self, request: httpx.Request, path: str) -> httpx.Response:
        file = self._file(path)
        if not file.is_file():
            return error(40400)
        file.unlink()  # permanent, as in 3.x/4.x
        return httpx.Response(204)

    def _on_move(self, request: httpx.Request, path: str) -> httpx.Response:
        if self.version.startswith("3."):
            return error(40400)  # no MOVE route before 4.1: Express falls through to its 404 handler
        if "Destination" not in request.headers:
            return error(40020)
        destination = unquote(request.headers["Destination"])
        if destination.startswith("/") or ".." in destination.split("/"):
            return error(40021)
        source, target = self._file(path), self._file(destination)
        if not source.is_file():
            return error(40400)
        if target.exists() and request.headers.get("Allow-Overwrite") != "true":
            return error(40920)
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)
        return httpx.Response(204, headers={"Content-Location": destination})

    def _on_patch(self, request: httpx.Request, path: str) -> httpx.Response:
        if request.headers.get("Content-Type") not in ("text/markdown", "application/json"):
            return error(40012)
        if not self._file(path).is_file():
            return error(40400)
        return self.patch_reply or error(40080, "invalid-target")
