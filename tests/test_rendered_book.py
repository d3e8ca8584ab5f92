"""The rendered book, checked in a real browser.

Serves ``_build/html`` (built by ``make book``, which ``make test`` runs first)
on 127.0.0.1 and loads every page in headless Chromium through Playwright:
maths typeset by the locally installed MathJax, every image loaded, no failed
or external request, no console error.

Chromium is Debian's (``apt-get install chromium``); Playwright never downloads
a browser here. Without it the tests skip with a message, except under CI
(``CI=true``), where a missing browser is a failure.
"""

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Every page of the book: the HTML files outside Sphinx's asset folders
# (_static holds template fragments such as sbt-webpack-macros.html, not pages).
PAGES = sorted(
    str(p.relative_to(HTML))
    for p in HTML.rglob("*.html")
    if not any(part.startswith("_") for part in p.relative_to(HTML).parts)
)

# Console messages that are not errors of the book, each with its reason.
CONSOLE_ALLOW = {
    # (none yet: every console error fails the test)
}

LAUNCH_ARGS = [
    "--no-sandbox",  # the test may run as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # no calls home: the machine has no network
    "--disable-component-update",
    "--disable-sync",
]


def _require_chromium():
    if Path(CHROMIUM).exists():
        return
    message = f"Chromium not found at {CHROMIUM}: install it with 'apt-get install chromium'."
    if os.environ.get("CI") == "true":
        pytest.fail(message + " Under CI a missing browser is a failure.")
    pytest.skip(message)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


def _load(browser, url):
    """Load ``url`` and return (page, problems) once MathJax and images are done."""
    problems = []
    host = urlparse(url).netloc
    page = browser.new_page()

    def on_request(request):
        if urlparse(request.url).netloc not in (host, "") and not request.url.startswith("data:"):
            problems.append(f"external request: {request.url}")

    def on_response(response):
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    def on_console(message):
        if message.type == "error" and not any(a in message.text for a in CONSOLE_ALLOW):
            problems.append(f"console error: {message.text}")

    page.on("request", on_request)
    page.on("response", on_response)
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url} ({r.failure})"))
    page.on("console", on_console)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.route(
        "**/*",
        lambda route: (
            route.continue_() if urlparse(route.request.url).netloc == host else route.abort()
        ),
    )
    page.goto(url, wait_until="load")
    if redirect_target := _redirect_target(url):
        page.wait_for_url(f"**/{redirect_target}")
        page.wait_for_load_state("load")
    page.evaluate(
        """async () => {
            if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
                await MathJax.startup.promise;
            }
            await Promise.all([...document.images].map(img => {
                img.loading = "eager";
                return img.complete ? null
                    : new Promise(done => { img.onload = img.onerror = done; });
            }));
        }"""
    )
    page.wait_for_load_state("networkidle")
    return page, problems


def _redirect_target(url):
    """Target of a page that is only a meta-refresh redirect (index.html), else None."""
    path = HTML / urlparse(url).path.lstrip("/")
    match = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', path.read_text())
    return match.group(1) if match else None


# Text nodes outside code, outputs and typeset maths that still show TeX: a
# dollar sign next to a letter, brace or backslash, or a TeX command. This is
# what a wrapped source line starting with "+" or "-" leaves (Markdown makes
# it a list item and the inline maths around it breaks).
RAW_TEX_IN_TEXT = r"""() => {
    const skip = "pre, code, script, style, textarea, mjx-container, .MathJax, .math";
    const commands = [
        "frac", "tfrac", "mathbf", "mathrm", "mathbb", "mathcal", "sum", "sqrt", "lambda",
        "sigma", "top", "hat", "bar", "operatorname", "varepsilon", "left", "right", "quad",
    ].join("|");
    const tex = new RegExp("\\$[A-Za-z\\\\{]|[A-Za-z}]\\$|\\\\(" + commands + ")(?![A-Za-z])");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest(skip)) continue;
        const match = node.textContent.match(tex);
        if (match) {
            const start = Math.max(0, match.index - 40);
            found.push(node.textContent.slice(start, match.index + 40).trim());
        }
    }
    return found;
}"""


def test_raw_tex_pattern_catches_what_a_reader_would_see(browser):
    page = browser.new_page()
    try:
        page.set_content(
            "<p>fine $x$ is not here</p><p>a \\frac12 leak</p><p>+ $\\lambda$ bullet</p>"
            "<pre>$x$ \\frac in code</pre><p>costs $5 and 10 $</p>"
        )
        found = page.evaluate(RAW_TEX_IN_TEXT)
    finally:
        page.close()
    assert found == ["fine $x$ is not here", "a \\frac12 leak", "+ $\\lambda$ bullet"], found


def test_book_was_built():
    assert (HTML / "index.html").exists(), "no _build/html/index.html: run 'make book' first"


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders(browser, server, page_path):
    page, problems = _load(browser, server + page_path)
    try:
        math = page.evaluate(
            """() => ({
                sources: document.querySelectorAll("span.math, div.math").length,
                typeset: [...document.querySelectorAll("span.math, div.math")]
                    .filter(el => el.querySelector("mjx-container")).length,
                errors: document.querySelectorAll("mjx-merror, [data-mjx-error]").length,
                raw: document.body.innerText.match(/\\\\(\\(|\\[)|\\$\\$/g) || [],
            })"""
        )
        raw_tex = page.evaluate(RAW_TEX_IN_TEXT)
        split_outputs = page.evaluate(
            """() => [...document.querySelectorAll("div.cell_output")]
                .filter(out => out.querySelectorAll(":scope > .output.stream").length > 1)
                .map(out => out.innerText.slice(0, 60))"""
        )
        broken_images = page.evaluate(
            """() => [...document.images]
                .filter(img => !(img.complete && img.naturalWidth > 0))
                .map(img => img.getAttribute("src"))"""
        )
    finally:
        page.close()
    assert not problems, "\n".join(problems)
    assert math["errors"] == 0, f"{math['errors']} MathJax error node(s) on {page_path}"
    assert math["typeset"] == math["sources"], (
        f"{math['sources'] - math['typeset']} of {math['sources']} maths elements "
        f"not typeset on {page_path}"
    )
    assert not math["raw"], f"raw TeX delimiters left on {page_path}: {math['raw'][:5]}"
    assert not raw_tex, f"TeX source shown as text on {page_path}: {raw_tex[:5]}"
    assert not split_outputs, f"a cell's printed output split into boxes: {split_outputs[:3]}"
    assert not broken_images, f"images not loaded on {page_path}: {broken_images}"


def test_mathjax_is_served_locally(browser, server):
    page, problems = _load(browser, server + "book/intro.html")
    try:
        sources = page.evaluate(
            "() => [...document.scripts].map(s => s.src).filter(s => /mathjax/i.test(s))"
        )
        version = page.evaluate("() => window.MathJax && MathJax.version")
        typeset = page.evaluate("() => document.querySelectorAll('mjx-container').length")
    finally:
        page.close()
    assert not problems, "\n".join(problems)
    assert sources and all(s.startswith(server) for s in sources), sources
    assert version and version.startswith("3."), version
    assert typeset > 0
