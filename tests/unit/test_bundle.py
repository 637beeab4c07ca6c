"""Results bundles (repcap.results.bundle): export -> import round trip with provenance, stale entries refused
after the code changes, hostile bundles refused before anything is written, and the CLI
(``repcap bundle compute paper-gpu --scale smoke``, what ``make paper-gpu`` runs) end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from repcap import RepcapError, cli, sweep
from repcap.results import bundle, runs
from repcap.sweep import canonical

SRC = Path(runs.__file__).resolve().parents[3]  # src/ (from src/repcap/results/runs/__init__.py)


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A private cache, a fixed commit; returns a function that switches to a fresh cache."""
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    monkeypatch.setenv("TQDM_DISABLE", "1")

    def use(name: str) -> Path:
        monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / name))
        return tmp_path / name

    use("computed")
    return use


@pytest.fixture
def made(env, tmp_path):
    """The reference set at smoke size, computed here and exported to ``tmp_path / "b"``."""
    runs.compute(runs.point_set("reference", "smoke"), progress=False, log=lambda s: None)
    manifest = bundle.export("reference", tmp_path / "b", scale="smoke")
    return tmp_path / "b", manifest


def _sha(b: bytes | str) -> str:
    import hashlib

    return hashlib.sha256(b.encode() if isinstance(b, str) else b).hexdigest()


def _resign(d: Path) -> None:
    """Recompute the file checksums of the manifest and its own checksum (a forger's bundle)."""
    m = json.loads((d / "bundle.json").read_text())
    for x in m["experiments"]:
        x["sha256"] = _sha((d / x["file"]).read_bytes())
    m.pop("sha256")
    m["sha256"] = _sha(canonical(m))
    (d / "bundle.json").write_text(json.dumps(m))


def _edit_entry(d: Path, exp: str, edit) -> None:
    doc = json.loads((d / f"{exp}.json").read_text())
    edit(doc["entries"][0])
    (d / f"{exp}.json").write_text(json.dumps(doc))
    _resign(d)


def _n_points(d: Path) -> int:
    """The distinct points of a bundle (experiments may share a point: then one cache entry)."""
    m = json.loads((d / "bundle.json").read_text())
    return len(
        {(x["cache"], e["key"]) for x in m["experiments"] for e in json.loads((d / x["file"]).read_text())["entries"]}
    )


def _n_entries(d: Path) -> int:
    m = json.loads((d / "bundle.json").read_text())
    return sum(x["n_entries"] for x in m["experiments"])


def _cache_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_export_writes_summaries_with_provenance(made):
    d, m = made
    assert m["set"] == "reference" and m["scale"] == "smoke" and m["provenance"]["commit"] == "abc123"
    assert set(m["provenance"]["versions"]) == {"repcap", "torch", "numpy", "scipy", "numba", "numba_in_use"}
    assert [x["name"] for x in m["experiments"]] == [e.name for e in runs.point_set("reference", "smoke").experiments]
    assert {"yoder", "guha-small", "guha-m60", "c-curve", "liu-main", "liu-seeds"} <= {
        x["name"] for x in m["experiments"]
    }
    assert all(x["n_missing"] == 0 for x in m["experiments"])
    doc = json.loads((d / "guha-small.json").read_text())
    e = doc["entries"][0]
    fn = runs.point_function(e["fn"])
    assert e["fn"] == "packing.optimise" and e["numerics"] == "packing/1" and e["primary"] is True
    assert e["key"] == sweep.point_key(fn, e["config"]) and e["identity"] == sweep.keys.config_part(fn, e["config"])
    assert set(e["identity"]) == {"k", "d", "steps", "lr"} - ({"lr"} if e["config"].get("lr") is None else set())
    # provenance as the cache recorded it when the point was computed: versions and the engine's source
    assert e["provenance"]["code"] == sweep.provenance.source_digest(fn)
    assert set(e["provenance"]["versions"]) == set(m["provenance"]["versions"])
    assert e["provenance"]["device"].startswith("cpu") and e["provenance"]["seconds"] == e["result"]["seconds"]
    assert m["provenance"]["wall_s"] == pytest.approx(
        sum(
            en["result"]["seconds"]
            for x in m["experiments"]
            for en in json.loads((d / x["file"]).read_text())["entries"]
        )
    )
    toy = json.loads((d / "liu-main.json").read_text())["entries"]
    assert all(len(t["result"]["norms"]) == t["config"]["n"] and t["omitted"] == [] for t in toy)  # keep_large
    assert sum(p.stat().st_size for p in d.iterdir()) < 200_000


