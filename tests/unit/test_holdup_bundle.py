"""Bundles that never lose points (issue 20, items 1, 2, 4, 5): an export merges the bundle already
in its folder, refuses to shrink it, survives a full disk or Ctrl-C half-way with the old bundle
intact, refuses hostile strings and impossible numbers, and meets the file system in one line."""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from repcap import RepcapError, cli
from repcap.results import bundle, runs
from repcap.results.bundle import folder
from repcap.sweep import canonical

REF = Path(__file__).resolve().parents[2] / "data" / "runs" / "reference"
#: The points the shipped reference bundle holds (its manifest's counts).
N_REF = sum(x["n_entries"] for x in json.loads((REF / "bundle.json").read_text())["experiments"])


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("REPCAP_GIT_REV", "abc123")
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "empty-cache"))
    return tmp_path


@pytest.fixture
def ref(env):
    """A copy of the shipped reference bundle, and its files' bytes."""
    d = env / "ref"
    shutil.copytree(REF, d)
    return d, {p.name: p.read_bytes() for p in d.iterdir()}


def _sha(b: bytes | str) -> str:
    return hashlib.sha256(b.encode() if isinstance(b, str) else b).hexdigest()


def _resign(d: Path) -> None:
    m = json.loads((d / "bundle.json").read_text())
    for x in m["experiments"]:
        x["sha256"] = _sha((d / x["file"]).read_bytes())
    m.pop("sha256")
    m["sha256"] = _sha(canonical(m))
    (d / "bundle.json").write_text(json.dumps(m))


def _n_entries(d: Path) -> int:
    return len(bundle.read(d).entries)


def test_export_from_an_empty_cache_keeps_every_shipped_point(ref, capsys):
    d, _before = ref
    n = _n_entries(d)
    assert n == N_REF > 0
    assert cli.main(["bundle", "export", "reference", str(d)]) == 0
    out = capsys.readouterr().out
    assert f"{n} points before, {n} after (0 from this machine's cache, {n} kept from the bundle, 0 dropped)" in out
    b = bundle.read(d)
    assert len(b.entries) == n
    old = {
        json.dumps(e["result"], sort_keys=True)
        for p in REF.glob("*.json")
        if p.name != "bundle.json"
        for e in json.loads(p.read_text())["entries"]
    }
    assert {json.dumps(be.data["result"], sort_keys=True) for be in b.entries} == old  # the same numbers
    now, shipped = bundle.status(d).counts, bundle.status(REF).counts
    assert {k: now[k] for k in shipped} == shipped  # the shipped experiments: the same counts


def test_an_export_that_would_shrink_the_bundle_is_refused_unless_replace(ref):
    d, _before = ref
    m = json.loads((d / "bundle.json").read_text())  # an experiment the set no longer has
    doc = json.loads((d / "guha-small.json").read_text())
    doc["experiment"] = "gone"
    (d / "gone.json").write_text(json.dumps(doc))
    small = next(x for x in m["experiments"] if x["name"] == "guha-small")
    m["experiments"].append({**small, "name": "gone", "file": "gone.json"})
    (d / "bundle.json").write_text(json.dumps(m))
    _resign(d)
    saved = {p.name: p.read_bytes() for p in d.iterdir()}
    n_gone = len(doc["entries"])
    msg = rf"would hold {N_REF} points, fewer than the {N_REF + n_gone} it holds now.*--replace"
    with pytest.raises(RepcapError, match=msg):
        bundle.export("reference", d)
    assert {p.name: p.read_bytes() for p in d.iterdir()} == saved  # nothing written
    rep: list = []
    bundle.export("reference", d, replace=True, report=rep)
    assert (rep[0].before, rep[0].after, rep[0].dropped) == (N_REF + n_gone, N_REF, n_gone)
    assert _n_entries(d) == N_REF and not (d / "gone.json").exists()


def test_a_folder_of_other_things_or_another_set_is_refused(env):
    other = env / "notes"
    other.mkdir()
    (other / "thesis.tex").write_text("x")
    with pytest.raises(RepcapError, match="no bundle.json"):
        bundle.export("reference", other)
    assert (other / "thesis.tex").read_text() == "x"
    d = env / "r"
    shutil.copytree(REF, d)
    with pytest.raises(RepcapError, match=r"holds set reference \(full\), not reference \(smoke\).*--replace"):
        bundle.check_out(d, "reference", "smoke")
    f = env / "afile"
    f.write_text("")
    with pytest.raises(RepcapError, match="exists and is not a folder"):
        bundle.check_out(f, "reference")


@pytest.mark.parametrize("fail", ["enospc", "interrupt"])
def test_an_export_stopped_half_way_leaves_the_old_bundle_intact(ref, monkeypatch, fail):
    d, before = ref
    real, calls = folder._write_file, []

    def flaky(path, text):
        calls.append(path.name)
        if len(calls) == 2:  # the second file: one experiment already written
            if fail == "enospc":
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            raise KeyboardInterrupt
        real(path, text)

    monkeypatch.setattr(folder, "_write_file", flaky)
    if fail == "enospc":
        with pytest.raises(
            RepcapError, match=r"cannot write it \(no space left on the device\); the previous bundle is unchanged"
        ):
            bundle.export("reference", d)
    else:
        with pytest.raises(KeyboardInterrupt):
            bundle.export("reference", d)
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before
    assert sorted(p.name for p in d.parent.iterdir() if p.name.startswith(".ref.")) == []  # no staging left
    assert len(bundle.read(d).entries) == N_REF


