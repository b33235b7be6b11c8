"""A tiny XBoard engine that lacks the `setboard` feature, as Debian's fairymax does.

It only answers the handshake (`protover` -> features, `ping N` -> `pong N`); run with
sys.executable.
"""

from __future__ import annotations

import sys


def main() -> int:
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "protover":
            print('feature myname="NoSetboard 1.0" setboard=0 ping=1 done=1', flush=True)
        elif tokens[0] == "ping":
            print(f"pong {tokens[1]}", flush=True)
        elif tokens[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