def test_round_trip_seeds_the_cache_and_lookup_shows_provenance(made, env):
    d, _ = made
    before = {e: bundle.lookup("reference", e, "smoke") for e in ("yoder", "guha-small", "liu-main")}
    assert all(not lk.missing and not lk.stale for lk in before.values())
    assert all(f.provenance["source"] == "cache" for lk in before.values() for f in lk.found)

    env("fresh")
    empty = bundle.lookup("reference", "guha-small", "smoke")
    assert (len(empty.found), len(empty.missing), len(empty.stale)) == (0, 4, 0)
    rep = bundle.import_(d)
    n = _n_points(d)
    n_entries = sum(x["n_entries"] for x in json.loads((d / "bundle.json").read_text())["experiments"])
    # a point two experiments share (liu-main's gamma = -1 models are liu-gamma-1's) is imported once
    assert n > 11 and (rep.imported, rep.already, rep.summaries, rep.stale) == (n, n_entries - n, 0, [])
    for exp, lk0 in before.items():
        lk = bundle.lookup("reference", exp, "smoke")
        assert not lk.missing and not lk.stale
        assert [f.result for f in lk.found] == [f.result for f in lk0.found]  # the same numbers
        for f in lk.found:
            p = f.provenance
            assert p["source"] == "bundle" and p["commit"] == "abc123" and p["device"].startswith("cpu")
            assert p["bundle"]["path"] == str(d.resolve()) and p["set"] == "reference"
            # a point two experiments share names one of them
            sharing = [x.name for x in runs.point_set("reference", "smoke").experiments if f.config in x.configs]
            assert exp in sharing and p["experiment"] in sharing
        text = lk.provenance_text("reference")  # the sentence the book shows
        assert f"{len(lk.found)} point" in text and f"from the bundle {d.resolve()}" in text
        assert "computed on cpu" in text and "at commit abc123" in text and "not computed yet" not in text
    e = runs.point_set("reference", "smoke").experiment("guha-small")
    assert "4 not computed yet" in empty.provenance_text("reference")
    assert "repcap bundle compute reference --scale smoke --only guha-small" in empty.provenance_text("reference")

    hits = sweep.run(e.fn, list(e.configs), cache=e.cache, batched=True, group_by=e.group_by, progress=False)
    assert hits.n_cached == 4 and hits.n_computed == 0
    again = bundle.import_(d)  # importing twice changes nothing
    assert (again.imported, again.already) == (0, n_entries)
    # re-exported from the importing cache, the provenance is where it was computed, not here
    m2 = bundle.export("reference", d.parent / "b2", scale="smoke")
    e2 = json.loads((d.parent / "b2" / "yoder.json").read_text())["entries"][0]
    assert (
        e2["provenance"]["computed"]
        == json.loads((d / "yoder.json").read_text())["entries"][0]["provenance"]["computed"]
    )
    assert m2["provenance"]["devices"]


def test_a_later_export_keeps_where_a_point_was_computed(made, monkeypatch):
    """Re-exported from the same cache at a later commit, a point keeps the commit and date it was
    computed at: the cache entry recorded them when it was computed, and an export copies them, never
    re-derives them (even for a point new to the bundle)."""
    d, _ = made
    first = {e["key"]: e["provenance"] for e in json.loads((d / "yoder.json").read_text())["entries"]}
    assert first and all(p["commit"] == "abc123" for p in first.values())
    monkeypatch.setenv("REPCAP_GIT_REV", "def456")
    m2 = bundle.export("reference", d, scale="smoke")
    again = {e["key"]: e["provenance"] for e in json.loads((d / "yoder.json").read_text())["entries"]}
    assert again == first
    assert m2["provenance"]["commit"] == "def456"  # the manifest says when the bundle was exported
    # a bundle that lost the point (replaced by a damaged one): the export takes it from the cache
    # with the provenance recorded when it was computed, not the exporting commit
    _edit_entry(d, "yoder", lambda e: e.update(key="0" * 64))
    bundle.export("reference", d, scale="smoke", replace=True)
    now = {e["key"]: e["provenance"] for e in json.loads((d / "yoder.json").read_text())["entries"]}
    assert now == first


