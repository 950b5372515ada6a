"""LocalRestApiWriter: notes changed through the Obsidian Local REST API plugin (header era, 3.6-4.1)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final, Literal
from urllib.parse import quote

import httpx

from core.errors import AppError, EditConflict, InvalidRequest, NotFound, UpstreamUnavailable
from edits.writers.paths import TRASH_FOLDER, check_vault_path, trash_candidates

OFFLINE = "Obsidian is not running or the Local REST API plugin is off; notes are read-only until it is back"
BAD_KEY = (
    "the Local REST API refused OBSIDIAN_API_KEY; copy the key from Obsidian's settings "
    "(Community plugins > Local REST API)"
)
MARKDOWN: Final = "text/markdown"  # PATCH compares Content-Type by exact string: "; charset=utf-8" gives 40012
MOVE_SINCE = (4, 1)  # the MOVE method (Destination header) exists from plugin 4.1.0
PROBE_TIMEOUT_SECONDS = 2.0
REQUEST_TIMEOUT_SECONDS = 15.0
_OFFLINE_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError)


class LocalRestApiWriter:
    """Read and change notes through the plugin's `/vault/` endpoints; every path is checked before sending."""

    # Deliberately not a `FolderWriter` (edits.writers.folders): the plugin cannot delete folders (DELETE on `dir/`
    # is 405/40510), so undo leaves behind an emptied folder a change created through it, as Obsidian itself does
    # when a note is deleted. Nothing is recorded, so the change log never promises a removal this writer can't do.

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        verify_tls: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_seconds: float = REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        """Prepare the writer; nothing is sent until the first call.

        Args:
            base_url: `https://127.0.0.1:27124` (self-signed certificate) or `http://127.0.0.1:27123`.
            api_key: the plugin's key, sent as `Authorization: Bearer <key>`.
            verify_tls: False by default, because the plugin serves its own self-signed certificate.
            transport: an httpx transport used instead of the network (tests).
            timeout_seconds: the read timeout of each request.

        """
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._verify_tls = verify_tls
        self._transport = transport
        self._timeout = timeout_seconds

    @property
    def name(self) -> str:
        """Return "rest"."""
        return "rest"

    async def is_available(self) -> bool:
        """Return True when `GET /` answers (short timeout) and says the key is accepted."""
        try:
            async with self._client(timeout=PROBE_TIMEOUT_SECONDS) as http:
                response = await http.get("/")
            body = response.json()
        except (httpx.HTTPError, ValueError):
            return False
        return response.status_code == 200 and isinstance(body, dict) and body.get("authenticated") is True

    async def read(self, path: str) -> str | None:
        """Return the note's text (`GET /vault/{path}`), or None on 404; `.trash/...` paths are readable too."""
        check_vault_path(path, allow_trash=True)
        async with self._client() as http:
            return await self._read(http, path)

    async def write(self, path: str, content: str) -> None:
        """Create or replace the note (`PUT`, `text/markdown`); the plugin creates parent folders."""
        check_vault_path(path)
        async with self._client() as http:
            await self._send(http, "PUT", path, content=content)

    async def append(self, path: str, content: str) -> None:
        """Append text to the note (`POST`); the plugin adds a newline first if the note lacks a final one."""
        check_vault_path(path)
        async with self._client() as http:
            await self._send(http, "POST", path, content=content)

    async def delete(self, path: str) -> str:
        """Move the note to `.trash/<path>` (" 1", " 2" ... when taken) and return that path.

        The 3.x/4.x plugin's DELETE is permanent, so this copies the text into `.trash/` (GET, PUT) and only then
        deletes the original. It is not atomic: a failure after the copy leaves the note in both places, never in
        neither.
        """
        check_vault_path(path)
        async with self._client() as http:
            content = await self._read(http, path)
            if content is None:
                raise NotFound(f"{path} does not exist in the vault")
            trash = await self._free_trash_name(http, path)
            await self._send(http, "PUT", trash, content=content)
            await self._send(http, "DELETE", path)
        return trash

    async def move(self, path: str, new_path: str) -> None:
        """Rename the note: `MOVE` on plugin 4.1+, else GET + PUT + DELETE; an existing target is an EditConflict.

        MOVE lets Obsidian rewrite links to the note itself; the copy fallback leaves that to the caller. A note
        brought back out of `.trash/` is always copied: MOVE renames through Obsidian's file index, which leaves
        dot folders out, and nothing links to a trashed note anyway.
        """
        check_vault_path(path, allow_trash=True)
        check_vault_path(new_path)
        from_trash = path.startswith(f"{TRASH_FOLDER}/")
        async with self._client() as http:
            if not from_trash and await self._supports_move(http):
                headers = {"Destination": quote(new_path, safe="/"), "Allow-Overwrite": "false"}
                url = f"/vault/{quote(path, safe='/')}"
                response = await self._call(http, "MOVE", url, headers=headers)
                if response.status_code < 400:
                    return
                if response.status_code != 405:  # 405: a build or proxy without MOVE; copy instead
                    raise error_for(response, path)
            content = await self._read(http, path)
            if content is None:
                raise NotFound(f"{path} does not exist in the vault")
            if await self._read(http, new_path) is not None:
                raise EditConflict(f"{new_path} already exists; refusing to overwrite it")
            await self._send(http, "PUT", new_path, content=content)
            # Unlike FileVaultWriter.move, an emptied `.trash/<folder>` stays: the plugin cannot delete folders
            # (DELETE on `dir/` is 405/40510) and lists none under `.trash/`, so it is left to Obsidian's own
            # "empty trash", which never shows `.trash/` anyway.
            await self._send(http, "DELETE", path)

    async def patch(
        self,
        path: str,
        *,
        operation: Literal["append", "prepend", "replace"],
        target_type: Literal["heading", "block", "frontmatter"],
        target: str,
        content: str,
        create_if_missing: bool = False,
        content_type: Literal["text/markdown", "application/json"] = MARKDOWN,
    ) -> str:
        """Apply a header-era PATCH to a heading (`A::B`), block id (no `^`) or frontmatter key; return the note.

        Args:
            path: the note, vault-relative.
            operation: where the content goes relative to the target's range.
            target_type: what `target` names.
            target: the full heading path joined by `::`, a block id, or a top-level frontmatter key.
            content: inserted verbatim (end it with a newline before a following heading).
            create_if_missing: create the heading, block or key when it does not exist.
            content_type: `application/json` for typed frontmatter values (`content` is then JSON text).

        """
        check_vault_path(path)
        headers = {
            "Operation": operation,
            "Target-Type": target_type,
            "Target": quote(target, safe=""),
            "Create-Target-If-Missing": "true" if create_if_missing else "false",
            # 3.x refuses content that already occurs in the target unless told otherwise; 4.x ignores this.
            "Apply-If-Content-Preexists": "true",
        }
        async with self._client() as http:
            response = await self._send(
                http, "PATCH", path, headers=headers, content=content, content_type=content_type
            )
        return response.content.decode("utf-8")

    async def _read(self, http: httpx.AsyncClient, path: str) -> str | None:
        try:
            response = await self._send(http, "GET", path)
        except NotFound:
            return None
        try:
            return response.content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRequest(f"{path!r} is not UTF-8 text") from exc

    async def _free_trash_name(self, http: httpx.AsyncClient, path: str) -> str:
        for candidate in trash_candidates(path):
            check_vault_path(candidate, allow_trash=True)
            if await self._read(http, candidate) is None:
                return candidate
        raise InvalidRequest(f"no free name in the trash for {path}")  # unreachable: the candidates never end

    async def _supports_move(self, http: httpx.AsyncClient) -> bool:
        response = await self._call(http, "GET", "/")
        try:
            version = str(response.json()["versions"]["self"])
            numbers = tuple(int(part) for part in version.split(".")[:2])
        except (ValueError, KeyError, TypeError):
            return False
        return numbers >= MOVE_SINCE

    async def _send(
        self,
        http: httpx.AsyncClient,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        content: str | None = None,
        content_type: str = MARKDOWN,
    ) -> httpx.Response:
        """Send one `/vault/` request and translate the plugin's error envelope into core errors."""
        all_headers = dict(headers or {})
        body = None
        if content is not None:
            all_headers["Content-Type"] = content_type
            body = content.encode("utf-8")
        response = await self._call(http, method, f"/vault/{quote(path, safe='/')}", headers=all_headers, body=body)
        if response.status_code >= 400:
            raise error_for(response, path)
        return response

    async def _call(
        self,
        http: httpx.AsyncClient,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
    ) -> httpx.Response:
        try:
            return await http.request(method, url, headers=headers, content=body)
        except _OFFLINE_ERRORS as exc:
            raise UpstreamUnavailable("obsidian", OFFLINE) from exc
        except httpx.TimeoutException as exc:
            raise UpstreamUnavailable("obsidian", "the Local REST API did not answer in time") from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnavailable("obsidian", f"the Local REST API request failed: {type(exc).__name__}") from exc

    @asynccontextmanager
    async def _client(self, *, timeout: float | None = None) -> AsyncIterator[httpx.AsyncClient]:
        read_timeout = timeout or self._timeout
        async with httpx.AsyncClient(
            base_url=self._base_url,
            headers={"Authorization": f"Bearer {self._api_key}"},
            verify=self._verify_tls,
            transport=self._transport,
            timeout=httpx.Timeout(read_timeout, connect=min(read_timeout, PROBE_TIMEOUT_SECONDS)),
        ) as http:
            yield http


