"""Benchmarks of `tempo bench NAME`: each module here is one benchmark, found by `lab.commands.bench`."""
