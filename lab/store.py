"""The results store: one SQLite file per results folder, the record of truth of a run.

Tables: `experiment` (the config and its identity, to refuse a different experiment into a used
folder), `engines` (name, options, binary path, id name, author, version), `games` (one row per
finished game) and `moves` (one row per engine move, telemetry as JSON expanded into `tm_<key>`
columns on reading; a move the harness saw as a ponderhit adds `"ponderhit": true` to that JSON,
so `tm_ponderhit`, rather than a column, which would take a schema version and change the
columns of moves.csv). A finished game goes in with its moves in ONE transaction, and a game id
already present is never written again, so a resumed run neither loses nor duplicates games.

Each table's columns are declared once (`Table`): its CREATE, its insert by column name and the
frames read from it follow that declaration. `PRAGMA user_version` holds the schema version:
a folder written before it was kept (0) has the same tables as version 1; version 2 added
`games.variant` (the rules a game's moves are read by), which a writer adds to an older store
(its games are standard chess) and a reader of one fills in; a store written by a later Tempo is
refused with a message saying so.

Durability: WAL journal with `synchronous=FULL`; a process killed at any instant (SIGKILL) leaves
either the whole game or nothing, and readers (notebooks, exports) can read while a run writes.

pandas is imported by the methods that return frames, not with the module: a run's coordinator
only writes, and its first game should not wait for pandas to load.
"""

from __future__ import annotations

import fcntl
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lab.records import GameRecord, GameSummary
from lab.variants import variant_board
from timecontrol.control import TimeControl

if TYPE_CHECKING:
    import pandas as pd

DB_NAME = "tempo.sqlite"
LOCK_NAME = "tempo.lock"

#: The store's schema version, kept in `PRAGMA user_version`. 0 is a folder written before the
#: version was kept (the same tables as version 1); 2 added `games.variant`; a folder of a later
#: version is refused.
SCHEMA_VERSION = 2
#: `games.variant` of a game stored before the column existed.
OLD_VARIANT = "standard"


@dataclass(frozen=True)
class Table:
    """One table: its columns (name, SQL type and constraints) declared once, in stored order,
    from which its CREATE and its insert by column name are made."""

    name: str
    columns: tuple[tuple[str, str], ...]
    constraints: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.columns]

    def create(self) -> str:
        lines = [f"{name} {sql}" for name, sql in self.columns] + list(self.constraints)
        return f"CREATE TABLE IF NOT EXISTS {self.name} (\n    " + ",\n    ".join(lines) + "\n);"

    def insert(self, verb: str = "INSERT") -> str:
        """`verb INTO table (columns) VALUES (:column, ...)`: rows are dicts by column name."""
        return (f"{verb} INTO {self.name} ({', '.join(self.names)}) "
                f"VALUES ({', '.join(':' + name for name in self.names)})")


