"""The HTML report of ``xmo validate --report FILE.html``.

One self-contained page (inline CSS, JavaScript and SVG; nothing fetched):
the counts by status, plots (the distribution of max abs errors, conversion
time and peak RSS against model size, layers xmo vs ovc), and a table of the
models, sortable by any column (``report.html#sort=2-desc`` opens it sorted
by the third column, descending), whose rows open the model's details (the
unsupported-ops report, the first diverging tensor, layers by type, the
slowest passes). When its script has run, ``<body>`` gets ``data-ready="1"``;
a script error sets ``data-errors`` and is shown at the top.
"""

from __future__ import annotations

import html
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from xmo.validate.worker import STATUSES, Result

COLORS = {"pass": "#2e7d32", "mismatch": "#ef6c00", "unsupported": "#6a1b9a", "error": "#c62828",
          "crash": "#ad1457", "timeout": "#4e342e", "oom": "#283593"}

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:20px;color:#222}
h1{font-size:20px;margin:0 0 8px} h2{font-size:16px;margin:18px 0 6px}
.badges span{display:inline-block;padding:3px 10px;margin:0 6px 6px 0;border-radius:12px;color:#fff}
.plots{display:flex;flex-wrap:wrap;gap:12px} .plots figure{margin:0;border:1px solid #ddd;padding:4px}
figcaption{font-size:12px;color:#555;text-align:center}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border-bottom:1px solid #e5e5e5;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4;cursor:pointer;user-select:none;position:sticky;top:0}
th.asc::after{content:" \\25B2"} th.desc::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.model{cursor:pointer} tr.model:hover{background:#fafafa}
tr.details td{background:#fbfbf7} tr.details pre{white-space:pre-wrap;margin:4px 0}
.status{color:#fff;border-radius:8px;padding:0 6px}
.err{max-width:420px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#errors{color:#c62828}
"""

_JS = r"""
window.addEventListener('error', function (e) {
  document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + ';';
  document.getElementById('errors').textContent += 'script error: ' + e.message + ' ';
});
(function () {
  var table = document.getElementById('models');
  var body = table.tBodies[0];
  function pairs() {
    var rows = Array.prototype.slice.call(body.rows), out = [];
    for (var i = 0; i < rows.length; i += 2) out.push([rows[i], rows[i + 1]]);
    return out;
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.addEventListener('click', function () {
      var asc = !th.classList.contains('asc');
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.className = ''; });
      th.className = asc ? 'asc' : 'desc';
      var numeric = th.dataset.type === 'num';
      var list = pairs();
      list.sort(function (a, b) {
        var x = a[0].cells[col].dataset.v, y = b[0].cells[col].dataset.v;
        if (x === '' || y === '') return (x === '') - (y === '');  // empty cells last
        if (numeric) { x = +x; y = +y; }
        var c = x < y ? -1 : x > y ? 1 : 0;
        return asc ? c : -c;
      });
      list.forEach(function (p) { body.appendChild(p[0]); body.appendChild(p[1]); });
    });
  });
  body.addEventListener('click', function (e) {
    var tr = e.target.closest('tr.model');
    if (tr) { var d = tr.nextElementSibling; d.hidden = !d.hidden; }
  });
  var m = /^#sort=(\d+)(-desc)?$/.exec(location.hash);  // a link to a sorted view
  if (m) {
    var th = table.tHead.rows[0].cells[+m[1]];
    th.click();
    if (m[2]) th.click();
  }
  document.getElementById('shown').textContent = body.rows.length / 2;
  document.body.dataset.ready = '1';
})();
"""


def _fmt(v: float | int | None, spec: str = ".3g") -> str:
    return "" if v is None else format(v, spec)


def _latency(r: Result) -> float | None:
    vals = [v for v in r.latency_ms.values() if v is not None]
    return min(vals) if vals else None


#: (header, value of a result, text of the value, numeric)
_COLUMNS: list[tuple[str, Callable[[Result], object], Callable[[object], str], bool]] = [
    ("Model", lambda r: r.name, str, False),
    ("Status", lambda r: STATUSES.index(r.status) if r.status in STATUSES else 99, str, True),
    ("Max abs err", lambda r: r.max_abs, _fmt, True),
    ("Max rel err", lambda r: r.max_rel, _fmt, True),
    ("Layers", lambda r: r.layers, lambda v: _fmt(v, "d"), True),
    ("Transposes", lambda r: r.transposes, lambda v: _fmt(v, "d"), True),
    ("ovc layers", lambda r: r.ovc_layers, lambda v: _fmt(v, "d"), True),
    ("Convert (s)", lambda r: r.convert_s, lambda v: _fmt(v, ".3f"), True),
    ("Peak RSS (MiB)", lambda r: None if r.peak_rss is None else r.peak_rss / 2**20, lambda v: _fmt(v, ".0f"), True),
    ("Latency (ms)", _latency, _fmt, True),
    ("Size (KiB)", lambda r: r.model_bytes / 1024, lambda v: _fmt(v, ".1f"), True),
    ("Error", lambda r: r.error, str, False),
]


def _row(r: Result) -> str:
    cells = []
    for header, get, text, numeric in _COLUMNS:
        v = get(r)
        if header == "Status":
            shown = (f'<span class="status" style="background:{COLORS.get(r.status, "#555")}">'
                     f"{html.escape(r.status)}</span>")
        else:
            shown = html.escape(text(v) if v is not None else "")
        cls = ' class="num"' if numeric and header != "Status" else ' class="err"' if header == "Error" else ""
        title = f' title="{html.escape(r.error)}"' if header == "Error" else ""
        sort = "" if v is None else html.escape(str(v))
        cells.append(f'<td{cls}{title} data-v="{sort}">{shown}</td>')
    return f'<tr class="model" data-status="{html.escape(r.status)}">{"".join(cells)}</tr>' + _details(r)


def _details(r: Result) -> str:
    parts = [f"<b>{html.escape(r.model)}</b> (step reached: {html.escape(r.step)})"]
    if r.error:
        parts.append(f"<p>Error: {html.escape(r.error)}</p>")
    if r.divergence:
        parts.append(f"<p>First diverging tensor: <code>{html.escape(r.divergence)}</code></p>")
    if r.details:
        parts.append(f"<pre>{html.escape(r.details)}</pre>")
    if r.layers_by_type:
        types = sorted(set(r.layers_by_type) | set(r.ovc_by_type))
        rows = "".join(f"<tr><td>{html.escape(t)}</td><td class=num>{r.layers_by_type.get(t, 0)}</td>"
                       f"<td class=num>{r.ovc_by_type.get(t, '') if r.ovc_by_type else ''}</td></tr>"
                       for t in types)
        parts.append("<table style='width:auto'><tr><th>Layer type</th><th>xmo</th><th>ovc</th></tr>"
                     f"{rows}</table>")
    if r.ovc_error:
        parts.append(f"<p>ovc: {html.escape(r.ovc_error)}</p>")
    if r.pass_seconds:
        passes = ", ".join(f"{html.escape(k)} {v:.3f} s" for k, v in r.pass_seconds.items())
        parts.append(f"<p>Slowest passes: {passes}</p>")
    if r.latency_ms:
        parts.append("<p>Latency: " + ", ".join(f"{html.escape(k)} {_fmt(v)} ms" for k, v in r.latency_ms.items())
                     + "</p>")
    return f'<tr class="details" hidden><td colspan="{len(_COLUMNS)}">{"".join(parts)}</td></tr>'


# ---------------------------------------------------------------------------
# Plots (inline SVG)
# ---------------------------------------------------------------------------

W, H, PAD = 360, 240, 44


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:  # decades; with 2 and 5 between them when there are few
        steps = (1, 2, 5) if hi - lo < 2 else (1,)
        return [e + math.log10(m) for e in range(math.floor(lo), math.ceil(hi) + 1) for m in steps]
    if hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10((hi - lo) / 4 or 1))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= 6:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def _tick_text(v: float, log: bool) -> str:
    if not log:
        return f"{v:g}"
    value = 10**v
    return f"{value:g}" if 1e-3 <= value < 1e4 else f"{value:.0e}"


def scatter(points: list[tuple[float, float, str, str]], xlabel: str, ylabel: str,
            logx: bool = False, logy: bool = False, diagonal: bool = False) -> str:
    """An SVG scatter plot of (x, y, label, status) points."""
    pts = [(math.log10(x) if logx else x, math.log10(y) if logy else y, lab, st)
           for x, y, lab, st in points if (x > 0 or not logx) and (y > 0 or not logy)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img">']
    if not pts:
        out.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" fill="#777">no data</text></svg>')
        return "".join(out)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    if diagonal:
        x0 = y0 = min(x0, y0)
        x1 = y1 = max(x1, y1)
    x0, x1 = (x0 - 0.5, x1 + 0.5) if x1 == x0 else (x0, x1)
    y0, y1 = (y0 - 0.5, y1 + 0.5) if y1 == y0 else (y0, y1)

    def sx(v: float) -> float:
        return PAD + (v - x0) / (x1 - x0) * (W - PAD - 10)

    def sy(v: float) -> float:
        return H - PAD + 10 - (v - y0) / (y1 - y0) * (H - PAD - 10)

    out.append(f'<rect x="{PAD}" y="10" width="{W - PAD - 10}" height="{H - PAD}" fill="none" stroke="#999"/>')
    for t in _ticks(x0, x1, logx):
        if x0 <= t <= x1:
            out.append(f'<text x="{sx(t):.1f}" y="{H - PAD + 24}" font-size="10" text-anchor="middle">'
                       f"{_tick_text(t, logx)}</text>")
    for t in _ticks(y0, y1, logy):
        if y0 <= t <= y1:
            out.append(f'<text x="{PAD - 4}" y="{sy(t) + 3:.1f}" font-size="10" text-anchor="end">'
                       f"{_tick_text(t, logy)}</text>")
    out.append(f'<text x="{(W + PAD) / 2}" y="{H - 6}" font-size="11" text-anchor="middle">{html.escape(xlabel)}</text>')
    out.append(f'<text x="12" y="{(H - PAD) / 2 + 10}" font-size="11" text-anchor="middle" '
               f'transform="rotate(-90 12 {(H - PAD) / 2 + 10})">{html.escape(ylabel)}</text>')
    if diagonal:
        out.append(f'<line x1="{sx(x0):.1f}" y1="{sy(y0):.1f}" x2="{sx(x1):.1f}" y2="{sy(y1):.1f}" '
                   'stroke="#bbb" stroke-dasharray="4"/>')
    for x, y, lab, st in pts:
        out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="{COLORS.get(st, "#555")}" '
                   f'fill-opacity="0.75"><title>{html.escape(lab)}</title></circle>')
    out.append("</svg>")
    return "".join(out)


def histogram(values: list[float], xlabel: str) -> str:
    """An SVG histogram of log10 of positive ``values`` (one bar a decade); zeros in their own bar."""
    zeros = sum(1 for v in values if v == 0)
    logs = [math.floor(math.log10(v)) for v in values if v > 0]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img">']
    if not values:
        out.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" fill="#777">no data</text></svg>')
        return "".join(out)
    lo, hi = (min(logs), max(logs)) if logs else (0, 0)
    bins = [("0", zeros)] if zeros else []
    bins += [(f"1e{e}", sum(1 for v in logs if v == e)) for e in range(lo, hi + 1)] if logs else []
    top = max(c for _, c in bins) or 1
    bw = (W - PAD - 10) / len(bins)
    out.append(f'<line x1="{PAD}" y1="{H - PAD + 10}" x2="{W - 10}" y2="{H - PAD + 10}" stroke="#999"/>')
    for i, (lab, c) in enumerate(bins):
        h = c / top * (H - PAD - 20)
        x = PAD + i * bw
        out.append(f'<rect x="{x + 2:.1f}" y="{H - PAD + 10 - h:.1f}" width="{bw - 4:.1f}" height="{h:.1f}" '
                   f'fill="#1565c0"><title>{lab}: {c}</title></rect>')
        out.append(f'<text x="{x + bw / 2:.1f}" y="{H - PAD + 24}" font-size="10" text-anchor="middle">{lab}</text>')
        out.append(f'<text x="{x + bw / 2:.1f}" y="{H - PAD + 6 - h:.1f}" font-size="10" text-anchor="middle">{c}</text>')
    out.append(f'<text x="{(W + PAD) / 2}" y="{H - 6}" font-size="11" text-anchor="middle">{html.escape(xlabel)}</text>')
    out.append("</svg>")
    return "".join(out)


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


def render(results: list[Result], title: str = "xmo validate") -> str:
    counts = Counter(r.status for r in results)
    badges = "".join(f'<span style="background:{COLORS[s]}">{s}: {counts[s]}</span>'
                     for s in STATUSES if counts[s])
    sized = [r for r in results if r.model_bytes]
    plots = [
        _figure(histogram([r.max_abs for r in results if r.max_abs is not None], "max abs error (decade)"),
                "Error distribution (models that ran)"),
        _figure(scatter([(r.model_bytes, r.convert_s, r.name, r.status) for r in sized if r.convert_s],
                        "model size (bytes)", "conversion (s)", logx=True, logy=True),
                "Conversion time vs model size"),
        _figure(scatter([(r.model_bytes, r.peak_rss / 2**20, r.name, r.status) for r in sized if r.peak_rss],
                        "model size (bytes)", "peak RSS (MiB)", logx=True),
                "Peak RSS vs model size"),
        _figure(scatter([(r.ovc_layers, r.layers, r.name, r.status) for r in results
                         if r.layers is not None and r.ovc_layers is not None],
                        "ovc layers", "xmo layers", diagonal=True),
                "Layers (no Constants): xmo vs ovc (--with-ovc)"),
    ]
    head = "".join(f'<th data-type="{"num" if num else "text"}">{html.escape(h)}</th>'
                   for h, _, _, num in _COLUMNS)
    # the failures first, then the passes; by name within a status
    rows = "".join(_row(r) for r in sorted(results, key=lambda r: (r.status == "pass", STATUSES.index(r.status)
                                                                   if r.status in STATUSES else 99, r.name)))
    summary = json.dumps(dict(counts), sort_keys=True)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_CSS}</style></head>
<body data-summary='{html.escape(summary)}'>
<h1>{html.escape(title)}: {len(results)} models</h1>
<div id="errors"></div>
<div class="badges">{badges}</div>
<p style="color:#666">Generated {time.strftime("%Y-%m-%d %H:%M:%S")}. Click a column to sort, a row for its details.
<span id="shown"></span> rows.</p>
<h2>Plots</h2><div class="plots">{"".join(plots)}</div>
<h2>Models</h2>
<table id="models"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>
<script>{_JS}</script>
</body></html>
"""


def write_report(results: list[Result], path: str | Path) -> None:
    Path(path).write_text(render(results))
