"""A tiny XBoard engine; run with sys.executable.

By default it lacks the `setboard` feature, as Debian's fairymax does, and only answers the
handshake (`protover` -> features, `ping N` -> `pong N`). With the argument `resign` it declares
`setboard=1` and resigns whenever it is asked to move.
"""

from __future__ import annotations

import sys


def main() -> int:
    resigner = sys.argv[1:] == ["resign"]
    setboard = 1 if resigner else 0
    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "protover":
            print(f'feature myname="NoSetboard 1.0" setboard={setboard} ping=1 done=1',
                  flush=True)
        elif tokens[0] == "ping":
            print(f"pong {tokens[1]}", flush=True)
        elif tokens[0] == "go" and resigner:
            print("resign", flush=True)
        elif tokens[0] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
