"""Named engine definitions kept in their own TOML file, and settings shared by every engine.

An engines file (`--engines FILE`, or `engines_file = "FILE"` in an experiment) plays the part
of cutechess-cli's `engines.json`: each top-level table is one engine, named by its key, with the
keys of an experiment's `[[engines]]` table::

    [sf10]
    cmd = ["/usr/games/stockfish"]
    options = { "Skill Level" = 10 }

An experiment's `[[engines]]` entry takes one with `conf = "sf10"` (cutechess's word) and may
override any key. Settings for every engine (cutechess `-each`) come from an `[each]` table and
from `--each KEY=VALUE` words. From lowest to highest precedence: the definition, `[each]`, the
entry's own keys, `--each`; `options` tables merge option by option.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomllib

from lab.toml_table import read_toml


class EnginesFileError(ValueError):
    """An engines file or an `--each` word that cannot be used; the message names it."""


def load_engines_file(path: str | Path) -> dict[str, dict[str, Any]]:
    """The definitions of an engines file by name, relative `cmd` and `cwd` made absolute.

    Paths are taken from the engines file's folder, so one file serves experiments anywhere.
    """
    path = Path(path)
    data = read_toml(path, "engines file", EnginesFileError)
    if not data:
        raise EnginesFileError(f"{path}: no engines (one table per engine: [NAME])")
    base = path.parent.resolve()
    engines = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            raise EnginesFileError(f"{path}: key {name!r} must be a table [{name}] defining "
                                   f"an engine, got {table!r}")
        engines[name] = _absolute_paths(dict(table), base)
    return engines


def _absolute_paths(table: dict[str, Any], base: Path) -> dict[str, Any]:
    cwd = table.get("cwd")
    if isinstance(cwd, str):
        table["cwd"] = str((base / cwd).resolve())
    cmd = table.get("cmd")
    command = [cmd] if isinstance(cmd, str) else cmd
    if (isinstance(command, list) and command and isinstance(command[0], str)
            and os.sep in command[0] and not os.path.isabs(command[0])):
        folder = Path(table["cwd"]) if isinstance(cwd, str) else base
        table["cmd"] = [os.path.abspath(folder / command[0])] + command[1:]
    return table


def each_words(words: list[str]) -> dict[str, Any]:
    """`--each KEY=VALUE` words as a table: `tc=st=0.1`, `options.Hash=16`, `ponder=true`.

    A value is read as a TOML value when it is one (numbers, booleans, quoted strings, lists),
    else as a plain string.
    """
    table: dict[str, Any] = {}
    for word in words:
        key, sep, text = word.partition("=")
        key = key.strip()
        if not sep or not key:
            raise EnginesFileError(f"--each {word!r}: expected KEY=VALUE")
        value = _value(text.strip())
        head, dot, option = key.partition(".")
        if dot:
            if head != "options" or not option:
                raise EnginesFileError(f"--each {word!r}: only options.NAME may have a dot")
            table.setdefault("options", {})[option] = value
        else:
            table[key] = value
    return table


def _value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def merged(*layers: dict[str, Any]) -> dict[str, Any]:
    """Tables laid over one another, later keys winning; `options` merge option by option."""
    result: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            below = result.get(key)
            if key == "options" and isinstance(value, dict) and isinstance(below, dict):
                result[key] = {**below, **value}
            else:
                result[key] = value
    return result
