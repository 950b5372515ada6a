"""Where the service may listen: loopback freely, beyond it only behind a long enough API key.

Apart from app/http/security.py (which loads FastAPI) so `librarian serve` refuses a bad address before loading it.
"""

from __future__ import annotations

import ipaddress

from core.errors import InvalidRequest
from core.settings import ServerSettings

# An API key guards the whole vault once the service listens beyond loopback: a short one can be guessed.
MIN_API_KEY_LENGTH = 16


def is_loopback(host: str) -> bool:
    """Return True for addresses only this machine can reach."""
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_all_interfaces(host: str) -> bool:
    """Return True for a bind address that listens on every interface (0.0.0.0, ::)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def check_bind_address(settings: ServerSettings) -> None:
    """Refuse to listen beyond loopback without a long enough API key: the vault would be open to the network."""
    if is_loopback(settings.host):
        return
    if settings.api_key is None:
        raise InvalidRequest(
            f"refusing to listen on {settings.host} without API_KEY: anyone on the network could read your notes; "
            "set API_KEY or bind 127.0.0.1"
        )
    length = len(settings.api_key.get_secret_value())
    if length < MIN_API_KEY_LENGTH:
        raise InvalidRequest(
            f"refusing to listen on {settings.host} with an API_KEY of {length} characters: beyond loopback it must "
            f"have at least {MIN_API_KEY_LENGTH}, or it could be guessed (make one with "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`), or bind 127.0.0.1"
        )