def test_summaries_without_large_fields_are_not_cache_entries(env, tmp_path):
    s = runs.point_set("paper-gpu", "smoke")
    runs.compute(s, only=["liu-main"], progress=False, log=lambda x: None)
    bundle.export("paper-gpu", tmp_path / "p", scale="smoke")
    toy = json.loads((tmp_path / "p" / "liu-main.json").read_text())["entries"]
    assert toy and all(t["omitted"] == ["norms"] and "norms" not in t["result"] for t in toy)
    st = bundle.status(tmp_path / "p")
    assert st.counts["liu-main"] == {
        "fresh": 0,
        "stale": 0,
        "summaries": len(toy),
        "missing": 0,
        "replicas": 0,
        "edited": 0,
        "other_versions": 0,
    }
    assert st.counts["yoder"]["missing"] == 4 and st.counts["guha-grid"]["missing"] == 4
    root = env("other")
    fig3 = json.loads((tmp_path / "p" / "liu-fig3.json").read_text())["entries"]  # the m of Fig. 3: norms kept
    assert len(fig3) == 4 and all(t["omitted"] == [] and "norms" in t["result"] for t in fig3)
    rep = bundle.import_(tmp_path / "p")
    assert (rep.imported, rep.summaries) == (len(fig3), len(toy) - len(fig3))
    toy_cache = sweep.Cache.named("toy")
    assert len(toy_cache) == len(fig3)  # summaries are no entries a chapter asking for norms would trip on
    assert all("norms" in json.loads(p.read_text())["result"] for p in toy_cache.entries())
    lk = bundle.lookup("paper-gpu", "liu-main", "smoke")
    assert len(lk.found) == len(toy) and sum(f.complete for f in lk.found) == len(fig3)
    assert all(
        f.provenance["omitted"] == ["norms"] and "norms" not in f.result and "loss" in f.result
        for f in lk.found
        if not f.complete
    )
    assert all(f.provenance["source"] == "bundle" for f in lk.found) and root.exists()


def test_stale_entries_are_refused_and_reported(made, env, monkeypatch):
    d, _ = made
    env("later")
    import dataclasses

    from repcap.sweep import registry

    for name in registry.names():  # every engine bumped its numerics version
        pf = registry.get(name)
        monkeypatch.setitem(registry._REGISTRY, name, dataclasses.replace(pf, numerics=f"{pf.engine}/2"))
    st = bundle.status(d)
    n = sum(len(json.loads(p.read_text())["entries"]) for p in d.glob("*.json") if p.name != "bundle.json")
    assert st.total("stale") == n and st.total("fresh") == 0
    m = json.loads((d / "bundle.json").read_text())
    n_mm = sum(x["n_entries"] for x in m["experiments"] if x["fn"] == "packing.minimax")  # its own version
    n_pack = sum(x["n_entries"] for x in m["experiments"] if x["fn"].startswith("packing.")) - n_mm
    assert n_mm > 0 and st.stale_reasons == {
        "numerics packing/1 -> packing/2": n_pack,
        "numerics minimax/1 -> minimax/2": n_mm,
        "numerics toy/1 -> toy/2": n - n_pack - n_mm,
    }
    assert f"stale: {n_pack} points (numerics packing/1 -> packing/2)" in st.describe()
    rep = bundle.import_(d)
    assert rep.imported == 0 and len(rep.stale) == n and f"{n} stale" in rep.describe()
    assert len(sweep.Cache.named("packing-grid")) == 0
    lk = bundle.lookup("reference", "guha-small", "smoke")
    assert not lk.found and not lk.missing and len(lk.stale) == 4
    assert lk.stale[0]["provenance"]["commit"] == "abc123" and "4 stale" in lk.describe()


