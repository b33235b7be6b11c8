"""Benchmarks of `tempo bench NAME`: one per module here (found by `lab.commands.bench`)."""
