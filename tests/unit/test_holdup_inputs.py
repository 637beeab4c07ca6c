"""Hold up, round 4 (issue 38): the user's input checked as a whole: a list parameter repeating a
value, quotes.yaml edits that break a derived value of the scorecard (judged when the claims load,
naming file, claim and quote), and ``make paper-gpu OUT=...`` passing OUT as typed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from _projects import chapters_copy as _project

from repcap import RepcapError, cli

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# parameters and the scorecard's data


def test_a_list_parameter_with_a_repeated_value_is_refused(tmp_path, monkeypatch, capsys):
    """`-p 'dims=[&d 3, *d, 10]'` expanded to [3, 3, 10], passed the check and broke a cell."""
    _project(tmp_path, monkeypatch)
    for value in ("[&d 3, *d, 10]", "[3, 3, 10]"):
        assert cli.main(["run", "notebooks/01_random_vectors.py", "-p", f"dims={value}"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "parameter 'dims' lists 3" in err[0] and "more than once" in err[0], err
    assert cli.main(["run", "notebooks/08_two_regimes.py", "-p", "alphas=[1, 1.0]"]) == 2  # one number, two spellings
    assert "parameter 'alphas' lists 1.0 more than once" in capsys.readouterr().err
    from repcap.book.params import resolve_parameters

    for prof in ("smoke", "quick", "paper"):  # the profiles themselves repeat nothing
        for nb in sorted((ROOT / "notebooks").glob("[0-9]*.py")):
            resolve_parameters(nb, prof, {})


@pytest.fixture
def reference_copy(tmp_path, monkeypatch):
    """A copy of data/reference that a test may edit, read by the library in place of the real one."""
    from repcap.base import paths
    from repcap.evidence import reference

    ref = tmp_path / "data" / "reference"
    shutil.copytree(ROOT / "data" / "reference", ref)
    # quotes and claims read paths.reference_dir at each call (reference re-exports them)
    monkeypatch.setattr(paths, "reference_dir", lambda: ref)
    reference.quotes.cache_clear()
    reference.claims.cache_clear()
    yield ref
    reference.quotes.cache_clear()
    reference.claims.cache_clear()


@pytest.mark.parametrize(
    "quote, fields, claim, needle",
    [
        ("guha2026.sens_d8192_eps005", {"value": 0}, "guha-sensitivity-eps", "derive 'ratio' divides by"),
        (
            "liu2025.toy_overlap_m100",
            {"value": -0.009, "low": -0.01, "high": -0.008},
            "liu-toy-overlap",
            "derive 'slope' takes the log of",
        ),
        ("guha2026.llama2_7b_k_jl8", {"value": 0}, "guha-jl8-llama", "compare 'rel' takes the tolerance relative"),
        (
            "liu2025.phi_weak_over_m_n",
            {"value": 1.5, "low": None, "high": None},
            "liu-phi-weak",
            "compare 'range' needs",
        ),
    ],
)
def test_quote_edits_are_judged_at_load_naming_file_claim_and_quote(reference_copy, quote, fields, claim, needle):
    """quotes.yaml edits crashed `make html` (ZeroDivisionError, "math domain error", or an error
    naming neither file nor claim).  Every derived value is computed when the claims load."""
    from repcap.evidence import reference, scorecard

    p = reference_copy / "quotes.yaml"
    data = yaml.safe_load(p.read_text())
    source, name = quote.split(".", 1)
    entry = data[source][name]
    for k, v in fields.items():
        if v is None:
            entry.pop(k, None)
        else:
            entry[k] = v
    p.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(RepcapError) as exc:
        reference.claims()
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"data/reference/claims.yaml: claim {claim!r}: "), msg
    assert needle in msg and f"quote {quote!r} (data/reference/quotes.yaml)" in msg, msg
    with pytest.raises(RepcapError):
        scorecard.evaluate_all([])


# --------------------------------------------------------------------------------------------
# make paper-gpu


def test_make_paper_gpu_passes_out_as_typed(tmp_path):
    """`make paper-gpu OUT=pg$HOME` wrote to `pgOME`; an OUT holding a double quote was a shell
    syntax error.  A stand-in repcap (a fake venv's bin/) prints the arguments it got."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    fake = venv / "bin" / "repcap"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "[%s]" "$a"; done; echo\n')
    fake.chmod(0o755)
    stamp = venv / ".repcap-installed"

    def run(*args: str) -> subprocess.CompletedProcess:
        stamp.touch()  # newer than pyproject.toml: make does not install anything
        return subprocess.run(
            [make, "-s", "paper-gpu", f"VENV={venv}", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )

    for out in ("pg$HOME", 'a"b c', "x\\y", "$(shell echo hi)", "it's"):
        r = run(f"OUT={out}")
        assert r.returncode == 0, r.stderr
        assert f"[--out][{out}][--scale][full][--budget][420]" in r.stdout, (out, r.stdout)
    r = run("OUT=o", "SCALE=smoke", "BUDGET=")
    assert r.stdout.strip() == "[bundle][compute][paper-gpu][--out][o][--scale][smoke]"
    r = run()
    assert r.returncode != 0 and "give OUT=<bundle folder>" in r.stderr
