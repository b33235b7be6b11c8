"""Subcommands of `tempo`: each module here is one subcommand, found by `lab.cli`."""
