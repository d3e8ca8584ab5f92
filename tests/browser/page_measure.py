"""How much of a rendered chapter a reader has to get through, folds closed.

Measured in Chromium at 1366 × 900 on the page as it loads (every fold
closed), the figures the issue "A page that teaches" sets targets for:

* ``screens``: the page's height in screens of 900 px;
* ``code_share``: the visible source code (code-cell inputs and listings,
  not printed outputs) as a share of the page's height;
* ``output_share``: the visible printed outputs and figures, likewise (no target);
* ``check_lines``: visible lines of code that start with ``assert``,
  ``np.testing`` or ``glue(``, the checks a reader should find folded.

``python tests/browser/page_measure.py`` prints them for every chapter of the
built book (``make book`` first); ``test_rendered_book.py`` holds the
restructured chapters to the targets.
"""

import functools
import http.server
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
VIEWPORT = {"width": 1366, "height": 900}
TARGETS = {"screens": 30, "code_share": 0.25, "check_lines": 0}

MEASURE = r"""() => {
    const article = document.querySelector("article") || document.body;
    const height = document.documentElement.scrollHeight;
    const visible = (el) => el.checkVisibility();
    const inOutput = (el) => el.closest(".cell_output, .output");
    const nested = (el) => el.parentElement.closest("div.highlight");
    const code = [...article.querySelectorAll("div.highlight")].filter(
        (el) => visible(el) && !inOutput(el) && !nested(el));
    const sum = (els) => els.reduce((total, el) => total + el.getBoundingClientRect().height, 0);
    const codeHeight = sum(code);
    const outputs = [...article.querySelectorAll(".cell_output")].filter(visible);
    const outputHeight = sum(outputs);
    const check = /^\s*(assert\b|np\.testing\.|glue\()/;
    let checkLines = 0;
    for (const block of code) {
        for (const line of block.innerText.split("\n")) if (check.test(line)) checkLines += 1;
    }
    return {height, codeHeight, outputHeight, checkLines};
}"""


def measure(page):
    """The three figures of the loaded ``page`` (a Playwright page at ``VIEWPORT``)."""
    found = page.evaluate(MEASURE)
    return {
        "screens": found["height"] / VIEWPORT["height"],
        "code_share": found["codeHeight"] / found["height"],
        "output_share": found["outputHeight"] / found["height"],
        "check_lines": found["checkLines"],
    }


def misses(figures):
    """The figures above their targets, as readable strings."""
    return [
        f"{name} {figures[name]:.2f} > {target}"
        for name, target in TARGETS.items()
        if figures[name] > target
    ]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve():
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def main():
    from chromium import CHROMIUM, LAUNCH_ARGS
    from playwright.sync_api import sync_playwright

    httpd, url = _serve()
    chapters = sorted(p.name for p in (HTML / "book").glob("*.html"))
    print(f"{'page':<20} {'screens':>8} {'code':>6} {'outputs':>8} {'checks':>7}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        for name in chapters:
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(f"{url}book/{name}", wait_until="networkidle")
            figures = measure(page)
            print(
                f"{name:<20} {figures['screens']:>8.1f} {figures['code_share']:>6.0%}"
                f" {figures['output_share']:>8.0%} {figures['check_lines']:>7d}"
            )
            page.close()
        browser.close()
    httpd.shutdown()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
