"""Time controls, clocks, moves-left estimators and time managers; standard library only."""
