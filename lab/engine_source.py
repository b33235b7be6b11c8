"""The digest of our engine's sources in a checkout, so that a Dask worker can tell it runs the
engine the coordinator means.

`builtin = "tempo"` runs the coordinator's interpreter on the coordinator's checkout path
(`lab.experiment.builtin_command`); a worker runs whatever its own copy at that path holds. The
experiment records the digest of the coordinator's sources (`EngineSpec.source`) and each worker
compares its copy's before it plays (`lab.backends.worker`), as fishtest workers check an engine
build's bench signature: a worker a commit behind would otherwise play another engine under the
same name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: The folders of a checkout that make up our engine (its search, evaluation, strength tables and
#: time managers).
SOURCE_FOLDERS = ("engine", "timecontrol")


def source_digest(root: Path) -> str:
    """SHA-256 over every file of `SOURCE_FOLDERS` under `root` (compiled caches left out): each
    file's path relative to `root` and its bytes, in path order. `FileNotFoundError` when a folder
    is missing."""
    digest = hashlib.sha256()
    for folder in SOURCE_FOLDERS:
        base = root / folder
        if not base.is_dir():
            raise FileNotFoundError(f"{base} is not a folder")
        files = sorted(path for path in base.rglob("*")
                       if path.is_file() and "__pycache__" not in path.parts)
        for path in files:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