def test_a_tampered_numerics_version_is_stale_or_damaged(made, env):
    from repcap.results.bundle.schema import entry_key

    d, _ = made

    def old_code(e):  # consistent: computed by another numerics version -> stale
        e["numerics"] = "packing/9"
        e["key"] = entry_key(e["fn"], e["identity"], e["numerics"], e["data"])

    _edit_entry(d, "guha-small", old_code)
    env("t1")
    rep = bundle.import_(d)
    assert len(rep.stale) == 1 and rep.imported == _n_points(d) - 1

    def digest_only(e):  # inconsistent: damaged
        e["numerics"] = "packing/7"

    _edit_entry(d, "guha-small", digest_only)
    root = env("t2")
    with pytest.raises(RepcapError, match="key does not match"):
        bundle.import_(d)
    assert _cache_files(root) == []


def test_an_edit_keeps_a_point_fresh_and_a_bump_makes_exactly_its_engines_points_stale(made, tmp_path):
    """Import from an edited copy of the package: a refactor of the packing optimiser keeps every
    point fresh (reported as edited since); a bump of the packing engine's numerics version makes
    its points stale and leaves the toy points (another engine) fresh."""
    d, _ = made
    root = tmp_path / "src"
    shutil.copytree(SRC / "repcap", root / "repcap", ignore=shutil.ignore_patterns("__pycache__"))
    opt = root / "repcap" / "engines" / "packing" / "optimiser.py"
    opt.write_text(opt.read_text().replace("def optimise(", "def _changed():\n    return 1\n\n\ndef optimise(", 1))
    edited = (
        f"import json; from repcap.results import bundle; s = bundle.status({str(d)!r}); "
        "print(json.dumps([s.total('fresh'), s.total('stale'), s.total('edited')]))"
    )
    env = {**os.environ, "PYTHONPATH": str(root), "REPCAP_CACHE": str(tmp_path / "edited")}
    out = subprocess.run([sys.executable, "-c", edited], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    n_all = _n_entries(d)
    fresh, stale, n_edited = json.loads(out.stdout.strip().splitlines()[-1])
    assert (fresh, stale) == (n_all, 0) and 0 < n_edited < n_all  # the packing points' engine was edited
    num = root / "repcap" / "engines" / "packing" / "numerics.py"
    num.write_text(num.read_text().replace('NUMERICS = "packing/1"', 'NUMERICS = "packing/2"'))
    code = (
        f"import json, sys; from repcap.results import bundle; r = bundle.import_({str(d)!r}); "
        "print(json.dumps([r.imported, len(r.stale)]))"
    )
    env = {**os.environ, "PYTHONPATH": str(root), "REPCAP_CACHE": str(tmp_path / "edited")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    m = json.loads((d / "bundle.json").read_text())
    toy = {
        e["key"]
        for x in m["experiments"]
        if x["cache"].startswith("toy")  # the toy models (and the retrained ones of liu-overlap)
        for e in json.loads((d / x["file"]).read_text())["entries"]
    }
    packings = sum(x["n_entries"] for x in m["experiments"] if not x["cache"].startswith("toy"))
    minimax = sum(x["n_entries"] for x in m["experiments"] if x["fn"] == "packing.minimax")
    assert len(toy) > 6 and packings > 5 and minimax > 0
    # toy fresh, and the minimax method's points (its own numerics version); every other packing stale
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [len(toy) + minimax, packings - minimax]


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "bundle.json").write_text("{"), "not a valid bundle file"),
        (lambda d: (d / "bundle.json").write_text('{"a": 1, "a": 2}'), "duplicate field"),
        (lambda d: (d / "bundle.json").write_text("[1, 2]"), "must be dict"),
        (lambda d: (d / "yoder.json").write_text((d / "yoder.json").read_text() + " "), "checksum"),
        (lambda d: _edit_manifest(d, lambda m: m.update(version=3)), "version 2"),
        (lambda d: _edit_manifest(d, lambda m: m.update(version=1)), "version 1 .*no longer reads"),
        (lambda d: _edit_manifest(d, lambda m: m["experiments"][0].update(fn="os:system")), "not one of repcap"),
        (lambda d: _edit_manifest(d, lambda m: m["experiments"][0].update(cache="../../etc")), "short lower-case"),
        (lambda d: _edit_manifest(d, lambda m: m["experiments"][0].update(file="../x.json")), "file must be"),
        (lambda d: _edit_manifest(d, lambda m: m["experiments"][0].update(n_entries="3")), "must be int"),
        (lambda d: _edit_manifest(d, lambda m: m["provenance"].update(wall_s=True)), "boolean"),
        (lambda d: _edit_manifest(d, lambda m: m.update(extra=1)), "unexpected fields"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e.update(fn="builtins:eval")), "differs from its experiment"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e["result"].update(eps_star=[[[[]]]])), "checksum"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e.update(config=[1, 2])), "config must be dict"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e["config"].update(k={"$date": 1e999})), "not JSON"),
        (lambda d: _inf(d), "not a finite number"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e.update(omitted=["eps_star"])), "omitted may only"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e["provenance"].update(shell="rm -rf /")), "unexpected fields"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e["provenance"].update(device="x" * 1000)), "400 characters"),
        (lambda d: _edit_entry(d, "yoder", lambda e: e.update(key="../../x")), "64 lower-case hex"),
        (lambda d: _nest(d), "deeper than"),
        (lambda d: _nan(d), "not JSON"),
        (lambda d: _symlink(d), "not a regular file"),
    ],
)
def test_hostile_bundles_are_refused_before_anything_is_written(made, env, damage, message):
    d, _ = made
    damage(d)
    root = env("hostile")
    with pytest.raises(RepcapError, match=message):
        bundle.import_(d)
    with pytest.raises(RepcapError, match=message):
        bundle.status(d)
    assert _cache_files(root) == []
    assert cli.main(["bundle", "import", str(d)]) == 2


