"""Our engine at a git revision: the source tree of one commit, exported once into a cache folder.

An experiment's `revision = "<commit>"` (with `builtin = "tempo"`) plays the engine as it was at
that commit, as fishtest plays a Stockfish branch against its base. The revision is resolved to
its full commit hash in this repository (so `HEAD` or a branch name means the commit it names when
the experiment is loaded), and the commit's files are written with `git archive` into
`<cache>/<hash>/`, one folder per commit, shared by every experiment and never modified after it is
complete (it is written under a temporary name and renamed into place). The repository itself is
left alone: no `git worktree`, no checkout, no change to its index or branches.

The cache is `TEMPO_REVISION_CACHE` if set, else `$XDG_CACHE_HOME/tempo/revisions` (by default
`~/.cache/tempo/revisions`).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository whose history revisions are looked up in."""


class RevisionError(ValueError):
    """A revision that cannot be resolved or exported; the message names it."""


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """Where exported revisions live (see the module docstring)."""
    environ = dict(os.environ if environ is None else environ)
    if environ.get("TEMPO_REVISION_CACHE"):
        return Path(environ["TEMPO_REVISION_CACHE"]).expanduser()
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tempo" / "revisions"


def _git(repo: Path, *args: str) -> bytes:
    """Output of one git command in `repo`; RevisionError with git's message on failure."""
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise RevisionError("git is not installed; a 'revision' needs it") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise RevisionError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done.stdout


def resolve(revision: str, repo: Path = REPO_ROOT) -> str:
    """The full commit hash that `revision` (hash, prefix, branch, tag, `HEAD~1`) names."""
    if not revision.strip() or revision.startswith("-"):
        raise RevisionError(f"revision {revision!r} is not a commit name")
    try:
        out = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except RevisionError:
        raise RevisionError(f"revision {revision!r} is not a commit of {repo}") from None
    return out.decode().strip()


def has_commit(revision: str, repo: Path = REPO_ROOT) -> bool:
    """Whether `revision` names a commit of `repo` (a shallow clone lacks the older ones)."""
    try:
        resolve(revision, repo)
    except RevisionError:
        return False
    return True


def revision_tree(revision: str, repo: Path = REPO_ROOT,
                  cache: Path | None = None) -> tuple[str, Path]:
    """`revision`'s full commit hash and the folder holding its files, exported on first use."""
    commit = resolve(revision, repo)
    root = cache_root() if cache is None else cache
    tree = root / commit
    if (tree / "engine").is_dir():
        return commit, tree
    archive = _git(repo, "archive", "--format=tar", commit)
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=root))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(staging, filter="data")
        if not (staging / "engine").is_dir():
            raise RevisionError(f"revision {revision!r} ({commit[:12]}) has no engine/ folder")
        try:
            staging.rename(tree)
        except OSError:
            if not (tree / "engine").is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return commit, tree


def revision_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """What a revision's engine adds to its environment, so both sides of a match run under the
    same interpreter: `TEMPO_ENGINE_PYTHON` always (the harness's own, else `cpython`, the
    current launcher's default; an old tree's launcher would otherwise pick PyPy), and this
    checkout's PyPy as `TEMPO_PYPY` when it exists (an exported tree has no `.venv-pypy`), for an
    engine whose `interpreter` is `pypy`. An engine's `interpreter` key overrides the first."""
    environ = dict(os.environ if environ is None else environ)
    added = {"TEMPO_ENGINE_PYTHON": environ.get("TEMPO_ENGINE_PYTHON", "").strip() or "cpython"}
    pypy = environ.get("TEMPO_PYPY") or str(REPO_ROOT / ".venv-pypy" / "bin" / "python")
    if os.access(pypy, os.X_OK):
        added["TEMPO_PYPY"] = pypy
    return added