def test_the_fallback_swap_and_a_killed_swap_are_recovered(ref, monkeypatch):
    d, _before = ref
    monkeypatch.setattr(folder, "_exchange", lambda a, b: False)  # no renameat2: two renames
    bundle.export("reference", d)
    assert _n_entries(d) == N_REF
    # killed between the two renames: the old bundle is beside, under a dead pid
    aside = d.parent / ".ref.old-999999999-abcd"
    d.rename(aside)
    from repcap.sweep.files import _host_token

    marker = json.dumps({"host": _host_token(), "pid": 999999999, "start": ""})
    (aside / folder.STAGING_MARKER).write_text(marker)  # as the fallback swap marks it
    plan = bundle.check_out(d, "reference")
    assert d.is_dir() and not aside.exists() and "restored the previous bundle" in plan.notes[0]
    assert _n_entries(d) == N_REF and not (d / folder.STAGING_MARKER).exists()


def test_a_folder_named_like_a_leftover_without_the_marker_is_kept(ref):
    """Only an export's own staging folders (its marker: host, pid, process start) are removed; a
    user's folder named like one (a backup) stays, with what it holds."""
    d, _ = ref
    backup = d.parent / ".ref.old-2019-backup"
    backup.mkdir()
    (backup / "NOTES.txt").write_text("mine")
    staging = d.parent / ".ref.new-999999999-x"
    staging.mkdir()
    from repcap.sweep.files import _host_token

    (staging / folder.STAGING_MARKER).write_text(json.dumps({"host": _host_token(), "pid": 999999999, "start": ""}))
    plan = bundle.check_out(d, "reference")
    assert (backup / "NOTES.txt").read_text() == "mine" and not staging.exists()
    assert any(f"removed {staging}" in n for n in plan.notes)


def test_a_linked_bundle_folder_is_followed_and_said(ref, tmp_path):
    d, _ = ref
    link = tmp_path / "linked"
    link.symlink_to(d)
    rep: list = []
    bundle.export("reference", link, report=rep)
    assert any(f"is a link to {d.resolve()}" in n for n in rep[0].notes)
    assert link.is_symlink() and _n_entries(d) == N_REF


def test_a_hostile_provenance_is_refused_and_never_reaches_markdown(ref, env):
    d, _ = ref
    doc = json.loads((d / "yoder.json").read_text())
    doc["entries"][0]["provenance"]["device"] = "<img src=x onerror=alert(1)>"
    (d / "yoder.json").write_text(json.dumps(doc))
    _resign(d)
    with pytest.raises(RepcapError, match=r"provenance.device: .* holds '<', outside the plain alphabet"):
        bundle.import_(d)
    with pytest.raises(RepcapError, match="outside the plain alphabet"):
        bundle.status(d)
    # an import record edited in the cache after import: lookup cleans it, Markdown escapes
    shutil.rmtree(d)
    shutil.copytree(REF, d)
    bundle.import_(d)
    from repcap.results.bundle.index import _record_path
    from repcap.sweep import Cache, point_key

    e = runs.point_set("reference").experiment("yoder")
    cache, c = Cache.named(e.cache), e.configs[0]
    rp = _record_path(cache, bundle.point_id("packing.optimise", c))
    rec = json.loads(rp.read_text())
    rec["provenance"]["device"] = "<img src=x onerror=alert(1)>"
    rec["bundle"]["path"] = "<script>alert(1)</script>"
    body = {k: v for k, v in rec.items() if k != "sha256"}
    rec["sha256"] = _sha(canonical(body))
    rp.write_text(json.dumps(rec))
    lk = bundle.lookup("reference", "yoder")
    assert lk.found and lk.found[0].key == point_key(e.fn, c)
    md = bundle.provenance_markdown(lk, "reference")
    assert "<img" not in md and "<script" not in md and "computed on ?img src=x onerror=alert(1)?" in md
    # rendered as MyST renders a glue:md cell (markdown-it with HTML on): no element the book did not write
    from markdown_it import MarkdownIt

    hostile = "<img src=x onerror=alert(1)> <script>x</script> [a](javascript:alert(1)) ![i](x) *e* $m$"
    html = MarkdownIt("commonmark").render(bundle.markdown_escape(hostile) + " " + md)
    assert "<img" not in html and "<script" not in html and "<a " not in html and "<em>" not in html
    import re

    assert set(re.findall(r"</?([a-zA-Z0-9]+)", html)) == {"p", "code"}  # the book's own: the set's name in code
    assert bundle.markdown_escape("<img src=x> *a* [l](u) $x$") == ("&lt;img src=x&gt; \\*a\\* \\[l\\](u) \\$x\\$")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("eps_star", 1.5, r"eps_star = 1.5 is outside its possible range \[0, 1\]"),
        ("max_angle_deg", 181.0, r"max_angle_deg = 181.0 is outside its possible range \[0, 180\]"),
        ("seconds", -1.0, r"seconds = -1.0 is outside"),
    ],
)
def test_impossible_results_are_refused_on_import(ref, field, value, message):
    d, _ = ref
    doc = json.loads((d / "yoder.json").read_text())
    e = doc["entries"][0]
    e["result"][field] = value
    e["sha256"] = _sha(canonical(e["result"]))  # a forger re-checksums
    (d / "yoder.json").write_text(json.dumps(doc))
    _resign(d)
    with pytest.raises(RepcapError, match=message):
        bundle.read(d)


