"""What a figure says of itself: where its numbers were computed (:func:`bundle_provenance`,
:func:`provenance_line`), the command that rebuilds it, its alt text, and the MyST directive
that shows it in the book (:func:`figure_directive`)."""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from repcap import RepcapError
from repcap.base.context import run_label
from repcap.base.paths import project_root


def alt_text(caption: str, limit: int = 300) -> str:
    """A figure's alt text: its caption as plain text (markup and line breaks removed, shortened at a
    sentence or word boundary)."""
    text = " ".join(re.sub(r"[`*_{}$]", "", caption).split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0] + " …").strip()


def bundle_provenance(lookup: Any, set_name: str = "reference") -> dict[str, Any] | None:
    """What :func:`save` records of a figure drawn from a results bundle: ``lookup`` is a
    :class:`repcap.results.bundle.lookups.Lookup`, or a list of them for a figure that draws several
    experiments (None, or lookups without points, give None).  The runs' own configuration (one
    dict, or the list of the points' configurations), the machines, commits and dates of the points,
    their summed computing time, where they come from, and the command that recomputes them."""
    lookups = [lk for lk in (lookup if isinstance(lookup, (list, tuple)) else [lookup]) if lk is not None]
    found = [f for lk in lookups for f in (getattr(lk, "found", None) or [])]
    if not found:
        return None
    experiments = list(dict.fromkeys(str(getattr(lk, "experiment", "") or "") for lk in lookups if lk.found))
    scale = str(getattr(lookups[0], "scale", "full") or "full")
    provs = [dict(f.provenance or {}) for f in found]
    configs = [dict(f.config) for f in found]
    settings = [resolved_point(str(getattr(lk, "fn", "") or ""), f.config) for lk in lookups for f in lk.found or []]
    sources = sorted({str(p.get("source") or "cache") for p in provs})
    bundles = sorted({_bundle_path(p.get("bundle")) for p in provs if p.get("source") == "bundle"})
    flag = "" if scale == "full" else f" --scale {scale}"
    return {
        "set": set_name,
        "experiment": ", ".join(experiments),
        "scale": scale,
        "points": len(found),
        "source": "bundle" if sources == ["bundle"] else "cache" if "bundle" not in sources else "bundle and cache",
        "bundles": bundles,
        "configuration": configs[0] if len(configs) == 1 else configs,
        # the same points as they ran: every default of the point function, the rule-decided ones in words
        "settings": settings[0] if len(settings) == 1 else settings,
        "devices": sorted(
            {str(p.get("device") or "unknown device").replace("(1 threads)", "(1 thread)") for p in provs}
        ),
        "commits": sorted({str(p["commit"]) for p in provs if p.get("commit")}),
        "computed_dates": sorted({str(p["computed"])[:10] for p in provs if p.get("computed")}),
        "compute_s": round(sum(float(p.get("seconds") or 0.0) for p in provs), 3),
        "recompute": f"repcap bundle compute {set_name}{flag} --only {' '.join(experiments)}",
    }


