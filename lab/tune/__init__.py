"""Texel tuning of our engine's evaluation weights on the project's own games (`tempo tune`).

`positions` samples positions and game results from results folders, `features` asks the engine
process for each position's evaluation as a linear function of its weights (the lab never
imports the engine), `fit` fits the sigmoid scale and then the weights, and `weights_file`
writes what the engine's `EvalFile` option loads.
"""
