"""Redis docstore: a hash per note plus path and dedup sets, changed together in MULTI/EXEC transactions."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import redis
from redis.client import Pipeline
from redis.exceptions import RedisError

from core.domain import StoredDoc
from core.errors import InvalidRequest, UpstreamUnavailable

_CONNECT_TIMEOUT_S = 5.0
_SOCKET_TIMEOUT_S = 30.0
_UNLINK_BATCH = 500
_REDACTED = "***"


class RedisDocStore:
    """Keep notes in Redis under one namespace.

    Keys: `{ns}:doc:{path}` (hash: markdown, content_hash), `{ns}:paths` (set of paths) and `{ns}:hash:{sha}`
    (set of the paths stored with that hash; Redis drops a set when its last member goes), and `{ns}:generation`
    (the index generation the store was filled for: gone after a FLUSHALL or a restart without persistence, which
    is how the re-indexer notices that the docstore must be refilled). Every change that
    touches several keys runs in one WATCH + MULTI/EXEC transaction, so a crash never leaves the sets out of step.
    """

    def __init__(self, client: redis.Redis, *, namespace: str = "librarian") -> None:
        # A ':' would let clear()'s `{ns}:*` pattern reach into a nested namespace such as "ns:other".
        if not namespace or ":" in namespace:
            raise ValueError(f"namespace must be non-empty and contain no ':', got {namespace!r}")
        self._client = client
        self._namespace = namespace
        self._paths_key = f"{namespace}:paths"
        self._generation_key = f"{namespace}:generation"

    @classmethod
    def from_url(cls, url: str, *, namespace: str = "librarian") -> RedisDocStore:
        """Return a store on the Redis at `url` (e.g. `redis://:password@host:6379/0`); connects on first use."""
        try:
            client = redis.Redis.from_url(
                url,
                decode_responses=True,
                socket_connect_timeout=_CONNECT_TIMEOUT_S,
                socket_timeout=_SOCKET_TIMEOUT_S,
            )
        except ValueError as exc:
            detail = _scrub(str(exc), _url_passwords(url))
            raise InvalidRequest(f"REDIS_URL {redact_url(url)} is not a valid Redis URL: {detail}") from exc
        return cls(client, namespace=namespace)

    def put(self, doc: StoredDoc) -> None:
        """Store or replace the markdown of a note, moving its path to the new hash's set."""
        doc_key = self._doc_key(doc.path)

        def replace(pipe: Pipeline) -> None:
            old_hash = pipe.hget(doc_key, "content_hash")
            pipe.multi()
            if old_hash is not None and _text(old_hash) != doc.content_hash:
                pipe.srem(self._hash_key(_text(old_hash)), doc.path)
            pipe.hset(doc_key, mapping={"markdown": doc.markdown, "content_hash": doc.content_hash})
            pipe.sadd(self._paths_key, doc.path)
            pipe.sadd(self._hash_key(doc.content_hash), doc.path)

        with self._errors_translated():
            self._client.transaction(replace, doc_key)

    def get(self, path: str) -> StoredDoc | None:
        """Return the stored note, or None."""
        with self._errors_translated():
            markdown, content_hash = self._client.hmget(self._doc_key(path), ["markdown", "content_hash"])
        if markdown is None or content_hash is None:
            return None
        return StoredDoc(path=path, markdown=_text(markdown), content_hash=_text(content_hash))

    def delete(self, path: str) -> None:
        """Forget a note and take it out of its hash's set; deleting an unknown path does nothing."""
        doc_key = self._doc_key(path)

        def remove(pipe: Pipeline) -> None:
            old_hash = pipe.hget(doc_key, "content_hash")
            pipe.multi()
            pipe.unlink(doc_key)
            pipe.srem(self._paths_key, path)
            if old_hash is not None:
                pipe.srem(self._hash_key(_text(old_hash)), path)

        with self._errors_translated():
            self._client.transaction(remove, doc_key)

    def paths(self) -> set[str]:
        """Return every stored path."""
        with self._errors_translated():
            return {_text(member) for member in self._client.smembers(self._paths_key)}

    def paths_with_hash(self, content_hash: str) -> set[str]:
        """Return the stored paths whose content has this hash."""
        with self._errors_translated():
            return {_text(member) for member in self._client.smembers(self._hash_key(content_hash))}

    def clear(self) -> None:
        """Delete every key of this namespace (and no other) in one transaction."""
        with self._errors_translated():
            keys = list(self._client.scan_iter(match=f"{_escape_glob(self._namespace)}:*", count=1000))
            if not keys:
                return
            with self._client.pipeline(transaction=True) as pipe:
                for start in range(0, len(keys), _UNLINK_BATCH):
                    pipe.unlink(*keys[start : start + _UNLINK_BATCH])
                pipe.execute()

    def count(self) -> int:
        """Return the number of stored notes (the size of the path set)."""
        with self._errors_translated():
            return int(self._client.scard(self._paths_key))

    def generation(self) -> str | None:
        """Return the index generation marker, or None (never set, or the Redis lost it)."""
        with self._errors_translated():
            value = self._client.get(self._generation_key)
        return None if value is None else _text(value)

    def set_generation(self, marker: str) -> None:
        """Store the index generation marker."""
        with self._errors_translated():
            self._client.set(self._generation_key, marker)

    def close(self) -> None:
        """Close the client's connections."""
        self._client.close()

    def _doc_key(self, path: str) -> str:
        return f"{self._namespace}:doc:{path}"

    def _hash_key(self, content_hash: str) -> str:
        return f"{self._namespace}:hash:{content_hash}"

    @contextmanager
    def _errors_translated(self) -> Iterator[None]:
        try:
            yield
        except RedisError as exc:
            kwargs = self._client.get_connection_kwargs()
            password = kwargs.get("password")
            passwords = [password] if isinstance(password, str) else []
            detail = _scrub(f"{_describe_target(kwargs)}: {exc}", passwords)
            raise UpstreamUnavailable("redis", detail) from exc


