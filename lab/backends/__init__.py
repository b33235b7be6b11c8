"""Backends other than the local process pool that play a `lab.runner.Tournament`'s games.

`lab.backends.config` (no Dask import: the experiment loader and the CLI use it) reads the
`[backend]` table and the `--backend` options; `lab.backends.dask` drives a tournament on a Dask
cluster; `lab.backends.worker` is what runs on each Dask worker.
"""
