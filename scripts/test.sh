#!/usr/bin/env bash
# Set up the venv (idempotent) and run the offline test suite; exit code 5 (no tests ran) counts as failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
pip install --quiet --disable-pip-version-check -e ".[dev]"
set +e
python -m pytest "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "pytest collected no tests: failing on purpose" >&2
  exit 1
fi
exit "$code"