def _edit_manifest(d: Path, edit) -> None:
    m = json.loads((d / "bundle.json").read_text())
    edit(m)
    m.pop("sha256")
    m["sha256"] = _sha(canonical(m))
    (d / "bundle.json").write_text(json.dumps(m))


def _nest(d: Path) -> None:
    def deep(e):
        v: list = []
        for _ in range(100):
            v = [v]
        e["result"]["deep"] = v
        e["sha256"] = _sha(canonical(e["result"]))

    doc = json.loads((d / "yoder.json").read_text())
    deep(doc["entries"][0])
    (d / "yoder.json").write_text(json.dumps(doc))
    _resign(d)


def _nan(d: Path) -> None:
    text = (d / "yoder.json").read_text()
    (d / "yoder.json").write_text(text.replace('"eps_star":', '"eps_star":NaN,"x":', 1))
    _resign(d)


def _inf(d: Path) -> None:
    text = (d / "yoder.json").read_text()
    assert '"k":300,' in text
    (d / "yoder.json").write_text(text.replace('"k":300,', '"k":1e999,', 1))
    _resign(d)


def _symlink(d: Path) -> None:
    target = d.parent / "elsewhere.json"
    (d / "yoder.json").rename(target)
    (d / "yoder.json").symlink_to(target)


def test_cli_compute_paper_gpu_smoke_end_to_end_and_resumes(env, tmp_path, capsys):
    out = tmp_path / "gpu"
    assert cli.main(["bundle", "compute", "paper-gpu", "--scale", "smoke", "--out", str(out), "--no-progress"]) == 0
    first = capsys.readouterr().out
    for name in runs.point_set("paper-gpu", "smoke").names:
        assert f"== {name}" in first and f"   {name}:" in first
    assert "wall time" in first and "bundle " in first and (out / "bundle.json").is_file()
    assert cli.main(["bundle", "compute", "paper-gpu", "--scale", "smoke", "--no-progress"]) == 0
    second = capsys.readouterr().out
    assert "set paper-gpu (smoke): 0 points computed" in second  # resumed: nothing recomputed
    assert cli.main(["bundle", "status", str(out)]) == 0
    assert "guha-grid" in capsys.readouterr().out
    env("elsewhere")
    assert cli.main(["bundle", "import", str(out)]) == 0
    assert "points imported" in capsys.readouterr().out
    assert cli.main(["bundle", "export", "paper-gpu", str(tmp_path / "again"), "--scale", "smoke"]) == 0


