"""A planted change of a numerical constant (Adam's epsilon in the toy optimiser, times 10) in a copy
of the package: the fingerprints catch it, a table cannot be rewritten without a bump, and with the
bump the suite passes again and exactly the toy engine's shipped points are stale."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "REPCAP_ROOT": str(root), "REPCAP_CACHE": str(root / ".c")}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("planted")
    for rel in ("src", "tests/fingerprints", "tools", "data/reference", "notebooks"):
        shutil.copytree(ROOT / rel, root / rel, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    optim = root / "src" / "repcap" / "engines" / "toy" / "optim.py"
    text = optim.read_text()
    assert "sqrt_().add_(eps)" in text
    optim.write_text(text.replace("sqrt_().add_(eps)", "sqrt_().add_(eps * 10)"))
    return root


def test_a_planted_change_fails_and_cannot_be_written_without_a_bump(planted):
    out = _run(planted, "tools/fingerprints.py", "toy", "packing")
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"toy .* moved", out.stdout) and re.search(r"packing .*: agree", out.stdout), out.stdout
    refused = _run(planted, "tools/fingerprints.py", "--update", "toy")
    assert refused.returncode != 0 and "bump it" in refused.stderr, refused.stderr


def test_with_a_bump_it_passes_and_makes_exactly_the_toy_points_stale(planted):
    num = planted / "src" / "repcap" / "engines" / "toy" / "numerics.py"
    num.write_text(num.read_text().replace('NUMERICS = "toy/1"', 'NUMERICS = "toy/2"'))
    written = _run(planted, "tools/fingerprints.py", "--update", "toy")
    assert written.returncode == 0, written.stderr
    assert "toy/2 written" in written.stdout
    suite = _run(
        planted, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fingerprints/test_fingerprints.py", "-k", "toy"
    )
    assert suite.returncode == 0, suite.stdout[-3000:]
    status = _run(planted, "-m", "repcap", "bundle", "status", str(ROOT / "data" / "runs" / "reference"))
    assert status.returncode == 0, status.stderr
    stale = re.search(r"stale: (\d+) points \(numerics toy/1 -> toy/2\)", status.stdout)
    total = re.search(r"total\s+(\d+) fresh\s+(\d+) stale", status.stdout)
    assert stale and total, status.stdout
    n_toy = int(stale.group(1))
    assert n_toy >= 282 and int(total.group(2)) == n_toy  # every toy point, and nothing else
    assert "numerics packing" not in status.stdout and int(total.group(1)) >= 66  # packing points fresh
    # a second bump with the fingerprints where they are is refused
    num.write_text(num.read_text().replace('NUMERICS = "toy/2"', 'NUMERICS = "toy/3"'))
    again = _run(planted, "tools/fingerprints.py", "--update", "toy")
    assert again.returncode != 0 and "did not move" in again.stderr, again.stderr
