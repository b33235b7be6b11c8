"""What an engine process said and heard: an I/O log and its stderr, one pair of files per process.

As fastchess's `-log` and cutechess-cli's `-debug`: with an I/O folder every line written to and
read from an engine goes to `<folder>/<engine>-<pid>.log`, each stamped with the wall clock (UTC,
microseconds) and its direction (`>` to the engine, `<` from it, `!` its stderr). Independently,
the engine's stderr is kept in `<folder>/<engine>-<pid>.stderr` (created on its first line) and
bounded: past half the limit the file becomes `.stderr.1` (replacing an older one) and a new one
starts, so at most `stderr_limit` bytes are kept and the latest lines (a crash's trace) are never
the ones dropped. The last stderr lines are also kept in memory for the game's termination reason.
"""

from __future__ import annotations

import logging
import os
import re
import signal
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO

#: Bytes of stderr kept per engine process by default (two files of half this at most).
STDERR_LIMIT = 256 * 1024
#: Lines and characters of stderr quoted in a game's termination reason.
TAIL_LINES = 5
TAIL_CHARS = 400

_UNSAFE = re.compile(r"[^A-Za-z0-9._=+-]+")
LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class EngineLogs:
    """Where a run keeps its engines' traffic and stderr; None keeps nothing there."""

    io_dir: str | None = None
    stderr_dir: str | None = None
    stderr_limit: int = STDERR_LIMIT


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def exit_description(code: int | None) -> str:
    """An exit status in words: 'exit code 139', 'killed by signal 11 (SIGSEGV)', or 'still
    running'."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            return f"killed by signal {-code}"
        return f"killed by signal {-code} ({name})"
    return f"exit code {code}"


class EngineTranscript:
    """The I/O log and stderr of one engine process.

    Lines arriving before `open` (between the process starting and its pid being known) are held
    and written once the files are named. A file that cannot be written once the engine runs is
    given up with a warning: a full disk must not look like a dying engine.
    """

    def __init__(self) -> None:
        self.logs: EngineLogs | None = None
        self.prefix = ""
        self._held: list[tuple[str, str, str]] = []
        self._io: IO[str] | None = None
        self._stderr: IO[str] | None = None
        self._stderr_bytes = 0
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)

    def open(self, logs: EngineLogs, name: str, pid: int) -> None:
        """Name the files after the engine and its pid; write what was held. `OSError` when the
        I/O log cannot be created."""
        self.logs = logs
        self.prefix = f"{_UNSAFE.sub('_', name)}-{pid}"
        if logs.io_dir is not None:
            os.makedirs(logs.io_dir, exist_ok=True)
            path = os.path.join(logs.io_dir, f"{self.prefix}.log")
            self._io = open(path, "a", encoding="utf-8", buffering=1)
            self._io.write(f"{_stamp()} # engine {name!r}, pid {pid}\n")
        held, self._held = self._held, []
        for stamp, direction, line in held:
            self._write(stamp, direction, line)

    def sent(self, line: str) -> None:
        """A line written to the engine's stdin."""
        self._record(">", line)

    def received(self, line: str) -> None:
        """A line read from the engine's stdout."""
        self._record("<", line)

    def stderr(self, line: str) -> None:
        """A line read from the engine's stderr."""
        self.tail.append(line)
        self._record("!", line)

    def stderr_tail(self) -> str:
        """The last stderr lines, joined with ' | ' and cut to the last `TAIL_CHARS` characters."""
        text = " | ".join(line.strip() for line in self.tail if line.strip())
        return text if len(text) <= TAIL_CHARS else "..." + text[-TAIL_CHARS:]

    def close(self) -> None:
        """Close the files (the transcript may still collect a tail in memory)."""
        for handle in (self._io, self._stderr):
            if handle is not None:
                handle.close()
        self._io = self._stderr = None

    def _record(self, direction: str, line: str) -> None:
        if self.logs is None:
            if len(self._held) < 1000:
                self._held.append((_stamp(), direction, line))
            return
        if self._io is not None or (direction == "!" and self.logs.stderr_dir is not None):
            self._write(_stamp(), direction, line)

    def _write(self, stamp: str, direction: str, line: str) -> None:
        assert self.logs is not None
        if self._io is not None:
            try:
                self._io.write(f"{stamp} {direction} {line}\n")
            except OSError as err:
                LOGGER.warning("%s: I/O log given up: %s", self.prefix, err)
                self._io = None
        if direction == "!" and self.logs.stderr_dir is not None:
            try:
                self._write_stderr(line + "\n")
            except OSError as err:
                LOGGER.warning("%s: stderr file given up: %s", self.prefix, err)
                self.logs = EngineLogs(self.logs.io_dir, None, self.logs.stderr_limit)

    def _write_stderr(self, text: str) -> None:
        assert self.logs is not None and self.logs.stderr_dir is not None
        path = os.path.join(self.logs.stderr_dir, f"{self.prefix}.stderr")
        text = text[:max(1, self.logs.stderr_limit // 2)]
        size = len(text.encode("utf-8", "replace"))
        if self._stderr is not None and self._stderr_bytes + size > self.logs.stderr_limit // 2:
            self._stderr.close()
            os.replace(path, path + ".1")
            self._stderr = None
        if self._stderr is None:
            os.makedirs(self.logs.stderr_dir, exist_ok=True)
            self._stderr = open(path, "w", encoding="utf-8", errors="replace", buffering=1)
            self._stderr_bytes = 0
        self._stderr.write(text)
        self._stderr_bytes += size
