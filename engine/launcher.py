"""`tempo-engine` / `tempo engine`: run the engine under the current interpreter (CPython), or PyPy
on request.

The interpreter is chosen by `TEMPO_ENGINE_PYTHON`: `cpython` or unset is the current interpreter,
`pypy` is PyPy from `TEMPO_PYPY` or the repository's `.venv-pypy`, anything else a path. CPython is
the default because it is the faster at the search lengths users run: PyPy's JIT warms up over
tens of seconds of search, and `tempo bench engine` measured bench 21.4k nodes/s on CPython
against 4.3k on PyPy, and median depth 8 against 7 in 1 s (README, "The engine"). The engine
process replaces this one (`os.execv`), so a harness talks to the real engine directly; the
repository root goes on PYTHONPATH because the PyPy venv only has python-chess installed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The directory holding the `engine` and `timecontrol` packages."""


class LauncherError(RuntimeError):
    """The requested interpreter cannot be found."""


def find_pypy(environ: dict[str, str]) -> str | None:
    """PyPy from `TEMPO_PYPY`, else the repository's PyPy venv, if it exists."""
    candidates = [environ.get("TEMPO_PYPY", ""), str(REPO_ROOT / ".venv-pypy" / "bin" / "python")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def choose_interpreter(environ: dict[str, str] | None = None) -> str:
    """The interpreter the engine should run under (see the module docstring)."""
    environ = dict(os.environ if environ is None else environ)
    forced = environ.get("TEMPO_ENGINE_PYTHON", "").strip()
    if not forced or forced.lower() == "cpython":
        return sys.executable
    if forced.lower() == "pypy":
        pypy = find_pypy(environ)
        if pypy is None:
            raise LauncherError(
                "TEMPO_ENGINE_PYTHON=pypy but no PyPy found (set TEMPO_PYPY or create "
                f"{REPO_ROOT / '.venv-pypy'})"
            )
        return pypy
    if not os.access(forced, os.X_OK):
        raise LauncherError(f"TEMPO_ENGINE_PYTHON={forced}: not an executable")
    return forced


def engine_command(argv: list[str], environ: dict[str, str] | None = None) -> list[str]:
    """The full command line that runs this checkout's engine with `argv`: the repository root
    is put first on the path, since `python -m engine` would take the working directory's
    `engine` first (another checkout's, when the working directory is one)."""
    start = (f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r}); "
             "from engine.uci import main; sys.exit(main())")
    return [choose_interpreter(environ), "-c", start, *argv]


def engine_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for the engine process: PYTHONPATH starts with the repository root."""
    env = dict(os.environ if environ is None else environ)
    paths = [str(REPO_ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def main(argv: list[str] | None = None) -> int:
    """Replace this process by the engine under the chosen interpreter (returns only on error)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        command = engine_command(args)
    except LauncherError as error:
        print(f"tempo-engine: {error}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execve(command[0], command, engine_environment())
    return 0
