"""The HTML page of a results folder (`report.html`), and the blocks a calibration's page uses.

`data` reads a store once and computes what the page shows; `svg` draws its figures inline;
`layout` (document, style sheet, tables) and `render` make the HTML; `games` carries every game's
view as data with the script that draws it; `write` writes the page atomically; `live` keeps it
current while a run plays. The calibration's page is `lab.calibration.page`. Not to be confused with
`lab.report`, which writes a run's PGN, moves table, ratings and plot (and calls `write`).
"""
