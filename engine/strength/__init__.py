"""Strength limiting (MadChess-style UCI_LimitStrength): pure parameters, move choice, throttle."""