def test_infinity_in_a_manifest_and_a_swapped_big_file(ref, monkeypatch):
    d, _ = ref
    text = (d / "bundle.json").read_text().replace('"wall_s": 3334.8065722329993', '"wall_s": 1e999', 1)
    (d / "bundle.json").write_text(text)
    with pytest.raises(RepcapError, match=r"bundle.json: not a valid bundle file .*1e999 is not a finite number"):
        bundle.read(d)
    shutil.rmtree(d)
    shutil.copytree(REF, d)
    (d / "liu-main.json").write_bytes(b"[" * 5_000_000)  # would be a deep parse: the hash refuses it first
    from repcap.results.bundle import schema

    monkeypatch.setattr(schema, "_parse", lambda path, data: pytest.fail(f"parsed {path} before its hash"))
    with pytest.raises(RepcapError, match="liu-main.json: does not match the checksum in bundle.json"):
        sha = {x["name"]: x["sha256"] for x in json.loads((REF / "bundle.json").read_text())["experiments"]}
        schema._load(d / "liu-main.json", sha["liu-main"])


def test_file_system_cases_are_one_line(env, monkeypatch, capsys):
    long = env / ("x" * 300)
    assert cli.main(["bundle", "export", "reference", str(long)]) == 2
    err = capsys.readouterr().err
    assert "a component is 300 bytes long" in err and "Traceback" not in err and len(err.splitlines()) == 1
    f = env / "cachefile"
    f.write_text("")
    monkeypatch.setenv("REPCAP_CACHE", str(f))
    assert cli.main(["bundle", "export", "reference", str(env / "b")]) == 2
    err = capsys.readouterr().err
    assert f"REPCAP_CACHE {f}: not a folder" in err and len(err.splitlines()) == 1
    monkeypatch.setenv("REPCAP_CACHE", "/tmp/" + "a/" * 2500)
    assert cli.main(["bundle", "export", "reference", str(env / "b")]) == 2
    err = capsys.readouterr().err
    assert "REPCAP_CACHE /tmp/a/a/" in err and "bytes long, more than 3800" in err and len(err) < 400
    assert not (env / "b").exists()


def test_a_bundle_folder_that_cannot_be_listed_is_one_line(ref, monkeypatch):
    d, _ = ref
    import os as _os

    real = _os.listdir

    def denied(p="."):
        if Path(p) == d:
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real(p)

    monkeypatch.setattr(_os, "listdir", denied)
    with pytest.raises(RepcapError, match=r"bundle .*/ref: cannot read the folder \(Permission denied\)"):
        bundle.read(d)


def test_compute_out_refuses_a_regular_file_before_computing(env, monkeypatch, capsys):
    f = env / "out"
    f.write_text("")
    monkeypatch.setattr(runs, "compute", lambda *a, **k: pytest.fail("computed before checking --out"))
    assert cli.main(["bundle", "compute", "reference", "--scale", "smoke", "--out", str(f), "--no-progress"]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err


def test_a_float32_cosine_a_rounding_above_one_is_possible(ref):
    """A cosine of two nearly parallel unit vectors in float32 can be 1 + 1.2e-7 (a packing's first
    step at d = 2): within the ranges' rounding slack, while 1.5 is refused above."""
    d, _ = ref
    doc = json.loads((d / "yoder.json").read_text())
    e = doc["entries"][0]
    e["result"]["eps_curve"] = [1.0000001192092896, *e["result"]["eps_curve"][1:]]
    e["sha256"] = _sha(canonical(e["result"]))
    (d / "yoder.json").write_text(json.dumps(doc))
    _resign(d)
    assert len(bundle.read(d).entries) == N_REF


def test_the_provenance_sentence_keeps_a_dirty_commit(tmp_path, monkeypatch):
    """The shipped liu-main points were computed in a tree with uncommitted edits: the sentence the
    book shows says so ("-dirty"), instead of a bare commit that did not hold that code."""
    from repcap.results import bundle as b

    entries = json.loads((REF / "liu-main.json").read_text())["entries"]
    dirty = {e["provenance"]["commit"] for e in entries if e["provenance"]["commit"].endswith("-dirty")}
    assert dirty
    monkeypatch.setenv("REPCAP_CACHE", str(tmp_path / "cache"))
    b.import_(REF)
    lk = b.lookup("reference", "liu-main")
    assert len(lk.found) == len(entries)
    assert all(f"commit {c}" in lk.provenance_text("reference") for c in dirty)