def error_for(response: httpx.Response, path: str) -> AppError:
    """Return the core error for a plugin error response (`{"message", "errorCode"}` envelope)."""
    status = response.status_code
    code, message = _envelope(response)
    reason = message.partition("\n")[2].strip()
    if status == 401:
        return UpstreamUnavailable("obsidian", BAD_KEY)
    if status == 404:
        return NotFound(f"{path} does not exist in the vault")
    if code == 40080:
        detail = "the heading/block was not found" if reason in ("", "invalid-target") else "the patch was refused"
        return InvalidRequest(f"{detail} in {path} (plugin reason: {reason or 'none given'})")
    if code == 40021:
        return InvalidRequest(f"path outside the vault: {path!r}")
    if code == 40920 or status == 409:
        return EditConflict(f"the destination already exists; refusing to overwrite it ({path})")
    if code == 40005:
        return InvalidRequest(f"the frontmatter of {path} could not be parsed as YAML; fix it in Obsidian first")
    if status >= 500:
        return UpstreamUnavailable("obsidian", f"the Local REST API failed on {path} ({code}): {message}")
    return InvalidRequest(f"the Local REST API refused the request for {path} ({code}): {message}")


def _envelope(response: httpx.Response) -> tuple[int, str]:
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict):
        code = body.get("errorCode")
        return (code if isinstance(code, int) else response.status_code * 100), str(body.get("message", ""))
    return response.status_code * 100, response.reason_phrase
