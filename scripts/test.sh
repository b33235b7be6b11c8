#!/usr/bin/env bash
# Set up, then run the checks CI runs: ruff and the default pytest suite (slow suites: add `-m slow`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
