#!/usr/bin/env bash
# The main job: set up, then run the demo gauntlet into results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/tempo gauntlet experiments/demo.toml "$@"
