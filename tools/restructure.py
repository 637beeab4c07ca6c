"""One-off: move src/repcap's 51 top-level entries into role packages and rewrite every reference.

Kept in tools/ as the record of the move (issue 43): the mapping below is the new layout, and the
rewrite is mechanical (AST-located import statements re-rendered; dotted names and paths in text
replaced), so the move can be audited and redone.  Run from the project root on a clean tree.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "repcap"

ROLES = {
    "base": ["config", "devices", "io", "paths", "memory", "context", "quotes"],
    "sweep": ["codehash"],
    "models": ["catalog", "embeddings", "matrix", "synthetic", "offline_hashes", "formats", "hub", "offline"],
    "engines": [
        "cosine",
        "toy",
        "packing",
        "survey",
        "layers",
        "bounds",
        "constructions",
        "fits",
        "laws",
        "random_geometry",
        "frontier",
        "feasible",
    ],
    "results": ["runs", "bundle"],
    "evidence": ["claims", "reference", "scorecard", "findings", "digitise"],
    "book": [
        "build",
        "runner",
        "chapter",
        "params",
        "figures",
        "figindex",
        "sphinxext",
        "mathjax",
        "tables",
        "calculator",
        "sizing",
        "drawings",
        "figdata",
    ],
    "cli": ["commands"],
}
#: old top-level name -> new dotted tail
MOVES = {name: f"{role}.{name}" for role, names in ROLES.items() for name in names}


def old_modules() -> set[str]:
    out = set()
    for p in SRC.rglob("*.py"):
        rel = p.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.add(".".join(parts))
    return out


def new_name(old: str) -> str:
    parts = old.split(".")
    if len(parts) >= 2 and parts[0] == "repcap":
        if parts[1] in MOVES:
            return ".".join(["repcap", *MOVES[parts[1]].split("."), *parts[2:]])
        if parts[1] == "cli" and len(parts) == 2:
            return "repcap.cli"  # cli.py becomes cli/app.py; the package re-exports main
    return old


def module_of(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts = parts[:-1]
    return ".".join(parts), is_pkg


def resolve(mod: str | None, is_pkg: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    assert mod is not None
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def render_from(new_mod: str | None, new_is_pkg: bool, target: str) -> str:
    """``from X`` text for absolute ``target`` as seen from ``new_mod``: relative within one role
    package (below repcap.<role>), else absolute."""
    if new_mod is None:
        return target
    tparts, mparts = target.split("."), new_mod.split(".")
    pkg = mparts if new_is_pkg else mparts[:-1]
    if len(tparts) >= 3 and len(pkg) >= 2 and tparts[:2] == pkg[:2] and target != ".".join(pkg[:2]):
        common = 0
        while common < min(len(tparts), len(pkg)) and tparts[common] == pkg[common]:
            common += 1
        dots = "." * (len(pkg) - common + 1)
        return dots + ".".join(tparts[common:])
    return target


def rewrite_imports(text: str, old_mod: str | None, old_is_pkg: bool, new_mod: str | None, new_is_pkg: bool, mods):
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        src = resolve(old_mod, old_is_pkg, node.level, node.module)
        if not (src == "repcap" or src.startswith("repcap.")):
            continue
        groups: dict[str, list[str]] = {}
        for a in node.names:
            full = f"{src}.{a.name}"
            if a.name != "*" and full in mods:
                nm = new_name(full)
                frm, leaf = nm.rsplit(".", 1)
                alias = a.asname or (a.name if leaf != a.name else None)
                item = leaf + (f" as {alias}" if alias and alias != leaf else "")
            else:
                frm = new_name(src)
                item = a.name + (f" as {a.asname}" if a.asname else "")
            groups.setdefault(frm, []).append(item)
        # unchanged?  the same single group, and the statement's own text resolves to it from the new place
        if len(groups) == 1:
            (frm,) = groups
            same_items = [a.name + (f" as {a.asname}" if a.asname else "") for a in node.names] == groups[frm]
            own = resolve(new_mod, new_is_pkg, node.level, node.module) if new_mod or node.level == 0 else None
            if same_items and own == frm:
                continue
        indent = " " * node.col_offset
        out = []
        for frm, items in groups.items():
            out.append(f"{indent}from {render_from(new_mod, new_is_pkg, frm)} import {', '.join(items)}\n")
        last = lines[node.end_lineno - 1].rstrip("\n")
        tail = last[node.end_col_offset :].strip()
        inner = "".join(lines[node.lineno - 1 : node.end_lineno - 1])
        if "#" in inner:
            print(f"warning: {old_mod or '?'}:{node.lineno}: comments inside a multi-line import dropped")
        edits.append((node.lineno, node.end_lineno, "".join(out), tail if tail.startswith("#") else ""))
    for start, end, new, tail in sorted(edits, reverse=True):
        if tail:
            new = new.rstrip("\n") + "  " + tail + "\n"
        lines[start - 1 : end] = [new]
    return "".join(lines)


DOTTED = None


def rewrite_text(text: str) -> str:
    global DOTTED
    if DOTTED is None:
        names = sorted(MOVES, key=len, reverse=True)
        DOTTED = re.compile(r"(?<![\w.])repcap\.(" + "|".join(names) + r")(?![\w])")
    out = []
    for line in text.splitlines(keepends=True):
        if "legacy=" in line or "legacy_names" in line:
            out.append(line)  # format-1 identifiers are historical names: never rewritten
            continue
        line = DOTTED.sub(lambda m: "repcap." + MOVES[m.group(1)], line)
        line = re.sub(
            r"(?<![\w])repcap/(" + "|".join(sorted(MOVES, key=len, reverse=True)) + r")(?=[/.*\s`'\",)]|$)",
            lambda m: "repcap/" + MOVES[m.group(1)].replace(".", "/"),
            line,
        )
        line = re.sub(r"(?<![\w])repcap/cli\.py", "repcap/cli/app.py", line)
        out.append(line)
    return "".join(out)


def main() -> int:
    mods = old_modules()
    pyfiles = {p: module_of(p) for p in SRC.rglob("*.py")}
    # 1. imports inside the package, rendered for the new place
    for p, (mod, is_pkg) in pyfiles.items():
        nm = new_name(mod)
        if mod == "repcap.cli":
            nm = "repcap.cli.app"
        text = p.read_text()
        text = rewrite_imports(text, mod, is_pkg, nm, is_pkg, mods)
        p.write_text(text)
    # imports outside the package (tests, notebooks, tools, benchmarks)
    others = [
        p
        for d in ("tests", "notebooks", "tools", "benchmarks")
        for p in (ROOT / d).rglob("*.py")
        if p.name != "restructure.py"
    ]
    for p in others:
        text = p.read_text()
        p.write_text(rewrite_imports(text, None, False, None, False, mods))
    # 2. git mv
    for role in ROLES:
        (SRC / role).mkdir(exist_ok=True)
    for top in sorted(MOVES):
        src = SRC / top if (SRC / top).is_dir() else SRC / f"{top}.py"
        dest = SRC / MOVES[top].split(".")[0] / src.name
        subprocess.run(["git", "mv", str(src), str(dest)], check=True, cwd=ROOT)
    subprocess.run(["git", "mv", str(SRC / "cli.py"), str(SRC / "cli" / "app.py")], check=True, cwd=ROOT)
    # 3. dotted names and paths in every text file
    exts = {".py", ".md", ".toml", ".yml", ".yaml", ".sh", ".cfg", ".txt", ".ini"}
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    for rel in tracked:
        p = ROOT / rel
        if rel.startswith("data/") or rel == "tools/restructure.py" or not p.is_file():
            continue
        if p.suffix in exts or p.name in ("Makefile", "run"):
            text = p.read_text()
            new = rewrite_text(text)
            if new != text:
                p.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
