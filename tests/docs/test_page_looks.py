"""The specification's pages as a browser draws them: table cells wrap at word
boundaries only (a key such as ``initial_temperature`` is never split mid-word)
and code blocks scroll sideways instead of being cut (decision 235).

The rules live in ``docs/_static/tables.css``. Where Debian's ``chromium`` is
installed, the host-file page is drawn headless in a narrow window and measured
in the browser itself: a script added to a copy of the page counts, after the
load event, the lines each word of an inline literal in a table is drawn on
(``getClientRects()``: one rectangle per line) and the code blocks whose text
is wider than their box but cannot scroll; ``--dump-dom`` hands the counts
back. A DOM measurement, not a pixel comparison, so fonts and anti-aliasing do
not matter. The same measurement on the page with the former rule
(``overflow-wrap: anywhere``) must find split keys: the check can fail."""

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from repo import DOCS

CSS = DOCS / "_static" / "tables.css"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(Debian: apt-get install chromium; .ci/run tries)")
#: Narrow enough that the host file's tables and code blocks do not fit at their natural width.
NARROW = "800,2000"

_MEASURE = """<script>window.addEventListener("load", function () {
  var words = document.querySelectorAll("table.docutils code span.pre"), split = [];
  words.forEach(function (w) { if (w.getClientRects().length > 1) split.push(w.textContent); });
  var cut = [];
  document.querySelectorAll("div.highlight pre").forEach(function (p) {
    var x = getComputedStyle(p).overflowX;
    if (p.scrollWidth > p.clientWidth && x !== "auto" && x !== "scroll") cut.push(p.textContent.slice(0, 60));
  });
  var wide = Array.from(document.querySelectorAll("div.highlight pre"))
    .filter(function (p) { return p.scrollWidth > p.clientWidth; }).length;
  var o = document.createElement("pre"); o.id = "akita-measure";
  o.textContent = JSON.stringify({words: words.length, split: split, cut: cut, wide: wide});
  document.body.appendChild(o);
});</script>"""
#: The rule this page used before decision 235: words break anywhere.
_FORMER_RULE = ("<style>table.docutils code.literal { overflow-wrap: anywhere; word-break: break-word; }"
                " table.docutils code span.pre { white-space: normal; }</style>")


def _chromium(*args: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                              "--disable-background-networking", "--disable-component-update",
                              "--disable-sync", "--no-first-run", f"--user-data-dir={profile}", *args],
                             capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _measure(out: Path, page: str, extra_head: str = "") -> dict:
    """Draw a copy of *page* (beside it, so its relative links hold) and return the counts."""
    source = (out / page).read_text(encoding="utf-8")
    probe = out / f"_measure-{len(extra_head)}-{page}"
    probe.write_text(source.replace("</head>", extra_head + "</head>", 1)
                     .replace("</body>", _MEASURE + "</body>", 1), encoding="utf-8")
    dom = _chromium(f"--window-size={NARROW}", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="akita-measure">(.*?)</pre>', dom, flags=re.S)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found[1]))


def test_css_wraps_table_cells_at_words_and_scrolls_code():
    css = re.sub(r"/\*.*?\*/", "", CSS.read_text(), flags=re.S)
    cells = re.search(r"table\.docutils td, table\.docutils th \{([^}]*)\}", css)
    code = re.search(r"table\.docutils code, table\.docutils code\.literal \{([^}]*)\}", css)
    for rule in (cells, code):
        assert rule, css
        for declaration in ("overflow-wrap: normal", "word-break: normal", "hyphens: none"):
            assert declaration in rule[1], (declaration, rule[1])
    assert "anywhere" not in css and "break-all" not in css
    assert re.search(r"\.table-wrapper \{[^}]*overflow-x: auto", css)
    assert re.search(r"div\.highlight pre[^{]*\{[^}]*white-space: pre;[^}]*overflow-x: auto", css)


@pytest.mark.long
def test_built_pages_link_the_css(html_docs):
    shipped = html_docs.out / "_static" / "tables.css"
    assert shipped.read_text() == CSS.read_text()
    for page in ("host-file.html", "cli.html"):
        assert '<link rel="stylesheet" type="text/css" href="_static/tables.css' in \
            (html_docs.out / page).read_text(encoding="utf-8"), page


@pytest.mark.long
@needs_chromium
def test_host_file_page_keeps_keys_whole_and_code_scrolling(html_docs):
    counts = _measure(html_docs.out, "host-file.html")
    assert counts["words"] > 100, counts  # the page's tables were measured, not an empty page
    assert counts["split"] == [], counts["split"]
    assert counts["wide"] > 0, counts  # some code block is wider than its box at this width ...
    assert counts["cut"] == [], counts["cut"]  # ... and every such block scrolls


@pytest.mark.long
@needs_chromium
def test_the_former_rule_is_caught_splitting_keys(html_docs):
    counts = _measure(html_docs.out, "host-file.html", _FORMER_RULE)
    assert {"initial_temperature", "pcpus"} <= set(counts["split"]), counts["split"]


@pytest.mark.long
@needs_chromium
def test_host_file_page_screenshot(html_docs, tmp_path):
    """The page as a person sees it, at a desktop width: a PNG of the requested size."""
    png = tmp_path / "host-file.png"
    _chromium(f"--screenshot={png}", "--window-size=1280,2000",
              (html_docs.out / "host-file.html").as_uri())
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")) == (1280, 2000)
