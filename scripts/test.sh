#!/usr/bin/env bash
# Set up the venv (scripts/venv.sh, idempotent) and run the offline test suite; exit code 5 (no tests ran) counts
# as failure. Two pytest-xdist workers (the machines have 2 cores; TEST_WORKERS changes it, 0 runs in this
# process); tests sharing something process-wide (a served app, a fixed port, a session index) carry an
# xdist_group, which --dist loadgroup keeps on one worker (tests/conftest.py fails the run if they are not
# grouped). The `model` tests (the bundled MiniLM; a plain `pytest` leaves them out) run here too; `e2e` needs a
# Docker engine. Arguments go to pytest after these, so `-n 0`, `-m ...` or paths given here win.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
bash scripts/venv.sh
. .venv/bin/activate
# Some machines set PYTHONDONTWRITEBYTECODE=1: then no .pyc of the project or of the tests is kept, and both
# workers, and every `librarian` process a test starts, compile them from source (collecting the suite took 26 s
# per worker that way, 12 s with the caches). __pycache__ is git-ignored.
unset PYTHONDONTWRITEBYTECODE
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
