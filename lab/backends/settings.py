"""Which backend plays the games: the `[backend]` TOML table and the `--backend` options.

No Dask import here, so experiments load and the CLI parses without the optional extra. The
settings say where the Dask scheduler is (None: the lab starts a `LocalCluster` on loopback) and
which TLS files to use; `lab.runner.choose_backend` turns them into the backend that plays the
games. Nothing of the run is imported here.

The table (every key optional)::

    [backend]
    kind = "dask"                      # or "local" (the default: the local process pool)
    scheduler = "tls://10.0.0.5:8786"  # absent: a LocalCluster on this machine
    workers = 4                        # LocalCluster only: worker processes (default: concurrency)
    tls_ca_file = "certs/ca.pem"       # all three or none; relative to the experiment file
    tls_cert = "certs/lab.pem"
    tls_key = "certs/lab.key"
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.toml_table import TomlTable

KINDS = ("local", "dask")
TABLE_KEYS = ("kind", "scheduler", "workers", "tls_ca_file", "tls_cert", "tls_key")
SCHEMES = ("tcp", "tls")


class BackendError(ValueError):
    """Backend settings or a cluster that cannot run the experiment; the message says why."""


@dataclass
class DaskSettings:
    """Where and how to reach Dask.

    `scheduler` is a `tcp://` or `tls://` address, or None for a `LocalCluster` of `n_workers`
    one-thread worker processes bound to 127.0.0.1 (None: one per game played at once). The TLS
    files (PEM) are used for every role (client, and for a LocalCluster also scheduler and
    workers); with them, `require_encryption` refuses unencrypted connections.
    """

    scheduler: str | None = None
    n_workers: int | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    require_encryption: bool = False

    @property
    def tls(self) -> bool:
        return self.ca_file is not None

    @classmethod
    def from_table(cls, table: Any, source: str, base: Path | None = None) -> DaskSettings | None:
        """Check a `[backend]` table; None for kind = "local". Relative paths start at `base`.

        Errors (`BackendError`) name `source` and the key: unknown keys, wrong types, a scheduler
        address that is not tcp:// or tls://, TLS files missing or given in part, `workers` with
        a scheduler.
        """
        checked = TomlTable(table, "[backend]", source, BackendError, TABLE_KEYS)
        where = f"{source}: [backend]"
        table = {key: checked.get(key, int if key == "workers" else str) for key in TABLE_KEYS
                 if key in checked.data}
        checked.done()
        kind = table.get("kind", "local")
        if kind not in KINDS:
            raise BackendError(f"{where}: key 'kind' must be one of {KINDS}, got {kind!r}")
        if kind == "local":
            extra = [key for key in TABLE_KEYS[1:] if key in table]
            if extra:
                raise BackendError(f"{where}: key '{extra[0]}' needs kind = \"dask\"")
            return None
        scheduler = table.get("scheduler")
        if scheduler is not None:
            scheduler = _check_address(scheduler, where)
        workers = table.get("workers")
        if workers is not None:
            if workers <= 0:
                raise BackendError(f"{where}: key 'workers' must be positive, got {workers}")
            if scheduler is not None:
                raise BackendError(f"{where}: key 'workers' sizes the LocalCluster the lab "
                                   "starts; with 'scheduler', the cluster's own workers play")
        paths = {key: table.get(key) for key in ("tls_ca_file", "tls_cert", "tls_key")}
        given = [key for key, value in paths.items() if value is not None]
        if given and len(given) < 3:
            missing = ", ".join(f"'{key}'" for key in paths if key not in given)
            raise BackendError(f"{where}: TLS needs tls_ca_file, tls_cert and tls_key; "
                               f"missing {missing}")
        files = {key: _existing(value, key, where, base) for key, value in paths.items()
                 if value is not None}
        if scheduler is not None:
            scheme = urlsplit(scheduler).scheme
            if scheme == "tls" and not files:
                raise BackendError(f"{where}: scheduler {scheduler} is tls:// but no "
                                   "certificates are given (tls_ca_file, tls_cert, tls_key)")
            if scheme == "tcp" and files:
                raise BackendError(f"{where}: TLS certificates are given but scheduler "
                                   f"{scheduler} is tcp://; write it as tls://")
        return cls(scheduler=scheduler, n_workers=workers, ca_file=files.get("tls_ca_file"),
                   cert_file=files.get("tls_cert"), key_file=files.get("tls_key"),
                   require_encryption=bool(files))


def _check_address(text: str, where: str) -> str:
    """A scheduler address as Dask takes it; a bare HOST:PORT means tcp://HOST:PORT."""
    address = text if "://" in text else f"tcp://{text}"
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in SCHEMES or not parts.hostname or port is None:
        raise BackendError(f"{where}: key 'scheduler' must look like tcp://HOST:PORT or "
                           f"tls://HOST:PORT, got {text!r}")
    return address


def _existing(value: str, key: str, where: str, base: Path | None) -> str:
    path = Path(value).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    if not path.is_file():
        raise BackendError(f"{where}: key '{key}': file {path} not found")
    return str(path.resolve())


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback address (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def exposure_warning(settings: DaskSettings) -> str | None:
    """The warning for an unencrypted scheduler another machine can reach, else None.

    A Dask scheduler runs whatever code its clients send: on a plain tcp:// address that is not
    loopback, anyone who can reach the port can run programs on every worker.
    """
    if settings.scheduler is None or settings.tls:
        return None
    host = urlsplit(settings.scheduler).hostname or ""
    if is_loopback(host):
        return None
    return (f"the Dask scheduler {settings.scheduler} is plain tcp:// on a non-loopback "
            "address: anyone who can reach that port can run code on every worker. Use TLS "
            "(tls:// with tls_ca_file, tls_cert, tls_key; see docs/dask.md) or a private network")


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """`--backend`, `--scheduler`, `--workers` and the TLS file options."""
    group = parser.add_argument_group(
        "backend", "where games are played; any of these replaces the file's [backend] table")
    group.add_argument("--backend", choices=KINDS,
                       help="local process pool (default) or a Dask cluster")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="Dask scheduler, tcp://HOST:8786 or tls://HOST:8786 (default with "
                       "--backend dask: a LocalCluster on this machine, loopback only)")
    group.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of that LocalCluster (default: --concurrency)")
    group.add_argument("--tls-ca-file", metavar="PEM", help="CA certificate for Dask TLS")
    group.add_argument("--tls-cert", metavar="PEM", help="certificate for Dask TLS")
    group.add_argument("--tls-key", metavar="PEM", help="private key for Dask TLS")


def settings_from_args(args: argparse.Namespace,
                       file_settings: DaskSettings | None = None) -> DaskSettings | None:
    """The settings the command line asks for; the file's when it names no backend option.

    A Dask option without `--backend` implies `--backend dask`; `--backend local` with a Dask
    option is an error. Relative TLS paths start at the current directory.
    """
    table: dict[str, Any] = {key: getattr(args, key) for key in TABLE_KEYS[1:]
                             if getattr(args, key, None) is not None}
    kind = getattr(args, "backend", None)
    if kind is None and not table:
        return file_settings
    if kind == "local" and table:
        option = "--" + next(iter(table)).replace("_", "-")
        raise BackendError(f"command line: {option} needs --backend dask")
    table["kind"] = kind or "dask"
    return DaskSettings.from_table(table, "command line")