def test_cli_bad_inputs_are_one_line_and_exit_2(env, tmp_path, capsys):
    assert cli.main(["bundle", "compute", "reference", "--scale", "smoke", "--only", "nope"]) == 2
    assert "no experiment 'nope'" in capsys.readouterr().err
    assert cli.main(["bundle", "compute", "reference", "--budget", "-1"]) == 2
    assert cli.main(["bundle", "import", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("repcap bundle: error:") and "not a folder" in err[-1]
    assert cli.main(["bundle", "status", str(tmp_path)]) == 2
    (tmp_path / "file").write_text("x")
    assert cli.main(["bundle", "export", "reference", str(tmp_path / "file"), "--scale", "smoke"]) == 2
    with pytest.raises(SystemExit) as exc:
        cli.main(["bundle", "compute", "nope"])
    assert exc.value.code == 2


def test_make_paper_gpu_runs_the_bundle_command():
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    root = SRC.parent
    out = subprocess.run(
        [make, "-n", "-s", "paper-gpu", "OUT=/tmp/x", "SCALE=smoke"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    # OUT and SCALE travel in the environment, quoted (tests/unit/test_holdup_round4.py runs it)
    assert 'repcap bundle compute paper-gpu --out "$REPCAP_PG_OUT" --scale "$REPCAP_PG_SCALE"' in out.stdout
    book = subprocess.run([make, "-n", "book"], cwd=root, capture_output=True, text=True, timeout=60).stdout
    assert "bundle import" in book and book.index("bundle import") < book.index("repcap book")


def test_a_point_the_set_moved_to_another_experiment_is_re_homed_not_dropped(made, env):
    """A set re-split (c0b1e00 moved extra seeds from liu-seeds to liu-seeds-a15; the smoke set has
    liu-gamma-1 and liu-seeds): an entry the old bundle holds under the experiment it left is written
    under the one that has it now, even when this machine's cache is empty, and provenance names the
    new experiment."""
    d, _ = made
    moved_to, seeds = (json.loads((d / f"{x}.json").read_text()) for x in ("liu-gamma-1", "liu-seeds"))
    moved = moved_to["entries"].pop(0)
    moved["provenance"]["experiment"] = "liu-seeds"  # as the old definition's export wrote it
    seeds["entries"].append(moved)
    moved_to["missing"].append(moved["config"])
    for x, doc in (("liu-gamma-1", moved_to), ("liu-seeds", seeds)):
        (d / f"{x}.json").write_text(json.dumps(doc))
    _resign(d)
    before = _n_points(d)
    env("empty")
    rep: list = []
    bundle.export("reference", d, scale="smoke", report=rep)
    assert _n_points(d) == before and (rep[0].kept, rep[0].dropped) == (rep[0].after, 0)
    moved_to, seeds = (json.loads((d / f"{x}.json").read_text()) for x in ("liu-gamma-1", "liu-seeds"))
    back = [e for e in moved_to["entries"] if e["key"] == moved["key"]]
    assert len(back) == 1 and back[0]["provenance"]["experiment"] == "liu-gamma-1"
    assert moved["key"] not in {e["key"] for e in seeds["entries"]}
    assert moved["config"] not in moved_to["missing"]


def test_the_commit_follows_repcap_git_rev_set_after_a_first_read(monkeypatch):
    """The commit a point records is read once per process from git, but REPCAP_GIT_REV set later
    still wins (the tests that fix it to abc123 failed in a clean clone whenever an earlier test
    had read the real commit first)."""
    from repcap.sweep import provenance

    monkeypatch.delenv("REPCAP_GIT_REV", raising=False)
    real = provenance.revision()
    assert real and real != "abc123"
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    assert provenance.revision() == "abc123" == provenance.record(runs.point_set, {}, 1.0)["commit"]
    monkeypatch.delenv("REPCAP_GIT_REV")
    assert provenance.revision() == real


def test_the_wide_cells_are_those_the_shipped_minimax_points_leave_over_one_percent_short():
    """The reference set's ``frontier-minimax-wide`` runs on a fixed list of cells; it must be exactly the
    cells where the shipped ``frontier-minimax`` points land above 1% of Sloane's best-known coherence."""
    from repcap.engines import constructions, frontier
    from repcap.results.runs.points import FRONTIER_WIDE_CELLS

    best = constructions.best_known().set_index(["d", "N"]).mu
    path = Path(__file__).resolve().parents[2] / "data" / "runs" / "reference" / "frontier-minimax.json"
    entries = json.loads(path.read_text())["entries"]
    short = {
        (e["result"]["d"], e["result"]["k"])
        for e in entries
        if e["result"]["eps_star"] / best[(e["result"]["d"], e["result"]["k"])] > frontier.NEAR_BEST
    }
    assert len(entries) == 70
    assert short == set(FRONTIER_WIDE_CELLS)
