/* repcap: the book's search, made for a reader (loaded on every page, before Sphinx's searchtools.js).
 *
 * - Numbers are words: "76.5" or "2,176" is one search term (Sphinx splits it at the point and drops
 *   numbers); repcap.sphinxext adds such numbers to the search index.  A whole number ("975", or
 *   "975%") is searched for too: Sphinx's query parser skips every term made of digits alone.
 * - The index holds prose, not code, and ε, epsilon, eps and varepsilon find the same pages
 *   (repcap.sphinxext writes both into searchindex.js).
 * - Snippets are prose: the code cells, the calculator, and MathJax's assistive copies are removed
 *   and TeX (\(\varepsilon\)) becomes text (ε) before Sphinx cuts a snippet from the page.
 *   tests/notebooks/test_book_smoke.py applies the same two rules (DROP, texToText) to the built pages.
 */
(function (root) {
  "use strict";

  /* What a snippet never shows (CSS selectors). */
  var DROP = [".cell_input", "details.above-input", ".repcap-capcalc", "mjx-assistive-mml", ".headerlink",
              "script", "style", "div.highlight", "pre"];
  var TEX = {"varepsilon": "ε", "epsilon": "ε", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ",
             "mu": "μ", "sigma": "σ", "phi": "φ", "varphi": "φ", "theta": "θ", "lambda": "λ", "pi": "π",
             "tau": "τ", "Sigma": "Σ", "Delta": "Δ", "ln": "ln", "log": "log", "exp": "exp", "max": "max",
             "min": "min", "cos": "cos", "sin": "sin", "arccos": "arccos", "sqrt": "√", "cdot": "·",
             "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "approx": "≈", "ne": "≠",
             "neq": "≠", "infty": "∞", "propto": "∝", "to": "→", "pm": "±", "sum": "Σ", "mathbb": "",
             "mathrm": "", "mathbf": "", "text": "", "operatorname": "", "frac": "", "left": "", "right": "",
             "lvert": "|", "rvert": "|", "lVert": "‖", "rVert": "‖", "langle": "⟨", "rangle": "⟩",
             "quad": " ", "qquad": " ", "hat": "", "tilde": "", "bar": "", "displaystyle": "", "binom": ""};

  /* TeX as plain text: \(\varepsilon \le 0.1\) -> ε ≤ 0.1 */
  function texToText(s) {
    return String(s)
      .replace(/\\[()[\]]/g, "")
      .replace(/\$+/g, "")
      .replace(/\\([A-Za-z]+)/g, function (m, name) {
        var t = Object.prototype.hasOwnProperty.call(TEX, name) ? TEX[name] : name;
        return /^[a-z]/.test(t) ? " " + t + " " : t;
      })
      .replace(/\\[,;:! ]/g, " ")
      .replace(/\\([{}%&#_|])/g, "$1")
      .replace(/[{}]/g, "")
      .replace(/\s+/g, " ").trim();
  }

  /* One search term per number with a decimal point or thousands separator; else Sphinx's split. */
  function splitQuery(query) {
    var out = [];
    String(query).split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}.,]+/u).forEach(function (tok) {
      tok = tok.replace(/^[.,]+|[.,]+$/g, "");
      if (!tok) return;
      if (/^\d+(?:[.,]\d+)+$/.test(tok)) out.push(tok);
      else tok.split(/[.,]+/).forEach(function (t) { if (t) out.push(t); });
    });
    return out;
  }

  function cleanHtml(htmlString) {
    var doc = new DOMParser().parseFromString(htmlString, "text/html");
    DROP.forEach(function (q) { doc.querySelectorAll(q).forEach(function (e) { e.remove(); }); });
    doc.querySelectorAll(".math").forEach(function (e) { e.textContent = texToText(e.textContent); });
    return doc.documentElement.outerHTML;
  }

  /* The whole numbers of a query, which Sphinx's _parseQuery drops ("975" in "975%"). */
  function wholeNumbers(query) {
    return splitQuery(query).filter(function (t) { return /^\d+$/.test(t); });
  }

  var api = {DROP: DROP, texToText: texToText, splitQuery: splitQuery, wholeNumbers: wholeNumbers};
  if (typeof module !== "undefined" && module.exports) { module.exports = api; return; }
  root.splitQuery = splitQuery;  /* searchtools.js keeps a splitQuery that is already defined */
  root.repcapSearch = api;
  function patch() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.repcap) return;
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) { return original(cleanHtml(htmlString), anchor); };
    Search.htmlToText.repcap = true;
    var parse = Search._parseQuery;
    if (parse) {
      Search._parseQuery = function (query) {
        var out = parse(query);  /* [query, searchTerms, excludedTerms, highlightTerms, objectTerms] */
        wholeNumbers(query).forEach(function (n) { out[1].add(n); out[3].add(n); });
        return out;
      };
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patch); else patch();
})(this);
