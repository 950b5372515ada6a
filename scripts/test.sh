#!/usr/bin/env bash
# Set up the venv (idempotent) and run the offline test suite; exit code 5 (no tests ran) counts as failure.
# Two pytest-xdist workers (the machines have 2 cores; TEST_WORKERS changes it, 0 runs in this process); tests
# sharing something process-wide (a served app, a fixed port) carry an xdist_group, which --dist loadgroup keeps
# on one worker (tests/conftest.py fails the run if they are not grouped). The `model` tests (the bundled MiniLM; a plain `pytest` leaves them out) run here too; `e2e` needs
# a Docker engine. Arguments go to pytest after these, so `-n 0`, `-m ...` or paths given here win.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
# uv resolves and installs the same versions as pip in about a fifth of the time (a fresh venv: ~18 s against ~80 s,
# most of a CI run's set-up); pip installs it into the venv first, and stays the fallback when that fails.
if command -v uv >/dev/null 2>&1 || pip install --quiet --disable-pip-version-check uv >/dev/null 2>&1; then
  uv pip install --quiet -e ".[dev]"
else
  pip install --quiet --disable-pip-version-check -e ".[dev]"
fi
# The stores commit with fsync (SQLite, the Qdrant edge shard): ~5 ms a commit on this disk, which made a test's
# index of sample_vault 4x slower. eatmydata (Debian's package; .ci/run installs it) turns fsync into a no-op for
# the run and its subprocesses. No test kills the machine, so no written data depends on fsync.
fast_sync=()
if command -v eatmydata >/dev/null 2>&1; then fast_sync=(eatmydata); fi
run_pytest() {  # run_pytest ARGS...: pytest on the workers; exit code 5 (no tests ran) counts as failure
  local code=0
  "${fast_sync[@]}" python -m pytest -n "${TEST_WORKERS:-2}" --dist loadgroup -m "not e2e" "$@" || code=$?
  if [ "$code" -eq 5 ]; then
    echo "pytest collected no tests: failing on purpose" >&2
    return 1
  fi
  return "$code"
}

run_pytest "$@"