EXPERIMENT = Table("experiment", (
    ("id", "INTEGER PRIMARY KEY CHECK (id = 1)"),
    ("name", "TEXT NOT NULL"),
    ("identity", "TEXT NOT NULL"),
    ("config", "TEXT NOT NULL"),
    ("created_at", "TEXT NOT NULL"),
    ("updated_at", "TEXT NOT NULL"),
))
ENGINES = Table("engines", (
    ("name", "TEXT PRIMARY KEY"),
    ("cmd", "TEXT"),
    ("protocol", "TEXT"),
    ("options", "TEXT"),
    ("binary", "TEXT"),
    ("id_name", "TEXT"),
    ("author", "TEXT"),
    ("version", "TEXT"),
    ("identity", "TEXT"),
    ("probed_at", "TEXT"),
))
GAMES = Table("games", (
    ("game_id", "TEXT PRIMARY KEY"),
    ("seq", "INTEGER NOT NULL"),
    ("round", "INTEGER"),
    ("pair_id", "TEXT"),
    ("white", "TEXT NOT NULL"),
    ("black", "TEXT NOT NULL"),
    ("result", "TEXT NOT NULL"),
    ("termination", "TEXT"),
    ("reason", "TEXT"),
    ("tc", "TEXT"),
    ("opening_fen", "TEXT"),
    ("opening_moves", "TEXT"),
    ("started_at", "TEXT"),
    ("finished_at", "TEXT"),
    ("plies", "INTEGER"),
    ("white_tc", "TEXT"),
    ("black_tc", "TEXT"),
    ("final_fen", "TEXT"),
    ("illegal_move", "TEXT"),
    ("worker", "TEXT"),
    ("variant", f"TEXT NOT NULL DEFAULT '{OLD_VARIANT}'"),  # last: where ALTER TABLE puts it
))
MOVES = Table("moves", (
    ("game_id", "TEXT NOT NULL REFERENCES games(game_id)"),
    ("ply", "INTEGER NOT NULL"),
    ("side", "TEXT NOT NULL"),
    ("engine", "TEXT NOT NULL"),
    ("move", "TEXT NOT NULL"),
    ("san", "TEXT"),
    ("elapsed_ms", "REAL"),
    ("clock_before_ms", "REAL"),
    ("clock_after_ms", "REAL"),
    ("reported_ms", "REAL"),
    ("depth", "INTEGER"),
    ("seldepth", "INTEGER"),
    ("score_cp", "INTEGER"),
    ("score_mate", "INTEGER"),
    ("nodes", "INTEGER"),
    ("nps", "INTEGER"),
    ("pv", "TEXT"),
    ("turnaround_ms", "REAL"),
    ("telemetry", "TEXT"),
), ("PRIMARY KEY (game_id, ply)",))
TABLES = (EXPERIMENT, ENGINES, GAMES, MOVES)

#: The games frame's columns (`Store.games`): every stored column but the finishing order and
#: the worker JSON, which is expanded into `worker_<key>` columns after them.
GAME_COLUMNS = [name for name in GAMES.names if name not in ("seq", "worker")]
#: The moves frame's columns (`Store.moves`, and so moves.csv), in their order: each move with
#: its game's players; the telemetry JSON is expanded into `tm_<key>` columns after them.
MOVE_COLUMNS = ["game_id", "white", "black", "side", "engine", "ply", "move", "san",
                "elapsed_ms", "clock_before_ms", "clock_after_ms", "reported_ms", "depth",
                "seldepth", "score_cp", "score_mate", "nodes", "nps", "pv", "turnaround_ms"]

#: The pandas dtype of each moves-frame column, from its declared SQL type: whole numbers as
#: nullable integers, reals as floats (NaN where missing), text as pandas infers it (the string
#: dtype of pandas 3, object before).
_MOVE_DTYPES = {name: {"INTEGER": "Int64", "REAL": "float64", "TEXT": None}[sql.split()[0]]
                for name, sql in (*MOVES.columns, ("white", "TEXT"), ("black", "TEXT"))
                if name in MOVE_COLUMNS}


class StoreError(RuntimeError):
    """A results folder that cannot take this run (another experiment's, or unreadable)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _canonical(data: Any) -> str:
    """JSON with sorted keys, so equal configs give equal text."""
    return json.dumps(data, sort_keys=True, default=str)


def _plain(value: Any) -> Any:
    """Dataclasses as dicts, everything else as JSON allows (for engine identities)."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, dict):
        return value
    return {"repr": repr(value)}