def resolved_point(fn: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """A point's config as it ran: the registered point function ``fn``'s defaults under it, less
    where it runs (device, threads, tile), and each setting its engine leaves to a rule (None) as the
    rule says (:data:`DERIVED`); the config itself for a function not registered."""
    from repcap.sweep.registry import get as registered_point
    from repcap.sweep.registry import names

    if fn not in names():
        return dict(config)
    pf = registered_point(fn)
    cfg = {k: v for k, v in {**pf.defaults, **config}.items() if k not in pf.execution}
    kind = {"toy": "toy_train", "packing": "pack"}.get(pf.engine)
    try:
        derived = DERIVED[kind](cfg) if kind else {}
    except (RepcapError, TypeError, ValueError):
        derived = {}
    return {k: (derived.get(k, v) if v is None else v) for k, v in cfg.items()}


def _bundle_path(where: Any) -> str:
    path = where.get("path") if isinstance(where, dict) else where
    try:
        return str(Path(str(path)).resolve().relative_to(project_root().resolve()))
    except (ValueError, OSError):
        return str(path)


def duration(seconds: float) -> str:
    """Seconds as the book writes a computing time: 0.3 s, 42 s, 56 min, 2.1 h."""
    s = float(seconds or 0.0)
    if s < 10:
        return f"{s:.1f} s"
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def side_run(side: Mapping[str, Any]) -> str:
    """The run that drew a figure, in one line: its profile and overrides ("quick + n_vectors=3000")."""
    drawn_by = side.get("drawn_by")
    drawn: Mapping[str, Any] = drawn_by if isinstance(drawn_by, Mapping) else {}
    profile = drawn.get("profile", side.get("profile"))
    overrides = drawn.get("overrides", side.get("overrides"))
    return run_label(profile, overrides if isinstance(overrides, Mapping) else None)


def created_date(side: Mapping[str, Any]) -> str:
    """The day the figure was drawn (UTC, ISO), or "" when the sidecar does not say."""
    t = side.get("created_unix")
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(float(t))) if t else ""
    except (TypeError, ValueError, OverflowError):
        return ""


def computed_date(side: Mapping[str, Any]) -> str:
    """The day a figure's numbers were computed: the latest of its bundled points' dates for a
    figure drawn from a bundle, else the day its chapter ran; "" when unknown."""
    comp = side.get("computed")
    if isinstance(comp, Mapping):
        dates = [str(d) for d in comp.get("computed_dates") or [] if d]
        return max(dates) if dates else ""
    return created_date(side)


def provenance_line(side: Mapping[str, Any]) -> str:
    """One line of plain text on where a figure's numbers were computed (machine, commit, date, and
    how long the computing took) and which chapter run drew it."""
    comp = side.get("computed")
    drawn = side.get("drawn_by") or {}
    nb = drawn.get("notebook", side.get("notebook", "?"))
    rev = drawn.get("git_revision", side.get("git_revision", "?"))
    if isinstance(comp, Mapping):
        n = int(comp.get("points", 0) or 0)
        dates = sorted(str(d) for d in comp.get("computed_dates") or [])
        when = "on an unknown date" if not dates else dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
        commits = [str(c)[:18] for c in comp.get("commits") or []]
        return (
            f"computed: {n} point{'s' if n != 1 else ''} of the {comp.get('set')} set ({comp.get('experiment')}), "
            f"{when}, on {', '.join(comp.get('devices') or ['an unknown device'])} at "
            f"{'commit' if len(commits) == 1 else 'commits'} {', '.join(commits) or 'unknown'}, "
            f"{duration(comp.get('compute_s', 0))} of computing; "
            f"drawn by {nb} ({side_run(side)}, git {rev}, {created_date(side) or 'unknown date'})"
        )
    return (
        f"computed and drawn by {nb} ({side_run(side)}) on {side.get('device', '?')}, git {rev}, "
        f"{created_date(side) or 'unknown date'}; {duration(side.get('compute_s', side.get('wall_time_s', 0)))} "
        "of the chapter's run since its previous figure"
    )


def reproduce_command(side: Mapping[str, Any]) -> str | None:
    """The command that rebuilds a figure: its chapter under its profile, with ``-p`` for every
    override (or, in a sidecar from before overrides were recorded, every parameter that differs
    from that profile's); None outside the runner.  For a figure drawn from bundled results the
    parameters are the chapter's (``drawn_by``), not the run's."""
    drawn = side.get("drawn_by") if isinstance(side.get("drawn_by"), Mapping) else None
    nb = (drawn or side).get("notebook")
    profile = (drawn or side).get("profile")
    if not nb or nb == "interactive" or profile not in ("smoke", "quick", "paper", "reference"):
        return None
    args = [f"repcap run {nb} --profile {profile}"]
    overrides = (drawn or side).get("overrides")
    if isinstance(overrides, Mapping):
        changed = dict(overrides)
    else:
        try:
            from .params import resolve_parameters

            base = resolve_parameters(project_root() / str(nb), str(profile), {})
        except (RepcapError, OSError):
            base = {}
        params = (
            (drawn or {}).get("parameters") if drawn is not None and "parameters" in drawn else side.get("parameters")
        )
        changed = {k: v for k, v in (params or {}).items() if base.get(k, object()) != v}
    for k, v in changed.items():
        args.append(f"-p {shlex.quote(f'{k}={json.dumps(v)}')}")
    return " ".join(args)


