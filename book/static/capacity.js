/* repcap capacity calculator: how many directions fit in d dimensions at tolerance eps, under each
 * capacity law, next to the rigorous bounds.  Plain JavaScript shipped with the book (no network).
 *
 * The formulas are those of repcap.laws (Law.log_capacity, yoder_log10_capacity) and repcap.bounds
 * (welch_log_capacity, levenshtein_log_capacity); the constants come from the page, where the
 * chapter writes repcap.calculator.config() (the published values in data/reference/) into the
 * element's data-config attribute.  tests/unit/test_capacity_calculator.py runs this file under
 * node and compares it with the Python functions on a grid.
 */
(function (root) {
  "use strict";

  var LN10 = Math.log(10);

  /* ln k(d, eps) under one law {form, constants} (repcap.laws.Law.log_capacity). */
  function lawLogCapacity(law, eps, d) {
    var C = law.constants.C;
    if (law.form === "jl") return d * eps * eps / C;
    if (law.form === "adjusted") return Math.log(d) + d * eps * eps / C;
    if (law.form === "four") {
      var a = law.constants.a, b = law.constants.b, c = law.constants.c;
      return (Math.log(d) + Math.pow(eps * eps * Math.pow(d, c) / C, 1 / b)) / a;
    }
    throw new Error("unknown law form " + law.form);
  }

  /* log10 N of Yoder's rule, N = 10^(d F^2 / divisor), F = degrees off orthogonal (eps = sin F). */
  function yoderLog10Capacity(d, eps, divisor) {
    var F = Math.asin(eps) * 180 / Math.PI;
    return d * F * F / divisor;
  }

  /* ln k_max of the Welch bounds: the fewest vectors any order s allows at coherence mu
   * (repcap.bounds.welch_log_capacity); Infinity where no order up to maxOrder bounds k. */
  function welchLogCapacity(d, mu, maxOrder) {
    if (maxOrder === undefined) maxOrder = Math.floor(Math.min(200000, 3 * mu * mu * d + 60));
    var logN = 0, best = Infinity, logMu2 = 2 * Math.log(mu);
    for (var s = 1; s <= maxOrder; s++) {
      logN += Math.log((d + s - 1) / s); /* ln binom(d + s - 1, s) */
      var logMu2s = s * logMu2, z = logMu2s + logN;
      if (z < 0) {
        var logk = Math.log1p(-Math.exp(logMu2s)) + logN - Math.log(-Math.expm1(Math.min(z, -1e-300)));
        if (logk < best) best = logk;
      }
    }
    return best;
  }

  /* ln k_max of the Levenshtein bound (repcap.bounds.levenshtein_log_capacity): the degree-4 member of
   * his family of linear-programming bounds, which bounds k only for eps^2 < 3 / (d + 2). */
  function levenshteinLogCapacity(d, mu) {
    var mu2 = mu * mu, den = 3 - (d + 2) * mu2;
    return den > 0 ? Math.log(d * (d + 2) * (1 - mu2)) - Math.log(den) : Infinity;
  }

  /* Every row of the calculator at (d, eps): [{key, label, log10, kind}] with kind "law" or "bound". */
  function evaluate(config, d, eps) {
    var rows = config.laws.map(function (law) {
      return {key: law.name, label: law.label, log10: lawLogCapacity(law, eps, d) / LN10, kind: "law"};
    });
    rows.push({key: "yoder", label: config.yoder.label, log10: yoderLog10Capacity(d, eps, config.yoder.divisor),
               kind: "law"});
    rows.push({key: "welch", label: "Welch bound (at most)", log10: welchLogCapacity(d, eps) / LN10, kind: "bound"});
    rows.push({key: "levenshtein", label: "Levenshtein bound, degree 4 (at most; for ε < " +
               Math.sqrt(3 / (d + 2)).toPrecision(3) + ")", log10: levenshteinLogCapacity(d, eps) / LN10, kind: "bound"});
    var f = config.fitted;
    rows.forEach(function (r) {
      r.extrapolated = !!(f && r.kind === "law" && r.key !== "yoder" && isFinite(r.log10) &&
        (r.log10 > Math.log10(f.k_max) || r.log10 - Math.log10(d) > Math.log10(f.kd_max)));
    });
    return rows;
  }

  /* The largest known explicit code in R^d at coherence at most eps (repcap.constructions.largest_code):
   * the codes of the page's catalogue and Sloane's best-known packings of their own dimension d' <= d,
   * the orthonormal basis (d vectors at 0) and the simplex (d + 1 at 1/d).  {name, log10, mu, status}. */
  function largestCode(config, d, eps) {
    var cands = [{name: "orthonormal basis, d = " + d, d: d, log10: Math.log10(d), mu: 0, status: "exact"}];
    if (d >= 2) cands.push({name: "simplex, d = " + d, d: d, log10: Math.log10(d + 1), mu: 1 / d, status: "exact"});
    (config.codes || []).forEach(function (c) {
      cands.push({name: c[3], d: c[0], log10: c[1], mu: c[2], status: c[4]});
    });
    (config.best_known || []).forEach(function (c) {
      cands.push({name: "best known: " + c[1] + " lines (Sloane's table)", d: c[0], log10: Math.log10(c[1]), mu: c[2],
                  status: "exact"});
    });
    var best = null;
    cands.forEach(function (c) {
      if (c.d > d || c.mu > eps) return;
      if (best === null || c.log10 > best.log10 || (c.log10 === best.log10 && c.mu < best.mu)) best = c;
    });
    return best;
  }

  /* The sentence on where Guha's laws were fitted (config.fitted, from his stored packings). */
  function fittedNote(config) {
    var f = config.fitted;
    if (!f) return "";
    return "Guha fitted the laws to his optimised packings: k up to " + f.k_max.toLocaleString("en-US") +
      " (k/d up to " + f.kd_max.toLocaleString("en-US") + "), ε* from " + f.eps_min.toPrecision(2) + " to " +
      f.eps_max.toPrecision(2) + "; a capacity beyond that, every one of his Table 1 included, is an extrapolation in k.";
  }

  /* A count from its log10: digits below a million, else m × 10^e. */
  function formatCount(log10) {
    if (log10 === Infinity) return "no bound";
    if (log10 === null || log10 === undefined || !isFinite(log10)) return "—";
    if (log10 < 6) return Math.round(Math.pow(10, log10)).toLocaleString("en-US");
    var e = Math.floor(log10), m = Math.pow(10, log10 - e);
    if (m >= 9.995) { m = 1; e += 1; }
    return m.toFixed(2) + " × 10" + superscript(e);
  }

  var SUP = {"0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻"};
  function superscript(n) { return String(n).split("").map(function (c) { return SUP[c]; }).join(""); }

  /* Parse the two inputs; returns {d, eps} or {error}. */
  function parseInputs(dText, epsText, limits) {
    var d = Number(String(dText).trim()), eps = Number(String(epsText).trim());
    if (!Number.isInteger(d) || d < 1 || d > limits.max_d)
      return {error: "d must be a whole number from 1 to " + limits.max_d.toLocaleString("en-US") + "."};
    if (!isFinite(eps) || eps <= 0 || eps >= 1)
      return {error: "ε must be a number between 0 and 1 (an angle between 0° and 90°)."};
    return {d: d, eps: eps};
  }

  /* Guha's class of a token-embedding matrix at this eps; none for a width outside his models'. */
  function classOf(config, d, eps) {
    var w = config.embeddings;
    if (w && (d < w.d_min || d > w.d_max))
      return "Guha's classes describe his models' token embeddings (d from " + w.d_min.toLocaleString("en-US") +
        " to " + w.d_max.toLocaleString("en-US") + "), so none is given here";
    if (eps > config.classes.class1_above) return "Class 1 (ε > " + config.classes.class1_above + "): Guha calls its capacity vacuous";
    if (eps < config.classes.class2_below) return "Class 2 (ε < " + config.classes.class2_below + ")";
    return "between Guha's classes (no model of his falls here)";
  }

  /* The angle box: degrees in (0, 90) -> {angle, eps = cos(angle)} at full precision, or {error}. */
  function parseAngle(text) {
    var a = Number(String(text).trim());
    if (!String(text).trim() || !isFinite(a) || a <= 0 || a >= 90) return {error: "The angle must be between 0° and 90°."};
    var eps = Math.cos(a * Math.PI / 180);
    if (!(eps < 1)) return {error: "An angle of " + a + "° is too small to tell from 0° in double precision."};
    return {angle: a, eps: eps};
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function mount(box) {
    var config = JSON.parse(box.getAttribute("data-config"));
    box.textContent = "";
    var form = el("div", {"class": "repcap-capcalc-inputs"});
    var dIn = el("input", {type: "text", inputmode: "numeric", value: String(config.default_d), "aria-label": "dimension d"});
    var eIn = el("input", {type: "text", inputmode: "decimal", value: String(config.default_eps), "aria-label": "tolerance epsilon"});
    var aIn = el("input", {type: "text", inputmode: "decimal", value: "", "aria-label": "angle between the closest pair, degrees"});
    var labels = [["dimension d", dIn], ["tolerance ε (largest |cos|)", eIn], ["or the angle, degrees", aIn]];
    labels.forEach(function (p) { var l = el("label", {}, p[0] + " "); l.appendChild(p[1]); form.appendChild(l); });
    var note = el("p", {"class": "repcap-capcalc-note", role: "status"});
    var table = el("table", {"class": "repcap"});
    box.appendChild(form);
    box.appendChild(note);
    box.appendChild(el("div", {"class": "repcap-table"})).appendChild(table);

    var fitted = el("p", {"class": "repcap-capcalc-note"});
    box.appendChild(fitted);
    var givenAngle = null;  /* the angle typed in the angle box, shown as typed */
    function angleOf(eps) { return givenAngle !== null ? String(givenAngle) : +(Math.acos(eps) * 180 / Math.PI).toPrecision(6); }
    function render() {
      var p = parseInputs(dIn.value, eIn.value, config.limits);
      table.textContent = "";
      fitted.textContent = "";
      if (p.error) { note.textContent = p.error; return; }
      var rows = evaluate(config, p.d, p.eps);
      var bound = Math.min(rows[rows.length - 2].log10, rows[rows.length - 1].log10);
      note.textContent = "d = " + p.d + ", ε = " + (+p.eps.toPrecision(12)) + " (closest pair at " + angleOf(p.eps) + "°): " +
        classOf(config, p.d, p.eps) + ".";
      var extra = rows.some(function (r) { return r.extrapolated; });
      fitted.textContent = (extra ? "† beyond Guha's fitted packings. " : "") + fittedNote(config);
      var code = largestCode(config, p.d, p.eps);
      var head = el("tr");
      ["", "vectors k", "log10 k", "against the bounds", "fitted range", "against the largest known explicit code"].forEach(function (h) {
        head.appendChild(el("th", {}, h));
      });
      table.appendChild(el("thead")).appendChild(head);
      var body = el("tbody");
      rows.forEach(function (r) {
        var tr = el("tr");
        var verdict = r.kind === "bound" ?
          (isFinite(r.log10) ? "proven: no packing holds more" : "gives no bound at this ε") :
          (r.log10 > bound ? "more than any packing can hold" : "within the bounds");
        var flag = r.extrapolated ? "†\u00a0extrapolated" : (r.kind === "law" && r.key !== "yoder" && config.fitted ? "within" : "");
        var vsCode = r.kind === "bound" || !isFinite(r.log10) ? "" :
          (r.log10 < code.log10 ? "fewer: the code holds " + formatCount(code.log10 - r.log10) + "× as many" :
           "more than the code");
        [r.label, formatCount(r.log10), isFinite(r.log10) ? r.log10.toFixed(2) : "—", verdict, flag, vsCode].forEach(function (v) {
          tr.appendChild(el("td", {}, v));
        });
        body.appendChild(tr);
      });
      var ctr = el("tr");
      ["largest known explicit code: " + code.name + " (largest |cos| " + (+code.mu.toPrecision(4)) +
       (code.status === "bound" ? ", a theorem's bound" : "") + ")", formatCount(code.log10), code.log10.toFixed(2),
       "known to fit (our catalogue, not a bound)", ""].forEach(function (v) { ctr.appendChild(el("td", {}, v)); });
      body.appendChild(ctr);
      table.appendChild(body);
    }
    eIn.addEventListener("input", function () { aIn.value = ""; givenAngle = null; render(); });
    dIn.addEventListener("input", render);
    aIn.addEventListener("input", function () {
      var p = parseAngle(aIn.value);
      if (p.error) { givenAngle = null; table.textContent = ""; fitted.textContent = ""; note.textContent = p.error; return; }
      givenAngle = p.angle;
      eIn.value = String(p.eps);  /* every digit: the ε box holds exactly the cosine computed with */
      render();
    });
    render();
  }

  var api = {lawLogCapacity: lawLogCapacity, yoderLog10Capacity: yoderLog10Capacity, welchLogCapacity: welchLogCapacity,
             levenshteinLogCapacity: levenshteinLogCapacity, evaluate: evaluate, formatCount: formatCount,
             largestCode: largestCode,
             parseInputs: parseInputs, parseAngle: parseAngle, classOf: classOf, fittedNote: fittedNote, mount: mount};
  if (typeof module !== "undefined" && module.exports) { module.exports = api; return; }
  root.repcapCapacity = api;
  function start() { Array.prototype.forEach.call(document.querySelectorAll(".repcap-capcalc[data-config]"), mount); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})(this);
