"""Where a tournament's games are played: `lab.tournament.Backend` implementations and settings.

`settings` (no Dask import, nothing of the run: the experiment loader and the CLI use it) reads
the `[backend]` table and the `--backend` options; `local` is the process pool on this machine
(`local_worker` is what its processes run); `dask` drives a tournament on a Dask cluster and
`worker` is what runs on each Dask worker, with `scaling` for its clocks.
"""
