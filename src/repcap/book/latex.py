"""Caption text as ASCII-safe LaTeX for a BibTeX entry (:func:`latex_text`, :func:`plain_latex`):
Greek letters, sub- and superscripts (φ₁, α_m, R^100, 10⁻⁵) as math, ``% & # _`` escaped, and
optionally every word with a capital in braces, so that no bibliography style lowers it.

Written here rather than taken from ``latexcodec`` (installed with pybtex): that codec knows no
sub- or superscript digits (φ₁, 10⁻⁵ fail), writes ℝ as ``\\mathbb R`` (amssymb) and √d as
``\\surd d``, and never joins a run of math into one ``$...$``.
"""

from __future__ import annotations

import re

#: Characters of the captions as LaTeX math (without the ``$``: :func:`latex_text` joins runs).
MATH = {
    "ε": r"\varepsilon",
    "μ": r"\mu",
    "σ": r"\sigma",
    "α": r"\alpha",
    "β": r"\beta",
    "γ": r"\gamma",
    "δ": r"\delta",
    "φ": r"\varphi",
    "τ": r"\tau",
    "θ": r"\theta",
    "π": r"\pi",
    "λ": r"\lambda",
    "ρ": r"\rho",
    "Δ": r"\Delta",
    "Σ": r"\Sigma",
    "ŵ": r"\hat w",
    "×": r"\times",
    "≤": r"\leq",
    "≥": r"\geq",
    "≈": r"\approx",
    "≠": r"\neq",
    "∝": r"\propto",
    "±": r"\pm",
    "‖": r"\|",
    "·": r"\cdot",
    "→": r"\to",
    "∞": r"\infty",
    "√": r"\surd",
    "ℝ": r"\mathbf{R}",
    "°": r"^\circ",
}
#: Characters of the captions as LaTeX text.
TEXT = {
    "−": "-",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "½": "1/2",
    "\u00a0": "~",
    "\u202f": "~",
    "\u2009": " ",
}
_SUB = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-"))
_SUP = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-"))
_SPECIAL = {
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
#: A math atom written in plain text: a Greek letter (or ℝ), or a single Latin letter or number
#: standing alone, with a sub- or superscript after it (α_m, φ₁, φ½, R^100, 10⁻⁵, k², d_model).
_SCRIPT = r"(?:_\{[^{}$]*\}|_[A-Za-z0-9]+|\^\{[^{}$]*\}|\^[-+]?[A-Za-z0-9.]+|[₀₁₂₃₄₅₆₇₈₉₊₋]+|[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+|½)"
_ATOM = re.compile(
    r"(?P<base>[α-ωΑ-Ωŵℝ]|(?<![A-Za-z0-9_.])(?:[A-Za-z]|\d+(?:\.\d+)?)(?="
    + _SCRIPT
    + r"))(?P<scripts>"
    + _SCRIPT
    + r"*)"
)


def _script_tex(scripts: str) -> str:
    """The sub- and superscripts after a math atom, as TeX."""
    out = []
    for m in re.finditer(_SCRIPT, scripts):
        s = m.group()
        if s == "½":
            out.append("_{1/2}")
        elif s[0] in _SUB:
            out.append("_{" + "".join(_SUB[c] for c in s) + "}")
        elif s[0] in _SUP:
            out.append("^{" + "".join(_SUP[c] for c in s) + "}")
        else:
            mark, body = s[0], s[1:]
            body = body[1:-1] if body.startswith("{") else body
            body = "".join(MATH.get(c, c) for c in body)
            if mark == "_" and re.fullmatch(r"[A-Za-z]{2,}", body):  # d_model: a name, upright
                body = r"\mathrm{" + body + "}"
            out.append(mark + "{" + body + "}")
    return "".join(out)


def _atom_tex(m: re.Match[str]) -> str:
    base = m.group("base")
    tex = MATH.get(base, base)
    if base == "R" and m.group("scripts").startswith("^"):  # R^100: the reals
        tex = r"\mathbf{R}"
    return tex + _script_tex(m.group("scripts"))


def _text_latex(text: str) -> list[tuple[bool, str]]:
    """Plain text as (is_math, LaTeX) runs."""
    runs: list[tuple[bool, str]] = []
    pos = 0
    for m in _ATOM.finditer(text):
        if m.start() > pos:
            runs += _chars(text[pos : m.start()])
        runs.append((True, _atom_tex(m)))
        pos = m.end()
    runs += _chars(text[pos:])
    return runs


def _chars(text: str) -> list[tuple[bool, str]]:
    runs: list[tuple[bool, str]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "√" and i + 1 < len(text) and re.match(r"[A-Za-z0-9]", text[i + 1]):
            j = i + 1
            while j < len(text) and re.match(r"[A-Za-z0-9]", text[j]):
                j += 1
            runs.append((True, r"\sqrt{" + text[i + 1 : j] + "}"))
            i = j
            continue
        if ch in MATH:
            runs.append((True, MATH[ch]))
        elif ch in _SUP or ch in _SUB:
            j = i
            while j < len(text) and text[j] in (_SUP if ch in _SUP else _SUB):
                j += 1
            runs.append((True, _script_tex(text[i:j])))
            i = j
            continue
        elif ch in TEXT:
            runs.append((False, TEXT[ch]))
        elif ch in _SPECIAL:
            runs.append((False, _SPECIAL[ch]))
        elif ord(ch) < 128:
            runs.append((False, ch))
        else:
            runs.append((False, "?"))  # a character we have no LaTeX for: visible, never an encoding error
        i += 1
    return runs


def _join(runs: list[tuple[bool, str]], protect: bool) -> str:
    """Runs as one LaTeX string: adjacent math runs in one ``$...$`` (braced when ``protect``, so
    that a style's change of case leaves it alone)."""
    out: list[str] = []
    math: list[str] = []

    def flush() -> None:
        if math:
            body = ""
            for piece in math:  # \alpha m, never \alpham
                if re.search(r"\\[A-Za-z]+$", body) and piece[:1].isalpha():
                    body += " "
                body += piece
            out.append(("{$" + body + "$}") if protect else ("$" + body + "$"))
            math.clear()

    for is_math, tex in runs:
        if is_math:
            math.append(tex)
        else:
            flush()
            out.append(tex)
    flush()
    return "".join(out)


def _markup_runs(text: str) -> list[tuple[bool, str]]:
    """A caption (MyST) as (is_math, LaTeX) runs: its ``$...$`` math kept as TeX, roles as their
    text, emphasis and code marks dropped."""
    text = re.sub(r"\{[a-z:]+\}`([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", str(text))  # MyST roles: their text
    text = re.sub(r"(?<!\\)[`*]", "", text)
    runs: list[tuple[bool, str]] = []
    for i, part in enumerate(re.split(r"(?<!\\)\$", text)):
        if i % 2:  # inside $...$: TeX already; only its Unicode is translated
            runs.append((True, "".join(MATH.get(c, c) for c in part)))
        else:
            runs += _text_latex(part.replace("\\$", "$"))
    return runs


def latex_text(text: str, protect: bool = False) -> str:
    """``text`` (a caption, a path, a parameter list) as ASCII-safe LaTeX for a BibTeX field: math
    as math, specials escaped.  ``protect``: braces around math and around every word with a
    capital, as a title needs."""
    out = _join(_markup_runs(text), protect)
    if protect:
        out = _protect_capitals(out)
    return out


def _protect_capitals(tex: str) -> str:
    """Braces around each word holding a capital letter, outside braces already there."""
    out: list[str] = []
    word: list[str] = []
    depth = 0

    def flush() -> None:
        if word:
            w = "".join(word)
            out.append("{" + w + "}" if re.search(r"[A-Z]", w) and not w.startswith("\\") else w)
            word.clear()

    i = 0
    while i < len(tex):
        ch = tex[i]
        if depth == 0 and (ch.isalnum() or (ch in "'-." and word)):
            word.append(ch)
        elif ch == "\\" and depth == 0:  # a control sequence (\%, \ldots{}): copied as it is
            flush()
            m = re.match(r"\\(?:[A-Za-z]+(?:\{\})?|.)", tex[i:])
            seq = m.group() if m else ch
            out.append(seq)
            i += len(seq)
            continue
        else:
            flush()
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth = max(0, depth - 1)
            out.append(ch)
        i += 1
    flush()
    return "".join(out)


def plain_latex(text: str) -> str:
    """``text`` that is not prose (a path, a parameter list, a machine) as ASCII-safe LaTeX: every
    special escaped, Greek as math, no sub- or superscripts read into it (``n_vectors`` stays)."""
    return _join(_chars(str(text)), protect=False)