def figure_directive(
    fig_id: str, caption: str, side: Mapping[str, Any] | None = None, rel_dir: str = "figures", width: str = "100%"
) -> str:
    """The MyST markup of a numbered figure named ``fig_id``: the image (opens full size when
    clicked), its caption, and under it the files behind it, the notebook source at the revision
    that built it, and the command that rebuilds it."""
    side = dict(side or {})
    files = " · ".join(
        f"{{download}}`{label} <{rel_dir}/{fig_id}.{ext}>`"
        for ext, label in (
            ("csv", "data (CSV)"),
            ("svg", "SVG"),
            ("pdf", "PDF"),
            ("png", "PNG"),
            ("json", "parameters (JSON)"),
        )
    )
    nb = str(side.get("notebook") or "")
    source = ""
    if nb.startswith("notebooks/"):
        source = f" · {{download}}`source <../../{nb}>` (git `{side.get('git_revision', '?')}`)"
    cmd = reproduce_command(side)
    rebuild = f"\n\nRebuild: `{cmd}`" if cmd else ""
    comp = side.get("computed")
    if isinstance(comp, Mapping) and comp.get("recompute"):
        rebuild = f"\n\n{md_escape(provenance_line(side))}.\n\nRecompute: `{comp['recompute']}`" + (
            f" · Rebuild: `{cmd}`" if cmd else ""
        )
    narrow = ""
    if (side.get("files") or {}).get("narrow_svg"):
        # the phone layout: shown instead of the wide image below the breakpoint (repcap.css)
        narrow = (
            f"\n\n:::{{image}} {rel_dir}/{side['files']['narrow_svg']}\n:alt: {alt_text(caption)}\n"
            f":class: repcap-narrow\n:target: ../../_images/{fig_id}.svg\n:::"
        )
    return (
        f"````{{figure}} {rel_dir}/{fig_id}.svg\n:name: {fig_id}\n:width: {width}\n:alt: {alt_text(caption)}\n"
        f":target: ../../_images/{fig_id}.svg\n:class: repcap-figure\n:figclass: repcap-figure\n\n"
        f"{caption}\n\n{files}{source}, profile `{side_run(side)}`.{rebuild}{narrow}\n````\n"
    )


def md_escape(text: str) -> str:
    """Plain text for a MyST paragraph: markup characters and HTML escaped (a bundle's strings are
    data, never markup)."""
    import html as _html

    return re.sub(r"([\\`*_{}\[\]<>#|$~])", r"\\\1", _html.escape(str(text), quote=False))