def redact_url(url: str) -> str:
    """Return `url` with its password (in the user info or a `password=` query) replaced by `***`."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<unparseable URL>"
    redacted = url
    if password is not None:
        userinfo, _, hostinfo = parts.netloc.rpartition("@")
        redacted = redacted.replace(parts.netloc, f"{userinfo.partition(':')[0]}:{_REDACTED}@{hostinfo}", 1)
    if parts.query:
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = urlencode([(key, _REDACTED if key.lower() == "password" else value) for key, value in pairs], safe="*")
        # Replaced in place (not urlunsplit) so schemes without a netloc, like unix:///path, keep their form.
        redacted = redacted.replace(f"?{parts.query}", f"?{query}", 1)
    return redacted


def _url_passwords(url: str) -> list[str]:
    """Return the password of `url` as written and percent-decoded, to scrub both from messages."""
    try:
        parts = urlsplit(url)
        found = [parts.password, dict(parse_qsl(parts.query)).get("password")]
    except ValueError:
        return []
    return [text for password in found if password for text in (password, unquote(password))]


def _describe_target(kwargs: dict[str, object]) -> str:
    """Name the server without credentials: `host:port/db` or the unix socket path."""
    db = kwargs.get("db", 0)
    if "path" in kwargs:
        return f"unix://{kwargs['path']}?db={db}"
    return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/{db}"


def _scrub(message: str, passwords: list[str]) -> str:
    for password in passwords:
        if password:
            message = message.replace(password, _REDACTED)
    return message


def _text(value: bytes | str) -> str:
    # A client built without decode_responses returns bytes; accept both.
    return value.decode() if isinstance(value, bytes) else value


def _escape_glob(text: str) -> str:
    return "".join(f"\\{char}" if char in "*?[]\\" else char for char in text)
