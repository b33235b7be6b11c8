"""`tempo match ENGINE ENGINE`: a two-engine experiment from a few command-line words.

Each word becomes an `[[engines]]` table (`engine_table`), and the whole is checked as a file
would be (`lab.experiment_file.parse_experiment`).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Collection
from pathlib import Path
from typing import Any

from lab.engines_file import EnginesFileError, load_engines_file
from lab.experiment import (
    BUILTIN_ENGINES,
    DEFAULT_BOOK,
    Experiment,
    ExperimentError,
    Overrides,
    load_book_for,
)
from lab.experiment_file import parse_experiment
from lab.variants import Variant

#: Characters kept out of the names `tempo match` makes up (they become folder names).
UNSAFE_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9._=+,-]+")


def _option_value(text: str) -> str | int | bool:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return int(text)
    except ValueError:
        return text.strip()


def _given_name(word: str, name: str) -> str:
    """A `name=` value, refused when empty or when it could not be a folder name."""
    if not name or UNSAFE_NAME_CHARACTERS.search(name) or name in (".", ".."):
        raise ExperimentError(f"engine {word!r}: name={name!r} must be non-empty and use only "
                              "letters, digits and . _ = + , -")
    return name


def engine_table(word: str, defined: Collection[str] = ()) -> dict[str, Any]:
    """An `[[engines]]` table from a command-line word.

    A name in `defined` (an engines file's) is that engine; `tempo` is our engine; anything
    else is a program (a name on PATH, in /usr/games, or a path),
    `xboard=PROGRAM` for an XBoard engine. Options follow a colon, comma-separated:
    `tempo:TimeManager=fraction`, `stockfish:Skill Level=3,Threads=1`. `name=NAME` among them
    names the engine, as cutechess's and fastchess's `name=` do (without it the name is made up
    from the program and its options).
    """
    head, _, tail = word.partition(":")
    table: dict[str, Any] = {}
    if head.startswith("xboard="):
        table["protocol"] = "xboard"
        head = head.removeprefix("xboard=")
    if head in defined and "protocol" not in table:
        table["conf"] = head
    elif head in BUILTIN_ENGINES and "protocol" not in table:
        table["builtin"] = head
    else:
        program = head
        if os.sep not in program and shutil.which(program) is None:
            games = Path("/usr/games") / program
            program = str(games) if games.exists() else program
        table["cmd"] = [program]
    options = {}
    for item in filter(None, (part.strip() for part in tail.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ExperimentError(f"engine {word!r}: option {item!r} needs NAME=VALUE")
        if key.strip() == "name":
            table["name"] = _given_name(word, value.strip())
            continue
        options[key.strip()] = _option_value(value)
    if options:
        table["options"] = options
    return table


def quick_experiment(words: list[str], tc: str, games: int, name: str | None = None,
                     book: str | None = None, concurrency: int | None = None,
                     out: str | None = None, paired: bool = True,
                     log: str | None = None, overrides: Overrides | None = None) -> Experiment:
    """A two-engine match from command-line words, checked like a file.

    Without `book`, the repository's balanced 8-ply book is used when it is there (in random
    order), so that paired games do not all start from the same position; a Chess960 or DFRC
    match (`overrides.variant`) plays its variant's start positions instead. `overrides` brings
    the run options `tempo match` shares with `tempo gauntlet` (`--margin`, `--engines`,
    `--each`, `--wait`, `--pgn-out`, `--epd-out`); a word naming an engine of the engines file
    is that engine.
    """
    overrides = overrides or Overrides()
    if paired and games % 2:
        raise ExperimentError(f"--games {games}: must be even with paired openings (each "
                              "opening is played twice, colours reversed)")
    try:
        defined = (load_engines_file(overrides.engines_file)
                   if overrides.engines_file is not None else {})
    except EnginesFileError as exc:
        raise ExperimentError(f"--engines: {exc}") from None
    tables = [engine_table(word, defined) for word in words]
    seen: dict[str, int] = {}
    for table, word in zip(tables, words, strict=True):
        if "name" in table:
            continue
        base = table.get("conf") or table.get("builtin") or Path(table["cmd"][0]).stem
        base = f"{base}-{word.partition(':')[2]}" if ":" in word else base
        base = UNSAFE_NAME_CHARACTERS.sub("_", base)
        seen[base] = seen.get(base, 0) + 1
        table["name"] = base if seen[base] == 1 else f"{base}_{seen[base]}"
    data: dict[str, Any] = {
        "name": name or "match-" + "-vs-".join(t["name"] for t in tables),
        "tc": tc,
        "schedule": {"type": "gauntlet", "challengers": [tables[0]["name"]], "games": games},
        "openings": {"paired": paired},
        "engines": tables,
    }
    if book is None and overrides.variant in (None, Variant.STANDARD) and DEFAULT_BOOK.exists():
        book = str(DEFAULT_BOOK)
    if book is not None:
        data["openings"]["file"] = str(Path(book).resolve())
        data["openings"]["order"] = "random"
    if concurrency is not None:
        data["concurrency"] = concurrency
    if out is not None:
        data["out"] = out
    if log is not None:
        data["log"] = {"dir": log}
    experiment = parse_experiment(data, "tempo match", Path.cwd(), overrides)
    experiment.book = load_book_for(experiment)
    return experiment
