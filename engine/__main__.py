"""`python -m engine`: the UCI engine in the current interpreter."""

from __future__ import annotations

import sys

from engine.uci import main

sys.exit(main())
