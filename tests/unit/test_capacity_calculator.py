"""The book's capacity calculator (book/static/capacity.js, run under node) against repcap.engines.laws and
repcap.engines.bounds on a grid of (d, eps), with the constants the chapter writes into the page."""

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from repcap.book import calculator
from repcap.engines import bounds, laws
from repcap.evidence import reference

SCRIPT = Path(__file__).resolve().parents[2] / "book" / "static" / "capacity.js"
NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt install nodejs)")

DS = [1, 2, 3, 16, 100, 768, 4096, 12288]
EPS = [0.001, 0.01, 0.05, 0.0645, 0.1, 0.2, 0.35, 0.5, 0.9, 0.999]

HARNESS = """
const api = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.points.map(([d, eps]) => api.evaluate(input.config, d, eps).map(r => [r.key, r.log10]));
const fmt = input.counts.map(x => api.formatCount(x));
const parsed = input.inputs.map(([a, b]) => api.parseInputs(a, b, input.config.limits));
process.stdout.write(JSON.stringify({out, fmt, parsed}, (k, v) => v === Infinity ? "inf" : v));
"""


def _run(payload):
    res = subprocess.run(
        [NODE, "-e", HARNESS, str(SCRIPT)],
        input=json.dumps(payload, allow_nan=False),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(res.stdout)


def _expected(d, eps):
    row = {k: float(laws.PUBLISHED[k].log10_capacity(eps, d)) for k in calculator.LAWS}
    row["yoder"] = float(laws.yoder_log10_capacity(d, math.degrees(math.asin(eps))))
    row["welch"] = float(bounds.welch_log_capacity(d, eps)) / math.log(10)
    row["levenshtein"] = float(bounds.levenshtein_log_capacity(d, eps)) / math.log(10)
    return row


@pytest.fixture(scope="module")
def result():
    cfg = calculator.config()
    return _run(
        {
            "config": cfg,
            "points": [[d, e] for d in DS for e in EPS],
            "counts": [0.0, math.log10(4096), 5.99, 6.0, 45.4321, 8.9999, None],
            "inputs": [
                ["4096", "0.0645"],
                ["0", "0.1"],
                ["12.5", "0.1"],
                ["100", "1"],
                ["100", "abc"],
                [" 768 ", " 0.2 "],
            ],
        }
    )


def test_every_row_matches_the_python_laws_and_bounds(result):
    points = [(d, e) for d in DS for e in EPS]
    assert len(result["out"]) == len(points)
    for (d, eps), rows in zip(points, result["out"]):
        want = _expected(d, eps)
        got = dict(rows)
        assert list(got) == [*calculator.LAWS, "yoder", "welch", "levenshtein"]
        for key, v in got.items():
            if v == "inf":
                assert want[key] == math.inf, (d, eps, key)
            else:
                assert v == pytest.approx(want[key], rel=1e-9, abs=1e-9), (d, eps, key)


def test_the_worked_example_is_the_papers(result):
    """Llama 2 7B (d 4096, eps 0.0645): the page's defaults, and the law values the chapter quotes."""
    cfg = calculator.config()
    assert (cfg["default_d"], cfg["default_eps"]) == (4096, 0.0645)
    i = DS.index(4096) * len(EPS) + EPS.index(0.0645)
    got = dict(result["out"][i])
    assert 10 ** got["four"] == pytest.approx(laws.capacity(0.0645, 4096, "four"), rel=1e-9)
    assert 10 ** got["jl8"] == pytest.approx(math.exp(4096 * 0.0645**2 / 8), rel=1e-12)


def test_counts_and_inputs_read_as_a_reader_expects(result):
    assert result["fmt"][:4] == ["1", "4,096", "977,237", "1.00 × 10⁶"]
    assert result["fmt"][4] == "2.70 × 10⁴⁵" and result["fmt"][5] == "1.00 × 10⁹" and result["fmt"][6] == "—"
    ok, *bad, spaced = result["parsed"]
    assert ok == {"d": 4096, "eps": 0.0645} and spaced == {"d": 768, "eps": 0.2}
    assert all("error" in p for p in bad)


def test_the_config_holds_the_published_constants():
    cfg = calculator.config()
    for law in cfg["laws"]:
        assert law["constants"] == dict(laws.PUBLISHED[law["name"]].constants)
    assert cfg["yoder"]["divisor"] == laws.YODER_DIVISOR
    html = calculator.widget()._repr_html_()
    assert html.startswith('<div class="repcap-capcalc" data-config="') and "<noscript>" in html
    assert np.isfinite(json.loads(json.dumps(cfg))["default_eps"])


EXTRA = """
const api = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const angles = input.angles.map(a => api.parseAngle(a));
const rows = input.points.map(([d, eps]) => api.evaluate(input.config, d, eps)
  .map(r => [r.key, r.extrapolated, r.label]));
const classes = input.points.map(([d, eps]) => api.classOf(input.config, d, eps));
process.stdout.write(JSON.stringify({angles, rows, classes, note: api.fittedNote(input.config)}));
"""


def test_angles_extrapolation_and_classes_read_honestly():
    """The angle box keeps every digit of cos (0.001 degrees is not eps = 1, 0.1 degrees stays 0.1);
    law rows beyond Guha's fitted packings (k > 32,000 or k/d > 1000, from his stored packings) are
    flagged; no class for a width outside his models; the Levenshtein row says where it bounds."""
    cfg = calculator.config()
    packs = reference.guha_packings("optimized")
    assert cfg["fitted"]["k_max"] == packs.k.max() == 32000 and cfg["fitted"]["kd_max"] == 1000
    assert cfg["fitted"]["eps_max"] == pytest.approx(0.541, abs=1e-3) and cfg["fitted"]["eps_min"] < 1e-4
    points = [[4096, 0.0645], [1024, 0.5], [64, 0.3], [3, 0.5]]
    res = subprocess.run(
        [NODE, "-e", EXTRA, str(SCRIPT)],
        input=json.dumps({"config": cfg, "angles": ["0.001", "0.1", "1e-9", "90", "x"], "points": points}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(res.stdout)
    a1, a2, *bad = out["angles"]
    assert a1["eps"] == math.cos(math.radians(0.001)) < 1 and a1["angle"] == 0.001
    assert math.degrees(math.acos(a2["eps"])) == pytest.approx(0.1, rel=1e-9)
    assert all("error" in b for b in bad)
    for (d, eps), rows in zip(points, out["rows"]):
        for key, flagged, _ in rows:
            if key in calculator.LAWS:
                log10k = laws.PUBLISHED[key].log10_capacity(eps, d)
                want = log10k > math.log10(32000) or log10k - math.log10(d) > math.log10(1000)
                assert flagged == want, (d, eps, key)
            else:
                assert flagged is False
    assert any(f for rows in out["rows"] for _, f, _ in rows) and not all(f for _, f, _ in out["rows"][2])
    lev = {k: lab for k, _, lab in out["rows"][0]}["levenshtein"]
    assert f"for ε < {math.sqrt(3 / 4098):.3g}" in lev
    assert out["classes"][0] == "Class 2 (ε < 0.1)" and "fitted" not in out["classes"][0]
    assert "none is given" in out["classes"][3] and out["classes"][1].startswith("Class 1")
    assert "32,000" in out["note"] and "extrapolation in k" in out["note"]


CODE_HARNESS = """
const api = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.points.map(([d, eps]) => { const c = api.largestCode(input.config, d, eps); return [c.name, c.log10, c.mu]; });
process.stdout.write(JSON.stringify(out));
"""


def test_the_explicit_code_column_is_the_python_choice():
    """The calculator's largest known explicit code at (d, eps) is repcap.engines.constructions.largest_code over
    the same codes (the catalogue, Sloane's best-known packings, the orthonormal basis and simplex of d)."""
    from repcap.engines import constructions

    cfg = calculator.config()
    points = [
        [d, e] for d in (3, 5, 8, 16, 64, 100, 255, 768, 4096, 12288) for e in (0.0, 0.05, 0.0645, 0.13, 0.3, 0.5, 0.9)
    ]
    res = subprocess.run(
        [NODE, "-e", CODE_HARNESS, str(SCRIPT)],
        input=json.dumps({"config": cfg, "points": points}, allow_nan=False),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got = json.loads(res.stdout)
    codes = calculator.explicit_codes()
    for (d, eps), (name, log10, mu) in zip(points, got):
        want = constructions.largest_code(d, eps, codes)
        assert (name, mu) == (want.name, want.mu), (d, eps)
        assert log10 == pytest.approx(want.log10_count, rel=1e-12)
    # Llama 2 7B's width and eps (the page's default): a dual BCH code, far above the law
    i = points.index([4096, 0.0645])
    assert got[i][0].startswith("dual BCH") and got[i][1] > laws.log10_capacity(0.0645, 4096) + 3
    # in small dimensions Sloane's table answers: 6 lines at 1/sqrt 5 in R^3 (the icosahedron's, which
    # the table's rounding puts a hair below the closed form) and 20 lines at 1/2 in R^5
    assert got[points.index([3, 0.5])][0] == "best known: 6 lines (Sloane's table)"
    assert got[points.index([5, 0.5])][0] == "best known: 20 lines (Sloane's table)"


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_an_extra_law_is_a_last_column_the_script_computes_as_python_does():
    ours = laws.Law("adjusted-minimax", "adjusted", {"C": 0.61}, "adjusted, C refitted (ours)")
    cfg = calculator.config(extra_laws=[ours])
    assert cfg["laws"][-1] == {
        "name": "adjusted-minimax",
        "label": "adjusted, C refitted (ours)",
        "form": "adjusted",
        "constants": {"C": 0.61},
    }
    assert [x["name"] for x in cfg["laws"][:-1]] == list(calculator.LAWS)
    out = _run({"config": cfg, "points": [[768, 0.2]], "counts": [], "inputs": []})["out"][0]
    got = dict(out)["adjusted-minimax"]
    assert got == pytest.approx(float(ours.log10_capacity(0.2, 768)), rel=1e-9)
