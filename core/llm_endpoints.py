"""The rules of the LLM endpoint settings: which key goes where, refused ports, hosts off this machine."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit, urlunsplit

from pydantic import BeforeValidator, Field, SecretStr
from pydantic_settings import NoDecode

if TYPE_CHECKING:
    from core.settings.sections import LlmSettings

# llama.cpp's llama-server and other single-consumer model servers listen on 8080 by default: an endpoint there
# is likely another program's server, which a second consumer would stall (Vault Crews refuses it the same way).
DEFAULT_DENIED_PORTS = (8080,)
# Names that reach this machine without leaving it: loopback, and Docker's name for the host a container runs on.
THIS_MACHINE_NAMES = frozenset({"localhost", "host.docker.internal"})
_KEYS_EXAMPLE = "LLM_API_KEYS=https://api.openai.com/v1=sk-...,http://localhost:1234/v1=lm-..."
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normal_base(url: str) -> str:
    """Return a base URL as endpoints are compared and keyed: trimmed, without a trailing slash."""
    return url.strip().rstrip("/")


def shown_url(url: str) -> str:
    """Return a URL fit for an error message: no user, password or query (either may hold a credential)."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", "")) or "(empty)"


def _parse_endpoint_keys(value: object) -> object:
    """Turn `URL=key,URL=key` (split at the first `=`) into (base URL, key) pairs; never quote a key."""
    if not isinstance(value, str):
        return value
    pairs: list[tuple[str, SecretStr]] = []
    for number, entry in enumerate((part.strip() for part in value.split(",") if part.strip()), start=1):
        url, _, key = entry.partition("=")
        if "://" not in url or not key.strip():
            raise ValueError(f"LLM_API_KEYS entry {number} is not URL=key, as in {_KEYS_EXAMPLE}")
        pairs.append((normal_base(url), SecretStr(key.strip())))
    return tuple(pairs)


def _split_ports(value: object) -> object:
    return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value


EndpointKeys = Annotated[tuple[tuple[str, SecretStr], ...], NoDecode, BeforeValidator(_parse_endpoint_keys)]
Ports = Annotated[tuple[Annotated[int, Field(gt=0, lt=65536)], ...], NoDecode, BeforeValidator(_split_ports)]


def check_llm_endpoints(
    base_urls: Sequence[str],
    api_key: SecretStr | None,
    endpoint_keys: Sequence[tuple[str, SecretStr]],
    denied_ports: Sequence[int],
) -> None:
    """Raise ValueError, naming the setting, when the endpoints, their keys or their ports do not fit."""
    for url in base_urls:
        parts = urlsplit(url.strip())
        try:
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)
        except ValueError:
            port = 0  # not a number, or out of range
        if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or not port:
            raise ValueError(f"LLM_BASE_URL {shown_url(url)} must be an http(s) URL such as http://localhost:11434/v1")
        if port in denied_ports:
            raise ValueError(
                f"LLM_BASE_URL {shown_url(url)} uses port {port}, which LLM_DENIED_PORTS refuses: other programs' "
                "single-user model servers listen there (llama.cpp's llama-server by default), and a second "
                "consumer would stall them. If this server is meant for the librarian, set LLM_DENIED_PORTS= (empty) "
                "or list only the ports to refuse, or start it on another port (llama-server --port 8081)"
            )
    check_endpoint_keys(base_urls, api_key, endpoint_keys)


def check_endpoint_keys(
    base_urls: Sequence[str], api_key: SecretStr | None, endpoint_keys: Sequence[tuple[str, SecretStr]]
) -> None:
    """Raise ValueError unless every key is meant for exactly one configured endpoint."""
    bases = [normal_base(url) for url in base_urls]
    if api_key is not None and endpoint_keys:
        raise ValueError("set LLM_API_KEY or LLM_API_KEYS, not both: LLM_API_KEYS names the endpoint of each key")
    if api_key is not None and len(bases) > 1:
        # A hosted provider's key must not reach a local server (nor a local one the provider).
        raise ValueError(
            f"LLM_API_KEY would go to all {len(bases)} endpoints of LLM_BASE_URL; give each key with its endpoint "
            f"instead, as in {_KEYS_EXAMPLE} (an endpoint not named gets no key), and unset LLM_API_KEY"
        )
    seen: set[str] = set()
    for base, _key in endpoint_keys:
        if base not in bases:
            raise ValueError(
                f"LLM_API_KEYS has a key for {shown_url(base)}, which is not in LLM_BASE_URL; "
                "name the endpoint exactly as LLM_BASE_URL does"
            )
        if base in seen:
            raise ValueError(f"LLM_API_KEYS has two keys for {shown_url(base)}")
        seen.add(base)


def keys_by_endpoint(settings: LlmSettings) -> dict[str, SecretStr]:
    """Return the key of each keyed endpoint by its base URL (see `normal_base`); others get none."""
    bases = [normal_base(url) for url in settings.base_urls]
    if settings.api_key is not None and len(bases) == 1:
        return {bases[0]: settings.api_key}
    return {base: key for base, key in settings.endpoint_keys if base in bases}


def key_values(settings: LlmSettings) -> tuple[str, ...]:
    """Return every configured LLM key, to be redacted wherever text is shown or written."""
    keys = [settings.api_key, *(key for _base, key in settings.endpoint_keys)]
    return tuple(key.get_secret_value() for key in keys if key is not None)


def is_this_machine(host: str) -> bool:
    """Return True for a host name or address that reaches this machine: loopback, localhost, Docker's host."""
    host = host.strip("[]").rstrip(".").lower()
    if host in THIS_MACHINE_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def is_nearby_host(host: str) -> bool:
    """Return True for a host on this machine or the local network.

    Loopback, a private address, a name without a dot (Docker Compose's `ollama`, a LAN's `gpu-box`), or one ending
    in .local, .lan, .internal or .home.arpa.
    """
    host = host.strip("[]").rstrip(".").lower()
    if is_this_machine(host) or (bool(host) and "." not in host and ":" not in host):
        return True
    if host.endswith((".local", ".lan", ".internal", ".home.arpa")):
        return True
    try:
        return ipaddress.ip_address(host).is_private
    except ValueError:
        return False


def hosts_off_machine(base_urls: Sequence[str]) -> list[str]:
    """Return the hosts, once each in configured order, that note text sent to these endpoints leaves for."""
    hosts: list[str] = []
    for url in base_urls:
        host = urlsplit(url.strip()).hostname or ""
        if host and not is_this_machine(host) and host not in hosts:
            hosts.append(host)
    return hosts
