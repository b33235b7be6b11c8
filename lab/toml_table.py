"""One TOML table being read: typed keys popped one by one, then whatever is left is an error.

The one checker of every TOML table the lab reads (experiments, the `[backend]` table,
calibrations, engines files), so a wrong type or an unknown key is reported the same way everywhere:
`<file>: <table>: key 'x' must be int, got 'two'`, `<file>: <table>: unknown key 'ply'`.
Errors are raised as the reader's own exception class (a `ValueError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomllib


def read_toml(path: Path, what: str, error: type[ValueError] = ValueError) -> dict[str, Any]:
    """A TOML file's data; a missing or malformed file is `error` naming the file (`what` says
    which kind of file was expected, e.g. "experiment file")."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise error(f"{path}: {what} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML: {exc}") from None


class TomlTable:
    """A table's keys, popped as they are read; `done` refuses the ones nobody read."""

    def __init__(self, data: Any, where: str, source: str,
                 error: type[ValueError] = ValueError, known: Sequence[str] = ()) -> None:
        if not isinstance(data, dict):
            raise error(f"{source}: {where} must be a table, got {data!r}")
        self.data = dict(data)
        self.where = where
        self.source = source
        self.error_type = error
        self.known = tuple(known)

    def error(self, message: str) -> ValueError:
        """The reader's exception naming the file and the table."""
        return self.error_type(f"{self.source}: {self.where}: {message}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        """Pop `key`, checked to be of `kind` (a bool is not an int; an int is a float)."""
        value = self.data.pop(key, default)
        if value is None or value is default:
            return value
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            names = " or ".join(k.__name__ for k in kinds)
            raise self.error(f"key '{key}' must be {names}, got {value!r}")
        return value

    def positive(self, key: str, default: int | None = None) -> int | None:
        """Pop `key`, checked to be a positive integer."""
        value = self.get(key, int, default)
        if value is not None and value <= 0:
            raise self.error(f"key '{key}' must be a positive integer, got {value}")
        return value

    def table(self, key: str, known: Sequence[str] = ()) -> TomlTable:
        """Pop the sub-table `key` (empty when absent) as a table of its own."""
        return TomlTable(self.data.pop(key, {}), f"[{key}]" if self.where == "top level"
                         else f"{self.where}.{key}", self.source, self.error_type, known)

    def done(self) -> None:
        """Refuse the keys left unread, naming them (and the known ones, when given)."""
        if self.data:
            keys = ", ".join(f"'{k}'" for k in sorted(self.data))
            known = f" (known: {', '.join(self.known)})" if self.known else ""
            raise self.error(f"unknown key{'s' if len(self.data) > 1 else ''} {keys}{known}")
