"""The `[backend]` table, the `--backend` options and the exposure warning (no cluster needed)."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import pytest

from lab.backends.settings import (
    BackendError,
    DaskSettings,
    add_backend_arguments,
    exposure_warning,
    is_loopback,
    settings_from_args,
)


@pytest.fixture
def pem(tmp_path: Path) -> Path:
    """A folder with the three TLS file names (contents do not matter to the settings)."""
    for name in ("ca.pem", "lab.pem", "lab.key"):
        (tmp_path / name).write_text("x")
    return tmp_path


def table(**keys: object) -> dict[str, object]:
    return {"kind": "dask", **keys}


def test_kind_local_and_default_mean_the_process_pool() -> None:
    assert DaskSettings.from_table({}, "exp.toml") is None
    assert DaskSettings.from_table({"kind": "local"}, "exp.toml") is None


def test_dask_without_scheduler_is_a_local_cluster() -> None:
    settings = DaskSettings.from_table(table(workers=3), "exp.toml")
    assert settings == DaskSettings(scheduler=None, n_workers=3)
    assert not settings.tls


def test_bare_host_port_means_tcp() -> None:
    settings = DaskSettings.from_table(table(scheduler="10.0.0.5:8786"), "exp.toml")
    assert settings.scheduler == "tcp://10.0.0.5:8786"


def test_tls_paths_are_relative_to_the_experiment_folder(pem: Path) -> None:
    settings = DaskSettings.from_table(
        table(scheduler="tls://lab.example:8786", tls_ca_file="ca.pem", tls_cert="lab.pem",
              tls_key="lab.key"), "exp.toml", base=pem)
    assert settings.ca_file == str(pem / "ca.pem")
    assert settings.cert_file == str(pem / "lab.pem")
    assert settings.key_file == str(pem / "lab.key")
    assert settings.tls and settings.require_encryption


@pytest.mark.parametrize(("keys", "message"), [
    ({"kind": "dask", "schedular": "tcp://h:1"}, "exp.toml: [backend]: unknown key 'schedular'"),
    ({"kind": "slurm"}, "key 'kind' must be one of"),
    ({"kind": "local", "scheduler": "tcp://h:1"}, "key 'scheduler' needs kind = \"dask\""),
    ({"kind": "dask", "workers": "4"}, "key 'workers' must be int"),
    ({"kind": "dask", "workers": True}, "key 'workers' must be int"),
    ({"kind": "dask", "workers": 0}, "key 'workers' must be positive"),
    ({"kind": "dask", "scheduler": "tcp://h:1", "workers": 2}, "with 'scheduler'"),
    ({"kind": "dask", "scheduler": "http://h:8786"}, "tcp://HOST:PORT or tls://HOST:PORT"),
    ({"kind": "dask", "scheduler": "tcp://h"}, "tcp://HOST:PORT"),
    ({"kind": "dask", "scheduler": "tls://h:8786"}, "no certificates are given"),
    ({"kind": "dask", "tls_ca_file": "ca.pem"}, "missing 'tls_cert', 'tls_key'"),
    ({"kind": "dask", "tls_ca_file": "ca.pem", "tls_cert": "lab.pem", "tls_key": "gone.key"},
     "key 'tls_key': file"),
    ({"kind": "dask", "scheduler": "tcp://h:1", "tls_ca_file": "ca.pem", "tls_cert": "lab.pem",
      "tls_key": "lab.key"}, "write it as tls://"),
])
def test_bad_tables_name_the_file_and_key(pem: Path, keys: dict[str, object],
                                          message: str) -> None:
    with pytest.raises(BackendError, match="^exp.toml: \\[backend\\]") as err:
        DaskSettings.from_table(keys, "exp.toml", base=pem)
    assert message in str(err.value)


def test_backend_must_be_a_table() -> None:
    with pytest.raises(BackendError, match="exp.toml: \\[backend\\] must be a table"):
        DaskSettings.from_table("dask", "exp.toml")


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_backend_arguments(parser)
    return parser.parse_args(list(argv))


def test_command_line_settings(pem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(pem)
    from_file = DaskSettings(n_workers=5)
    assert settings_from_args(parse(), from_file) is from_file
    assert settings_from_args(parse("--backend", "local"), from_file) is None
    assert settings_from_args(parse("--backend", "dask")) == DaskSettings()
    assert settings_from_args(parse("--workers", "2")) == DaskSettings(n_workers=2)
    remote = settings_from_args(parse("--backend", "dask", "--scheduler", "tls://h:8786",
                                      "--tls-ca-file", "ca.pem", "--tls-cert", "lab.pem",
                                      "--tls-key", "lab.key"), from_file)
    assert remote.scheduler == "tls://h:8786"
    assert remote.ca_file == str(pem / "ca.pem") and remote.n_workers is None


def test_command_line_errors(pem: Path) -> None:
    with pytest.raises(BackendError, match="--scheduler needs --backend dask"):
        settings_from_args(parse("--backend", "local", "--scheduler", "tcp://h:1"))
    with pytest.raises(BackendError, match="^command line: \\[backend\\]: TLS needs"):
        settings_from_args(parse("--scheduler", "tls://h:1", "--tls-cert", str(pem / "lab.pem")))


def test_plain_tcp_off_loopback_warns(pem: Path) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("192.0.2.7")
    warning = exposure_warning(DaskSettings(scheduler="tcp://192.0.2.7:8786"))
    assert warning is not None and "tcp://192.0.2.7:8786" in warning and "TLS" in warning
    assert exposure_warning(DaskSettings(scheduler="tcp://127.0.0.1:8786")) is None
    assert exposure_warning(DaskSettings(scheduler="tcp://localhost:8786")) is None
    assert exposure_warning(DaskSettings()) is None
    tls = DaskSettings(scheduler="tls://192.0.2.7:8786", ca_file=str(pem / "ca.pem"),
                       cert_file=str(pem / "lab.pem"), key_file=str(pem / "lab.key"),
                       require_encryption=True)
    assert exposure_warning(tls) is None


def test_choose_backend() -> None:
    from lab.backends.dask import run_dask
    from lab.backends.local import run_local
    from lab.runner import choose_backend

    assert choose_backend(None) is run_local
    backend = choose_backend(DaskSettings(n_workers=2))
    assert isinstance(backend, functools.partial) and backend.func is run_dask
    assert backend.keywords == {"settings": DaskSettings(n_workers=2)}
