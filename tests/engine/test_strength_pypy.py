"""engine.strength runs on PyPy 3.9 and computes exactly what CPython computes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPY = ROOT / ".venv-pypy" / "bin" / "python"

# Imports every strength module, computes parameters, dumps, choices, throttle figures and an
# Elo-table round trip, and prints them as JSON.
SCRIPT = """
import json, random, sys, tempfile, os
from engine.strength.choice import choose_move
from engine.strength.dump import dump_lines
from engine.strength.params import params_for_elo
from engine.strength.range import refusal
from engine.strength.table import EloTable, TableRow, write_table
from engine.strength.throttle import check_interval, level_nodes, throttle_delay

out = {"params": [], "dumps": [], "choices": [], "table": []}
for elo in range(600, 2601, 25):
    p = params_for_elo(elo)
    out["params"].append([elo, p.nps, p.move_error, p.blunder_error, p.blunder_per128,
                          p.knowledge_per128, sorted(p.material.items())])
out["dumps"] = [dump_lines(params_for_elo(600)), dump_lines(params_for_elo(1075))]
rng = random.Random(99)
roots = [("a", 0), ("b", -10), ("c", -30), ("d", -50), ("e", -400)]
out["choices"] = [choose_move(roots, params_for_elo(800), rng).move for _ in range(50)]
out["throttle"] = [throttle_delay(1000, 1.0, 500), check_interval(6863), level_nodes(6863)]
out["range"] = [refusal(3000), refusal(1000)]
rows = [TableRow(e, params_for_elo(e).nps, 20, 200, 10, {"mobility": (e - 600) / 2000})
        for e in (600, 1300, 2600)]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "t.csv")
    write_table(path, rows)
    table = EloTable.load(path)
    for elo in range(600, 2601, 50):
        p = table.params_for_elo(elo)
        out["table"].append([p.nps, p.knowledge_per128["mobility"]])
out["version"] = sys.version
json.dump(out, sys.stdout)
"""


def run(python: str) -> dict:
    done = subprocess.run(
        [python, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not PYPY.exists(), reason="no PyPy venv at .venv-pypy")
def test_pypy_computes_the_same_as_cpython():
    pypy = run(str(PYPY))
    cpython = run(sys.executable)
    assert "PyPy" in pypy.pop("version")
    cpython.pop("version")
    assert pypy == cpython
    assert pypy["params"][(1000 - 600) // 25][1:5] == [3700, 33, 366, 14]
