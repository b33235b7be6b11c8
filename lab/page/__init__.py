"""The HTML page of a results folder (`report.html`) and of a calibration.

`data` reads a store once and computes what the page shows; `svg` draws its figures inline;
`layout` and `render` make the HTML; `write` writes it atomically; `live` refreshes it while a
run plays. Not to be confused with `lab.report`, which writes a run's PGN, moves and ratings.
"""
