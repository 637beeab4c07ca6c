"""A downloaded notebook does not hold the builder's staging path (issue 21, item 6), and
``repcap book --html-only`` is what ``make html`` runs (issue 20, item 6: through the CLI's handler)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from repcap import RepcapError, cli
from repcap.book import kernel


def test_the_staging_path_leaves_the_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_ROOT", str(tmp_path))
    staging = tmp_path / "book" / "generated" / ".staging" / "06_packing-123-abcd1234"
    staging.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print(figures.path)")
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"saved {staging}/figures/fig-a.svg\n")]
    nb.cells = [nbformat.v4.new_code_cell("n = 1", metadata={"tags": ["injected-parameters"]}), code]
    nb.metadata["papermill"] = {
        "input_path": str(tmp_path / "notebooks" / "06_packing.py"),
        "output_path": str(staging / "06_packing.ipynb"),
    }
    path = staging / "06_packing.ipynb"
    nbformat.write(nb, path)
    kernel.collapse_injected_parameters(path, staging)
    text = path.read_text()
    assert ".staging" not in text and str(tmp_path) not in text
    out = json.loads(text)
    assert out["metadata"]["papermill"] == {
        "input_path": "notebooks/06_packing.py",
        "output_path": "book/generated/06_packing.ipynb",
    }
    assert "".join(out["cells"][1]["outputs"][0]["text"]) == "saved book/generated/figures/fig-a.svg\n"
    assert "remove-cell" in out["cells"][0]["metadata"]["tags"]


def test_html_only_runs_the_build_under_the_cli_handler(monkeypatch, capsys):
    from repcap.book import build

    def bad_data(log=print):
        raise RepcapError("data/reference/claims.yaml: claim 'x': tolerance 'abc' is not a number")

    monkeypatch.setattr(build, "jb_build", bad_data)
    monkeypatch.setattr(build, "build_book", lambda **k: (_ for _ in ()).throw(AssertionError("ran chapters")))
    assert cli.main(["book", "--html-only"]) == 2
    err = capsys.readouterr().err
    assert err == "repcap book: error: data/reference/claims.yaml: claim 'x': tolerance 'abc' is not a number\n"
    assert "repcap book --html-only" in Path(__file__).resolve().parents[2].joinpath("Makefile").read_text()