class Store:
    """An open results store (use `open_store`)."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self._lock: Any = None
        if readonly:
            self.conn = _connect_readonly(path)
            try:
                self.version = _check_version(self.conn, path)
            except StoreError:
                self.conn.close()
                raise
            self._game_columns = _game_selection(self.conn)
            return
        self.conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        try:
            self.version = _check_version(self.conn, path)
        except StoreError:
            self.conn.close()
            raise
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.executescript("\n".join(table.create() for table in TABLES))
        if self.version < SCHEMA_VERSION:  # a new store, or one of an older version
            if "variant" not in _column_names(self.conn, GAMES.name):
                self.conn.execute(f"ALTER TABLE games ADD COLUMN variant "
                                  f"{dict(GAMES.columns)['variant']}")
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._game_columns = _game_selection(self.conn)

    def close(self) -> None:
        """Close the connection (the data is already committed) and any run lock."""
        self.conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def lock_for_run(self) -> None:
        """Claim the folder for one run; `StoreError` if another run holds it.

        An advisory `flock` on `tempo.lock` beside the database: the kernel drops it when the
        process ends, however it ends (SIGKILL included), so a killed run never blocks a resume.
        Readers (exports, notebooks) do not take it.
        """
        handle = open(self.path.with_name(LOCK_NAME), "a+")  # held until close
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StoreError(f"{self.path.parent}: another tempo run is using this "
                             "folder") from None
        self._lock = handle

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- experiment and engines ---------------------------------------------------------------

    def experiment(self) -> dict[str, Any] | None:
        """The stored experiment config, or None for a fresh store."""
        row = self.conn.execute("SELECT config FROM experiment WHERE id = 1").fetchone()
        return json.loads(row[0]) if row else None

    def bind_experiment(self, name: str, identity: dict[str, Any], config: dict[str, Any],
                        overwrite: bool = False,
                        earlier: Sequence[dict[str, Any]] = ()) -> bool:
        """Claim the store for an experiment; True when it resumes one already there.

        A store holding a different experiment (another identity) is refused with `StoreError`
        unless `overwrite`, which deletes everything in it first. A store holding one of
        `earlier`, the same experiment's identity as older versions wrote it, resumes and is
        given the new one.
        """
        ident = _canonical(identity)
        row = self.conn.execute("SELECT name, identity FROM experiment WHERE id = 1").fetchone()
        changed = self.settings_changed(identity, earlier)
        if changed:
            if not overwrite:
                raise StoreError(
                    f"{self.path} holds another experiment ({row[0]!r}) whose settings differ "
                    f"({'; '.join(changed[:5])}); use another output folder or --overwrite to "
                    "replace it"
                )
            self.clear()
            row = None
        now = _now()
        with self.transaction():
            if row is None:
                self.conn.execute(EXPERIMENT.insert(), {
                    "id": 1, "name": name, "identity": ident, "config": _canonical(config),
                    "created_at": now, "updated_at": now})
            else:
                self.conn.execute(
                    "UPDATE experiment SET identity = ?, config = ?, updated_at = ? WHERE id = 1",
                    (ident, _canonical(config), now),
                )
        return row is not None

    def settings_changed(self, identity: dict[str, Any],
                         earlier: Sequence[dict[str, Any]] = ()) -> list[str]:
        """How the experiment this store holds differs from `identity`: empty for a fresh store
        and for that experiment, as this or an older version (`earlier`) wrote it. Reads only."""
        row = self.conn.execute("SELECT identity FROM experiment WHERE id = 1").fetchone()
        ident = _canonical(identity)
        if row is None or row[0] == ident or row[0] in {_canonical(old) for old in earlier}:
            return []
        return differences(json.loads(row[0]), json.loads(ident)) or [f"{row[0]} -> {ident}"]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction: committed when the block ends, rolled back when it raises.

        An interrupt (Ctrl-C, SIGTERM as `lab.interrupt.Terminated`) can arrive just after BEGIN
        or COMMIT has run: an open transaction is rolled back, a committed one is left as it is
        (there is nothing to roll back), and the interrupt itself reaches the caller rather
        than "cannot rollback - no transaction is active".
        """
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            yield
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def clear(self) -> None:
        """Delete every experiment, engine, game and move (for an overwrite)."""
        with self.transaction():
            for table in reversed(TABLES):
                self.conn.execute(f"DELETE FROM {table.name}")

    def save_engines(self, specs: Iterable[Any], identities: dict[str, Any]) -> None:
        """Record each engine's spec and probed identity (replacing an earlier probe)."""
        now = _now()
        with self.transaction():
            for spec in specs:
                ident = _plain(identities.get(spec.name))
                self.conn.execute(ENGINES.insert("INSERT OR REPLACE"), {
                    "name": spec.name, "cmd": json.dumps(spec.cmd), "protocol": spec.protocol,
                    "options": _canonical(spec.options),
                    "binary": ident.get("path") or ident.get("binary"),
                    "id_name": ident.get("name"), "author": ident.get("author"),
                    "version": ident.get("version"), "identity": _canonical(ident),
                    "probed_at": now})

    def engines(self) -> pd.DataFrame:
        """One row per engine: name, cmd, protocol, options, binary, id_name, author, version."""
        import pandas as pd

        return pd.read_sql_query("SELECT * FROM engines ORDER BY name", self.conn)

    # --- games --------------------------------------------------------------------------------

    def add_game(self, record: GameRecord) -> bool:
        """Store a finished game and its moves in one transaction; False if already stored.

        Each move's side and mover are found by replaying the game from its opening, so the
        store never holds a move that is illegal in its position.
        """
        rows = move_rows(record)
        with self.transaction():
            exists = self.conn.execute(
                "SELECT 1 FROM games WHERE game_id = ?", (record.game_id,)
            ).fetchone()
            if not exists:
                seq = self.conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM games").fetchone()[0]
                self.conn.execute(GAMES.insert(), game_row(record, seq))
                self.conn.executemany(MOVES.insert(), rows)
        return not exists

    def finished_ids(self) -> set[str]:
        """Ids of the games already stored."""
        return {row[0] for row in self.conn.execute("SELECT game_id FROM games")}

    def game_count(self) -> int:
        """How many games are stored."""
        return int(self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def games(self, game_ids: Iterable[str] | None = None) -> pd.DataFrame:
        """One row per game (all, or those of `game_ids`) in the order they finished, worker
        fields as `worker_<key>`."""
        query = f"SELECT {self._game_columns}, worker FROM games"
        query, params = _only(query, "game_id", game_ids)
        rows = self.conn.execute(query + " ORDER BY seq", params).fetchall()
        return _frame_with_json(rows, GAME_COLUMNS, "worker_")

    def summaries(self, game_ids: Iterable[str]) -> list[GameSummary]:
        """Players, result, termination, reason and pair of the stored games among `game_ids`,
        in finishing order (what a resumed tournament counts)."""
        wanted = set(game_ids)
        rows = self.conn.execute("SELECT game_id, white, black, result, termination, reason, "
                                 "pair_id FROM games ORDER BY seq").fetchall()
        return [GameSummary(*row[1:]) for row in rows if row[0] in wanted]

    def result_rows(self) -> list[tuple[str, str, str]]:
        """(white, black, result) of every game in finishing order: what a rating fit needs,
        without the other columns, and without pandas."""
        return self.conn.execute("SELECT white, black, result FROM games ORDER BY seq").fetchall()

    def moves(self, game_ids: Iterable[str] | None = None,
              columns: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per engine move (games in finishing order), telemetry as `tm_<key>` columns.

        `columns` (default: all of `MOVE_COLUMNS` and a `tm_<key>` column per telemetry key
        found) reads only those, in that order (the page reads the 100k moves of `tempo bench
        page` in a fifth less time with the 20 columns it shows). A `tm_<key>` asked for is SQLite's
        `json_extract` of the key (missing where a move did not report it; JSON true/false as 1
        and 0).
        """
        import pandas as pd

        wanted = list(MOVE_COLUMNS if columns is None else columns)
        unknown = [c for c in wanted if c not in MOVE_COLUMNS and not c.startswith("tm_")]
        if unknown:
            raise ValueError(f"no moves column {', '.join(map(repr, unknown))}")
        plain = [c for c in wanted if c in MOVE_COLUMNS]
        keys = [c for c in wanted if c not in MOVE_COLUMNS]
        select = [("g." if c in ("white", "black") else "m.") + c for c in plain]
        extract = ["json_extract(m.telemetry, ?)"] * len(keys)
        select += ["m.telemetry"] if columns is None else extract
        query = f"SELECT {', '.join(select)} FROM moves m JOIN games g USING (game_id)"
        query, params = _only(query, "m.game_id", game_ids)
        paths = [f'$."{key[3:]}"' for key in keys]
        rows = self.conn.execute(query + " ORDER BY g.seq, m.ply", paths + params).fetchall()
        values = list(zip(*rows)) or [()] * len(select)
        frame = pd.DataFrame({c: pd.Series(v, dtype=_MOVE_DTYPES[c])
                              for c, v in zip(plain, values, strict=False)})
        if columns is None:
            return _with_json(frame, values[-1], "tm_")
        for key, found in zip(keys, values[len(plain):], strict=True):
            frame[key] = pd.Series(found, dtype=None if found else float)
        return frame[wanted]


def _column_names(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _game_selection(conn: sqlite3.Connection) -> str:
    """The games frame's columns as a SELECT list: a store read as it was written before
    `games.variant` existed gives its games the variant they were played in, standard."""
    present = set(_column_names(conn, GAMES.name))
    return ", ".join(name if name in present else f"'{OLD_VARIANT}' AS {name}"
                     for name in GAME_COLUMNS)


def _only(query: str, column: str, game_ids: Iterable[str] | None) -> tuple[str, list[str]]:
    """`query` restricted to `game_ids` (unchanged for None), and its parameters."""
    if game_ids is None:
        return query, []
    ids = list(game_ids)
    return f"{query} WHERE {column} IN ({', '.join('?' * len(ids))})", ids


def _text(control: TimeControl | None) -> str:
    """A time control as its column holds it: the canonical text, '' for none."""
    return "" if control is None else str(control)


def game_row(record: GameRecord, seq: int) -> dict[str, Any]:
    """A finished game as its `games` row (by column name); `seq` is its finishing order.

    A side without a time control of its own played the game's."""
    return {
        "game_id": record.game_id, "seq": seq, "round": record.round, "pair_id": record.pair_id,
        "white": record.white, "black": record.black, "result": record.result,
        "termination": str(record.termination), "reason": record.reason, "tc": _text(record.tc),
        "opening_fen": record.opening_fen, "opening_moves": " ".join(record.opening_moves),
        "started_at": record.started_at, "finished_at": record.finished_at,
        "plies": len(record.moves), "white_tc": _text(record.white_tc or record.tc),
        "black_tc": _text(record.black_tc or record.tc), "final_fen": record.final_fen,
        "illegal_move": record.illegal_move, "worker": _canonical(record.worker),
        "variant": str(record.variant),
    }


def move_rows(record: GameRecord) -> list[dict[str, Any]]:
    """A finished game's `moves` rows (by column name), each move's side and mover found by
    replaying the game from its opening; `ValueError` for a move illegal in its position. The
    telemetry JSON carries `ponderhit` for a ponderhit move (module docstring)."""
    import chess  # here only: reading a store (ratings, plots) needs no move rules

    board = variant_board(record.opening_fen, record.variant)
    for uci in record.opening_moves:
        board.push_uci(uci)
    rows = []
    for move in record.moves:
        white, search = board.turn == chess.WHITE, move.search
        parsed = chess.Move.from_uci(move.move)
        if parsed not in board.legal_moves:
            raise ValueError(f"game {record.game_id}: ply {move.ply}: {move.move} is illegal "
                             f"in {board.fen()}")
        board.push(parsed)
        telemetry = {**search.telemetry, "ponderhit": True} if move.ponderhit else search.telemetry
        rows.append({
            "game_id": record.game_id, "ply": move.ply, "side": "white" if white else "black",
            "engine": record.white if white else record.black, "move": move.move,
            "san": move.san, "elapsed_ms": move.elapsed_ms,
            "clock_before_ms": move.clock_before_ms, "clock_after_ms": move.clock_after_ms,
            "reported_ms": search.reported_ms, "depth": search.depth,
            "seldepth": search.seldepth, "score_cp": search.score_cp,
            "score_mate": search.score_mate, "nodes": search.nodes, "nps": search.nps,
            "pv": search.pv, "turnaround_ms": move.turnaround_ms,
            "telemetry": json.dumps(telemetry) if telemetry else None,
        })
    return rows


def _frame_with_json(rows: list[tuple[Any, ...]], columns: list[str], prefix: str
                     ) -> pd.DataFrame:
    """A frame of query rows whose last value is a JSON object (or NULL): `columns`, then one
    `<prefix><key>` column per key found in any row (`_with_json`)."""
    import pandas as pd

    frame = pd.DataFrame.from_records(rows, columns=[*columns, "json"], exclude=["json"],
                                      coerce_float=True)
    return _with_json(frame, [row[-1] for row in rows], prefix)


def _with_json(frame: pd.DataFrame, texts: Sequence[str | None], prefix: str) -> pd.DataFrame:
    """`frame` and one `<prefix><key>` column per key found in any of `texts` (JSON objects or
    None, one per row), missing values NaN. The texts are parsed in one call and the columns
    built by pandas from the dicts directly: about 25 % less time than a loop over the rows."""
    import pandas as pd

    parsed = json.loads("[" + ",".join(text or "{}" for text in texts) + "]")
    keys = sorted({key for item in parsed for key in item})
    if not keys:
        return frame
    extra = pd.DataFrame.from_records(parsed, columns=keys, index=frame.index)
    return pd.concat([frame, extra.add_prefix(prefix)], axis=1)


def differences(stored: Any, given: Any, path: str = "") -> list[str]:
    """Where two experiment identities differ, as `key: stored -> given` (dotted keys, list
    positions in brackets), so a refused results folder says which setting changed."""
    if isinstance(stored, dict) and isinstance(given, dict):
        found = []
        for key in sorted(set(stored) | set(given)):
            where = f"{path}.{key}" if path else str(key)
            found += differences(stored.get(key), given.get(key), where)
        return found
    if isinstance(stored, list) and isinstance(given, list) and len(stored) == len(given):
        return [item for k, (a, b) in enumerate(zip(stored, given))
                for item in differences(a, b, f"{path}[{k}]")]
    return [] if stored == given else [f"{path or 'experiment'}: {stored!r} -> {given!r}"]


def _check_version(conn: sqlite3.Connection, path: Path) -> int:
    """The store's schema version; `StoreError` for one written by a later Tempo."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path}: written by a newer Tempo (store schema version {version}; "
                         f"this one knows versions up to {SCHEMA_VERSION}): upgrade Tempo to "
                         "read or resume it")
    return version


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that writes nothing: `mode=ro`, or, where even a read lock cannot be taken
    (a WAL store on a read-only disk has no `-shm` file to map), `immutable=1`."""
    uri = path.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        conn.close()
        conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    return conn


def read_store(folder: str | Path) -> Store:
    """Open the existing store in `folder` for reading only: nothing in the folder is created or
    written, so analysis works on a read-only disk and never turns a folder into a store."""
    path = Path(folder) / DB_NAME
    if not path.is_file():
        raise StoreError(f"{folder}: no {DB_NAME} here, not a results folder")
    try:
        return Store(path, readonly=True)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: not a readable results store: {exc}") from None


def open_store(folder: str | Path) -> Store:
    """Open (creating folder and file if missing) the store `folder/tempo.sqlite`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return Store(folder / DB_NAME)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{folder / DB_NAME}: not a readable results store: {exc}") from None
