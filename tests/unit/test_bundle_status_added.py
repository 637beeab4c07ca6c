"""``repcap bundle status``: an experiment added to the point set after the bundle was exported is
"not in this bundle yet", with its cost to compute, apart from the points the export's own
experiments lack ("missing": lost, or never finished).  The reference bundle's "8 missing" once hid
34 points of experiments it had never been asked for."""

from __future__ import annotations

import dataclasses

import pytest

from repcap import cli
from repcap.base.devices import resolve_device
from repcap.results import bundle, runs
from repcap.results.bundle import counts


@pytest.fixture
def grown(tmp_path, monkeypatch):
    """A paper-gpu (smoke) bundle with yoder computed and the rest never finished, then the set
    grown by one experiment after the export: (bundle folder, the status before, the new experiment)."""
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    s = runs.point_set("paper-gpu", "smoke")
    runs.compute(s, only=["yoder"], progress=False, log=lambda x: None)
    bundle.export("paper-gpu", tmp_path / "p", scale="smoke")
    before = bundle.status(tmp_path / "p")
    extra = dataclasses.replace(s.experiment("yoder"), name="yoder-again")
    bigger = dataclasses.replace(s, experiments=(*s.experiments, extra))
    monkeypatch.setattr(counts._runs, "point_set", lambda name, scale: bigger)
    return tmp_path / "p", before, extra


def test_status_counts_an_experiment_the_bundle_has_none_of_as_added(grown):
    """An experiment added to the set after the bundle was exported is not left out: its points are
    "not in this bundle yet" (``added``), apart from the missing points of the exported experiments."""
    d, before, extra = grown
    after = bundle.status(d)
    assert "yoder-again" not in before.counts and not before.added
    assert after.added == {"yoder-again": len(extra.configs)} and len(extra.configs) == 4
    assert "yoder-again" not in after.counts and after.counts == before.counts


def test_an_experiment_added_since_the_export_is_not_in_the_bundle_yet(grown):
    d, before, extra = grown
    after = bundle.status(d)
    kind = resolve_device("auto").type
    assert after.added == {"yoder-again": len(extra.configs)} and len(extra.configs) == 4
    assert "yoder-again" not in after.counts  # no row of zeros and "4 missing"
    assert after.counts == before.counts and after.total("missing") == before.total("missing") > 0
    assert after.cost["yoder-again"] == pytest.approx(extra.estimate_seconds(kind)) and after.cost["yoder-again"] > 0
    text = after.describe()
    row = next(line for line in text.splitlines() if line.lstrip().startswith("yoder-again"))
    assert "not in this bundle yet: 4 points, added to the set since the export" in row
    assert f"to compute on {kind}" in row and "missing" not in row
    assert "not in this bundle yet: 4 points of 1 experiment added to set paper-gpu since the export (about " in text
    assert f"repcap bundle compute paper-gpu --scale smoke --only yoder-again --out {d}" in text


def test_an_exported_experiment_without_points_stays_missing(grown):
    """guha-grid was in the set the bundle was exported from and none of its points finished:
    missing, not "added since"; its cost is given too."""
    d, before, _ = grown
    after = bundle.status(d)
    kind = resolve_device("auto").type
    assert after.counts["guha-grid"]["missing"] == 4 and after.counts["guha-grid"]["fresh"] == 0
    assert "guha-grid" not in after.added and before.added == {}
    grid = runs.point_set("paper-gpu", "smoke").experiment("guha-grid")
    assert after.cost["guha-grid"] == pytest.approx(grid.estimate_seconds(kind))
    n = after.total("missing")
    assert f"missing: {n} points of experiments the export had, absent from the bundle (about " in after.describe()


def test_the_cli_prints_both(grown, capsys):
    d, _, _ = grown
    assert cli.main(["bundle", "status", str(d)]) == 0
    out = capsys.readouterr().out
    assert "yoder-again" in out and "not in this bundle yet" in out and "missing" in out
