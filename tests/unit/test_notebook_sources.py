"""Every chapter source: a literal parameters cell that both our runner and papermill read the
same way (so `papermill --help-notebook` documents the knobs), and profile sections that the
runner accepts."""

from pathlib import Path

import jupytext
import pytest

from repcap import runner

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_reads_the_same_parameters(nb, tmp_path, monkeypatch):
    import papermill

    monkeypatch.setenv("REPCAP_ROOT", str(ROOT))
    ours = runner.notebook_parameters(nb)
    ipynb = tmp_path / f"{nb.stem}.ipynb"
    jupytext.write(jupytext.read(nb), ipynb)
    theirs = papermill.inspect_notebook(str(ipynb))
    assert list(theirs) == list(ours)
    for profile in runner.PROFILES:
        runner.resolve_parameters(nb, profile, {})  # raises on an unknown name or a wrong type
