"""LLM endpoint settings: which key goes to which endpoint, refused ports, and which hosts are off this machine."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from core.llm_endpoints import hosts_off_machine, keys_by_endpoint
from core.settings import Settings
from llm_client.endpoints.endpoint_access import EndpointAuth

LOCAL = "http://localhost:11434/v1"
HOSTED = "https://api.openai.com/v1"
HOSTED_KEY = "hosted-Q7x93vLm2ZpK4t"  # no provider prefix: only the literal value can find it
LOCAL_KEY = "lmstudio-9Jd2Kw8sPq"


def settings_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> Settings:
    monkeypatch.setenv("VAULT_PATH", str(tmp_path / "vault"))
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings(_env_file=None)


def refusal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **env: str) -> str:
    with pytest.raises(ValidationError) as raised:
        settings_from_env(monkeypatch, tmp_path, **env)
    shown = str(raised.value)
    for key in (HOSTED_KEY, LOCAL_KEY):
        assert key not in shown  # pydantic would quote the whole input, keys included
    return " ".join(shown.split())


def keys(settings: Settings) -> dict[str, str]:
    return {base: key.get_secret_value() for base, key in keys_by_endpoint(settings.llm).items()}


def test_one_endpoint_with_llm_api_key_keeps_working(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = settings_from_env(monkeypatch, tmp_path, LLM_BASE_URL=HOSTED + "/", LLM_API_KEY=HOSTED_KEY)

    assert keys(settings) == {HOSTED: HOSTED_KEY}


def test_llm_api_keys_gives_each_endpoint_its_own_key_and_the_rest_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = settings_from_env(
        monkeypatch,
        tmp_path,
        LLM_BASE_URL=f"{LOCAL},http://127.0.0.1:1234/v1,{HOSTED}",
        LLM_API_KEYS=f"{HOSTED}={HOSTED_KEY}, http://127.0.0.1:1234/v1/={LOCAL_KEY}==",
    )

    assert keys(settings) == {HOSTED: HOSTED_KEY, "http://127.0.0.1:1234/v1": LOCAL_KEY + "=="}
    assert HOSTED_KEY not in repr(settings) and LOCAL_KEY not in repr(settings)


def test_one_llm_api_key_for_several_endpoints_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    message = refusal(monkeypatch, tmp_path, LLM_BASE_URL=f"{LOCAL},{HOSTED}", LLM_API_KEY=HOSTED_KEY)

    assert "LLM_API_KEY would go to all 2 endpoints of LLM_BASE_URL" in message
    assert f"LLM_API_KEYS={HOSTED}=" in message  # says how to name the endpoint it is for


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LLM_API_KEYS": f"http://localhost:9999/v1={HOSTED_KEY}"}, "key for http://localhost:9999/v1, which is not"),
        ({"LLM_API_KEYS": HOSTED_KEY}, "LLM_API_KEYS entry 1 is not URL=key"),
        ({"LLM_API_KEYS": f"{HOSTED}="}, "LLM_API_KEYS entry 1 is not URL=key"),
        ({"LLM_API_KEYS": f"{HOSTED}={HOSTED_KEY},{HOSTED}/={LOCAL_KEY}"}, f"two keys for {HOSTED}"),
        ({"LLM_API_KEYS": f"{HOSTED}={HOSTED_KEY}", "LLM_API_KEY": LOCAL_KEY}, "set LLM_API_KEY or LLM_API_KEYS"),
    ],
    ids=["unknown-endpoint", "bare-key", "empty-key", "two-keys", "both-settings"],
)
def test_keys_that_do_not_fit_the_endpoints_are_refused_without_quoting_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    assert expected in refusal(monkeypatch, tmp_path, LLM_BASE_URL=f"{LOCAL},{HOSTED}", **env)


def test_a_configuration_error_never_quotes_a_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("LLM_PROBE_LOCAL_PORTS", "LLM_WARM_UP", "LLM_TOOLS"):  # set by conftest, after the key
        monkeypatch.delenv(name)  # so the key is the last input, the part of it pydantic's message shows
    message = refusal(
        monkeypatch, tmp_path, LLM_BASE_URL=HOSTED, LLM_API_KEY=HOSTED_KEY, RERANK_CANDIDATES="3", TOP_K="5"
    )

    assert "RERANK_CANDIDATES (3) must be >= TOP_K (5)" in message


def test_port_8080_is_refused_by_default_saying_how_to_allow_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    message = refusal(monkeypatch, tmp_path, LLM_BASE_URL=f"{LOCAL},http://user:pw-secret@127.0.0.1:8080/v1")

    assert "LLM_BASE_URL http://127.0.0.1:8080/v1 uses port 8080, which LLM_DENIED_PORTS refuses" in message
    assert "llama-server" in message and "LLM_DENIED_PORTS= (empty)" in message
    assert "pw-secret" not in message


def test_llm_denied_ports_lifts_or_replaces_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    llama = "http://127.0.0.1:8080/v1"
    allowed = settings_from_env(monkeypatch, tmp_path, LLM_BASE_URL=llama, LLM_DENIED_PORTS="")
    assert allowed.llm.base_urls == (llama,)
    replaced = settings_from_env(monkeypatch, tmp_path, LLM_BASE_URL=llama, LLM_DENIED_PORTS="9000, 9001")
    assert replaced.llm_denied_ports == (9000, 9001)

    message = refusal(monkeypatch, tmp_path, LLM_BASE_URL="http://127.0.0.1:9001/v1", LLM_DENIED_PORTS="9000,9001")
    assert "uses port 9001" in message


def test_a_base_url_that_is_not_http_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    message = refusal(monkeypatch, tmp_path, LLM_BASE_URL="localhost:11434/v1")

    assert "LLM_BASE_URL localhost:11434/v1 must be an http(s) URL" in message


@pytest.mark.parametrize(
    ("url", "is_off"),
    [
        ("http://localhost:11434/v1", False),
        ("http://LOCALHOST:1234/v1", False),
        ("http://127.0.0.1:1234/v1", False),
        ("http://127.8.9.10:1234/v1", False),
        ("http://[::1]:1234/v1", False),
        ("http://[::ffff:127.0.0.1]:1234/v1", False),
        ("http://host.docker.internal:11434/v1", False),  # the machine a container runs on
        ("https://api.openai.com/v1", True),
        ("http://192.168.1.20:11434/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("http://0.0.0.0:1234/v1", True),
        ("http://localhost.example.com/v1", True),
    ],
)
def test_hosts_off_this_machine(url: str, is_off: bool) -> None:
    expected = [url.split("//")[1].split(":")[0].split("/")[0].lower()] if is_off else []
    assert hosts_off_machine([url]) == expected


def test_hosts_off_machine_are_named_once_in_configured_order() -> None:
    urls = ["https://b.example/v1", LOCAL, "https://a.example/v1", "https://b.example:8443/v1"]

    assert hosts_off_machine(urls) == ["b.example", "a.example"]


def sent_authorization(auth: EndpointAuth, url: str) -> str | None:
    request = next(auth.auth_flow(httpx.Request("GET", url)))
    return request.headers.get("Authorization")


def test_a_request_carries_the_key_of_the_endpoint_it_belongs_to_and_no_other() -> None:
    gateway = "https://gw.example/openai/v1"
    auth = EndpointAuth(
        [gateway, "https://gw.example/free/v1", "http://localhost:11434/v1", "http://127.0.0.1:1234/v1"],
        {gateway: HOSTED_KEY, "http://127.0.0.1:1234/v1": LOCAL_KEY},
    )

    assert sent_authorization(auth, f"{gateway}/chat/completions") == f"Bearer {HOSTED_KEY}"
    assert sent_authorization(auth, "https://gw.example/free/v1/chat/completions") is None  # same server, no key
    assert sent_authorization(auth, "https://gw.example/props") is None  # beside two endpoints: whose key?
    assert sent_authorization(auth, "http://localhost:11434/v1/models") is None
    assert sent_authorization(auth, "http://localhost:11434/api/show") is None
    # A native API beside the base URL (llama.cpp's /props, LM Studio's /api/v0) belongs to that server.
    assert sent_authorization(auth, "http://127.0.0.1:1234/api/v0/models") == f"Bearer {LOCAL_KEY}"
    assert sent_authorization(auth, "http://127.0.0.1:9999/v1/models") is None  # another port, another server
    assert sent_authorization(auth, "https://api.openai.com/v1/models") is None
