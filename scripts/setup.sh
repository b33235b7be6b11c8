#!/usr/bin/env bash
# Sets up everything Tempo needs on a Debian machine with Python 3.11: Debian's stockfish, pypy3,
# phalanx (an XBoard engine), openssl (the Dask TLS tests make certificates), chromium (the
# tests render the results page headless) and valgrind (`tempo bench instructions`); a virtual
# environment .venv with the project and its test tools; .venv-sunfish with Sunfish (an anchor
# engine, `sunfish-uci`); and a PyPy environment .venv-pypy with python-chess, in which
# tempo-engine runs on request (TEMPO_ENGINE_PYTHON=pypy, an engine's interpreter = "pypy").
# Safe to run again: what is in place stays.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
EXTRAS=${TEMPO_EXTRAS:-dev,notebooks,parquet,dask}
packages=(stockfish pypy3 phalanx openssl chromium valgrind)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "setup: need root (or sudo) to install Debian packages: ${missing[*]}" >&2; exit 1
  fi
  echo "setup: installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stamp=".venv/.tempo-setup-$(cat pyproject.toml | sha1sum | cut -c1-12)-${EXTRAS//,/-}"
if [ ! -f "$stamp" ]; then
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
  rm -f .venv/.tempo-setup-*
  touch "$stamp"
fi

if [ ! -f .venv-sunfish/.tempo-setup ]; then
  # Sunfish, a calibration anchor (a UCI engine in Python): its own environment, since it pins
  # an older python-chess than the project's. Optional: without it, its tests skip.
  if "$PYTHON" -m venv .venv-sunfish && .venv-sunfish/bin/python -m pip install -q "sunfish==2026.1"; then
    touch .venv-sunfish/.tempo-setup
  else
    echo "setup: Sunfish could not be installed; the calibration's Sunfish anchor will not start" >&2
  fi
fi

if command -v pypy3 >/dev/null && [ ! -f .venv-pypy/.tempo-setup ]; then
  # Debian disables ensurepip for the system PyPy, but its venv module brings pip.
  pypy3 -m venv .venv-pypy
  .venv-pypy/bin/python -m pip install -q "chess==1.11.2"
  touch .venv-pypy/.tempo-setup
fi