def _toy_train_derived(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The values a toy TrainConfig's rule-decided settings (None) took: the warm-up and the
    loss window in steps, and the peak learning rate of W by the lr rule (a width rule in words)."""
    from repcap.engines.settings.toy import TrainConfig

    tc = TrainConfig(**{k: v for k, v in cfg.items() if k in TrainConfig.__dataclass_fields__})
    out: dict[str, Any] = {"warmup": tc.resolved_warmup(), "loss_window": tc.resolved_window()}
    if tc.warmup_fraction is None:
        out["warmup_fraction"] = round(tc.resolved_warmup() / tc.steps, 6)
    from repcap.engines.toy.schedule import CONSTANT_LR, peak_lrs

    m = cfg.get("m")
    if isinstance(m, int) and not isinstance(m, bool) and m > 0:  # one point: its width decides the rates
        out["lr"], out["bias_lr"] = peak_lrs(tc.lr_rule, m, cfg.get("lr"), None, cfg.get("bias_lr"))
        return out
    if tc.lr is None:
        out["lr"] = CONSTANT_LR if tc.lr_rule == "constant" else f"{tc.lr_rule}: by width, W 0.02 (8/m)^(1/4)"
    if cfg.get("bias_lr", 0) is None:
        out["bias_lr"] = "the W rate" if tc.lr_rule == "constant" else f"{tc.lr_rule}: by width, b 2/m"
    return out


def _pack_derived(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The rules a packing's settings left to a rule (None) follow, in words: Guha's exponent and
    learning rate depend on each point's d, so one figure's points may have several."""
    from repcap.engines.settings.packing import guha_exponent, guha_lr

    k_, d_ = cfg.get("k"), cfg.get("d")
    one = all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in (k_, d_))  # one point: its size decides
    k, d = (k_, d_) if one and k_ is not None and d_ is not None else (0, 0)
    out: dict[str, Any] = {}
    if cfg.get("p") is None and cfg.get("loss", "power") == "power":
        out["p"] = (
            guha_exponent(k, d)
            if one
            else "Guha's rule: min(floor(M / ln d), 20), M = 40, 50 or 60 by k and d, per point"
        )
    if cfg.get("lr") is None:
        out["lr"] = guha_lr(d) if one else "Guha's rule: 0.005 if d <= 1024 else 0.0025, per point"
    return out


#: Per engine config kind: what its settings left to a rule (None) took, for the sidecar.
DERIVED = {"toy_train": _toy_train_derived, "pack": _pack_derived, "pack_grid": _pack_derived}


def engine_settings(
    notebook: Any, parameters: Mapping[str, Any]
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """Every engine config of a chapter's run as it ran: ``{param: {setting: value}}``, each setting
    the resolved config's value, or for one the settings left to a rule (None), the value the rule
    gave (the warm-up in steps, the learning rate).  A partial mapping (a chapter run by plain
    papermill) gets the settings class's defaults first.  ``{}`` for a chapter with no engine config
    or a notebook outside the book.  Second: ``{param: [settings a rule decided]}``."""
    from .configs import resolve_config
    from .params import notebook_configs

    try:
        kinds = notebook_configs(project_root() / str(notebook))
    except (RepcapError, OSError, ValueError):
        return {}, {}
    out: dict[str, dict[str, Any]] = {}
    by_rule: dict[str, list[str]] = {}
    for name, kind in kinds.items():
        given = parameters.get(name)
        if not isinstance(given, Mapping):
            continue
        try:
            cfg = resolve_config(name, kind, [("the run's parameters", dict(given))])
            derived = DERIVED[kind](cfg) if kind in DERIVED else {}
        except RepcapError:
            cfg, derived = dict(given), {}
        out[name] = {k: (derived.get(k, v) if v is None else v) for k, v in cfg.items()}
        by_rule[name] = [k for k, v in cfg.items() if v is None and k in derived]
    return out, by_rule


def _mapping(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def settings_text(side: Mapping[str, Any]) -> str:
    """The engine configs a figure's sidecar records (the ones ``drawn_by.decided_by_rule`` names), in one line of plain
    text: ``train: n=1000, steps=20000, ...; other_train: ...`` ("" when it records none)."""
    drawn = _mapping(side.get("drawn_by"))
    params, names = _mapping(drawn.get("parameters")), _mapping(drawn.get("decided_by_rule"))
    parts = []
    for name in names:
        cfg = params.get(name)
        if isinstance(cfg, Mapping):
            parts.append(f"{name}: " + ", ".join(f"{k}={json.dumps(v)}" for k, v in cfg.items()))
    return "; ".join(parts)
