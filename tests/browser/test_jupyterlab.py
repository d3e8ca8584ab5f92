"""The book in JupyterLab, opened and run as a reader runs it after ``make lab``.

``make lab`` opens the notebooks that ``make book`` writes to ``_build/notebooks``
(``book/_ext/reader_notebooks.py``). This test starts ``jupyter lab`` on 127.0.0.1
with a token and the settings that ``make lab`` writes (read from the Makefile's
``LAB_SETTINGS`` line), on a copy of those notebooks, so that nothing is saved over
them. User settings, workspaces, configuration and runtime files go to a temporary
directory, so the reader's own JupyterLab state is neither used nor touched.
Headless Chromium opens every page from the file browser, runs Run > Run All
Cells, waits for the kernel to be idle and checks what is on the screen against
the rendered book of the same build (``_build/html``):

* no error or warning output, no news popup;
* no MyST source (a role, a fence, ``:label:``) and no key of the source (a glued
  value's key, a citation key, a label) in the rendered text;
* the maths typeset by KaTeX with no raw TeX left, and the equation numbers the
  book's, in the book's order;
* the figures, exercises, theorems, algorithms and sections named by number
  (captions, titles, references) the ones the book names;
* the listings of pcalib's code shown, and every entry of the page's bibliography.

Chromium is Debian's (``apt-get install chromium``); Playwright never downloads a
browser here. Without it the tests skip with a message, except under CI
(``CI=true``), where a missing browser is a failure.
"""

import html
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from chromium import CHROMIUM, LAUNCH_ARGS, require_chromium
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "_build" / "notebooks"
HTML = ROOT / "_build" / "html" / "book"
PAGES = sorted(p.stem for p in BOOK.glob("*.md"))
RUN_TIMEOUT_S = 600  # one chapter's Run All: 10-30 s alone, minutes on a loaded machine
START_TIMEOUT_S = 90


def _lab_settings():
    """The settings overrides that ``make lab`` writes, parsed from the Makefile."""
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(r"^LAB_SETTINGS := (.+)$", makefile, re.MULTILINE)
    assert match, "the Makefile has no 'LAB_SETTINGS := {...}' line"
    return json.loads(match.group(1))


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _log_tail(log_path, lines=30):
    """The end of the server's log, for a failure message."""
    return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """A JupyterLab server on a copy of the book; yields its URL with the token."""
    require_chromium()
    if not NOTEBOOKS.is_dir() or not HTML.is_dir():
        pytest.fail("the book is not built: run `make book` first")
    tmp = tmp_path_factory.mktemp("jupyterlab")
    notebook_dir = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS, notebook_dir)
    app_settings = tmp / "app-settings"
    app_settings.mkdir()
    (app_settings / "overrides.json").write_text(json.dumps(_lab_settings()))
    # The reader's JupyterLab autosaves; here nothing needs saving (it is a copy anyway).
    user_settings = tmp / "user-settings"
    docmanager = user_settings / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    # Every cell in the page at once (the default attaches cells while idle or
    # scrolled to), so that the checks see the whole chapter.
    notebook = user_settings / "@jupyterlab" / "notebook-extension"
    notebook.mkdir(parents=True)
    (notebook / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))

    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # the kernel chooses the inline backend, as for a reader
    env.update(
        JUPYTERLAB_SETTINGS_DIR=str(user_settings),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
    )
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        f"--IdentityProvider.token={token}",
        f"--notebook-dir={notebook_dir}",
        f"--LabApp.app_settings_dir={app_settings}",
    ]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log_path = tmp / "jupyterlab.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited ({server.returncode}):\n{_log_tail(log_path)}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not start:\n{_log_tail(log_path)}")
                time.sleep(0.5)
        yield {"base": base, "token": token, "book": notebook_dir}
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def lab(lab_server):
    """One JupyterLab page in Chromium, shared by the chapters (opened one after another)."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.set_default_timeout(60_000)
        # Everything the page loads comes from the server: no calls elsewhere.
        external = []

        def only_the_server(route):
            url = route.request.url
            if url.startswith((lab_server["base"] + "/", "data:", "blob:")):
                route.continue_()
            else:
                external.append(url)
                route.abort()

        page.route("**/*", only_the_server)
        page.goto(f"{lab_server['base']}/lab?token={lab_server['token']}")
        page.wait_for_selector(".jp-DirListing-item")
        yield page, external, lab_server["book"]
        browser.close()


# Run once the chapter has run. Looks at what is on screen: the text nodes of the
# rendered markdown outside KaTeX and code (the hidden editors of markdown cells
# hold the source and are skipped), and the outputs on stderr (errors, warnings).
SCREEN_CHECKS = r"""([panel, keys]) => {
    const visible = el => el.checkVisibility();
    const cells = [...panel.querySelectorAll(".jp-Cell")];
    const rendered = cells.filter(c => c.classList.contains("jp-MarkdownCell"))
        .map(c => c.querySelector(".jp-MarkdownOutput, .myst"))
        .filter(el => el && visible(el));
    const skip = "pre, code, .katex, script, style";
    const source = /\{[a-z][\w:-]*\}|```|:label:/;  // a role such as {cite:t}, a fence
    const commands = [
        "frac", "tfrac", "mathbf", "mathrm", "mathbb", "mathcal", "sum", "sqrt", "lambda",
        "sigma", "top", "hat", "bar", "operatorname", "varepsilon", "left", "right", "quad",
        "begin", "end",
    ].join("|");
    const tex = new RegExp("\\$[A-Za-z\\\\{]|[A-Za-z}]\\$|\\\\(" + commands + ")(?![A-Za-z])");
    const mystSource = [], rawTex = [], sourceKeys = [];
    const key = keys.length ? new RegExp("(?<![\\w-])(" + keys.join("|") + ")(?![\\w-])") : null;
    // All the rendered text, shown or folded (a solution, a dropdown), with a line
    // break after each block, so that a title does not run into the text before it.
    const blocks = "p, div, li, summary, details, aside, section, header, figcaption, " +
        "h1, h2, h3, h4, h5, h6, dt, dd, td, th, blockquote";
    const allText = rendered.map(root => {
        const copy = root.cloneNode(true);
        copy.querySelectorAll(skip).forEach(el => el.remove());
        copy.querySelectorAll(blocks).forEach(el => el.after("\n"));
        return copy.textContent;
    }).join("\n");
    for (const root of rendered) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const parent = node.parentElement;
            if (!parent || parent.closest(skip) || !visible(parent)) continue;
            const text = node.textContent;
            const checks = [[source, mystSource], [tex, rawTex], [key, sourceKeys]];
            for (const [pattern, found] of checks) {
                const match = pattern && text.match(pattern);
                if (match) {
                    const start = Math.max(0, match.index - 40);
                    found.push(text.slice(start, match.index + 40).replace(/\s+/g, " ").trim());
                }
            }
        }
    }
    const codeCells = cells.filter(c => c.classList.contains("jp-CodeCell"));
    const prompt = c => (c.querySelector(".jp-InputPrompt") || {}).textContent || "";
    return {
        markdownCells: rendered.length,
        katex: rendered.reduce((n, el) => n + el.querySelectorAll(".katex").length, 0),
        katexErrors: panel.querySelectorAll(".katex-error").length,
        stderr: [...panel.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
            .map(el => el.textContent.trim().slice(0, 300)),
        done: codeCells.filter(c => /\[\d+\]/.test(prompt(c))).length,
        codeCells: codeCells.length,
        mystSource, rawTex, sourceKeys, allText,
        // The equation numbers KaTeX shows (\tag), in order.
        tags: rendered.flatMap(el => [...el.querySelectorAll(".katex-display .tag")])
            .map(tag => tag.textContent.trim()),
        listings: rendered.flatMap(el => [...el.querySelectorAll("pre")]).filter(visible).length,
        newsPopup: document.body.innerText.includes("official Jupyter news"),
    };
}"""

CURRENT_PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"

# The kernel's status and the code cells' prompts: [ ] not run, [*] queued or
# running, [n] done.
RUN_STATE = r"""(panel) => {
    const prompts = [...panel.querySelectorAll(".jp-CodeCell .jp-InputPrompt")]
        .map(p => p.textContent);
    const status = panel.querySelector(".jp-Notebook-ExecutionIndicator");
    return {
        allCells: panel.querySelectorAll(".jp-Cell").length,
        cells: prompts.length,
        done: prompts.filter(p => /\[\d+\]/.test(p)).length,
        queued: prompts.filter(p => p.includes("[*]")).length,
        started: prompts.length === 0 || prompts.some(p => /\[(\*|\d+)\]/.test(p)),
        status: status ? status.dataset.status : "no indicator",
        // The status bar names the kernel once it is connected: "Python 3 (ipykernel) | Idle".
        kernelReady: [...document.querySelectorAll(".jp-StatusBar-TextItem")]
            .some(item => /^(?!No Kernel).+ \| Idle$/.test(item.textContent.trim())),
    };
}"""


def _uses_maths(path):
    """Whether the page's markdown has maths to typeset ($...$ or a math directive)."""
    return bool(re.search(r"\$[^$\n]+\$|```\{math\}", path.read_text()))


def _cells_expected(path):
    """(cells, code cells) of the notebook."""
    cells = nbformat.read(path, as_version=4).cells
    return len(cells), sum(cell.cell_type == "code" for cell in cells)


def _source_keys(page):
    """The keys of the page's source that the reader must never see.

    Glued values' keys, citation keys, labels of equations, figures, sections and exercises.
    """
    source = (BOOK / f"{page}.md").read_text()
    keys = set(re.findall(r"\{glue(?::text)?\}`([\w-]+)", source))
    for citation in re.findall(r"\{cite(?::[pt])?\}`([^`]+)`", source):
        keys.update(re.sub(r"\{[^}]*\}", "", key).strip() for key in citation.split(","))
    for match in re.finditer(r"^:label: *(\S+)|^ *name: *(\S+)|^\(([^)\s]+)\)=$", source, re.M):
        keys.add(next(group for group in match.groups() if group))
    return sorted(key for key in keys if "-" in key)


# A numbered thing named in the text: "Fig. 4.2", "Exercise 3.7", "Algorithm 4.1".
NUMBERED = re.compile(
    r"\b(?:Fig\.|Exercise|Algorithm|Theorem|Proposition|Corollary|Lemma|Definition|Section)"
    r"\s+\d+\.\d+\b"
)


def _numbered(text):
    """The numbered things a text names (captions, titles and references), as a set."""
    return {re.sub(r"\s+", " ", match) for match in NUMBERED.findall(text)}


def _book_page(page):
    """What the rendered book shows of the page.

    Its equation numbers, bibliography labels, and the numbered things its text names
    (outside code and outputs).
    """
    source = (HTML / f"{page}.html").read_text()
    article = source[source.index("<article") : source.index("</article>")]
    labels = re.findall(
        r'<span class="label"><span class="fn-bracket">\[</span>(.*?)<span class="fn-bracket">',
        article,
    )
    prose = re.sub(r"<pre\b.*?</pre>", " ", article, flags=re.S)
    prose = html.unescape(re.sub(r"<[^>]+>", "", prose))
    return {
        "equations": [f"({n})" for n in re.findall(r'<span class="eqno">\(([\d.]+)\)', article)],
        "bibliography": [html.unescape(re.sub(r"<[^>]+>", "", label)) for label in labels],
        "numbered": _numbered(prose),
    }


def _state(page):
    return page.evaluate(f"() => ({RUN_STATE})(document.querySelector('{CURRENT_PANEL}'))")


def _wait_for_state(page, condition, timeout_s):
    """Wait until ``condition`` (JavaScript over the RUN_STATE object ``s``) holds."""
    page.wait_for_function(
        f"() => {{ const s = ({RUN_STATE})(document.querySelector('{CURRENT_PANEL}'));"
        f" return {condition}; }}",
        timeout=timeout_s * 1000,
        polling=1000,
    )


def _run_all(page):
    """Run > Run All Cells, again if the kernel was not ready to take it."""
    for _attempt in range(3):
        page.click('.lm-MenuBar-itemLabel:text-is("Run")')
        page.click('.lm-Menu-itemLabel:text-is("Run All Cells")')
        try:
            _wait_for_state(page, "s.started", timeout_s=60)
            return
        except PlaywrightTimeoutError:
            continue
    pytest.fail(f"Run All Cells started nothing: {_state(page)}")


def _close_and_shut_down(page):
    page.click('.lm-MenuBar-itemLabel:text-is("File")')
    page.click('.lm-Menu-itemLabel:text-matches("^Close and Shut Down Notebook")')
    # JupyterLab asks "Shut down the notebook?"; Ok.
    page.click(".jp-Dialog .jp-Dialog-button.jp-mod-accept")
    page.wait_for_selector(CURRENT_PANEL, state="detached", timeout=30_000)


def _open_and_run(page, book, chapter):
    """Open ``chapter`` from the file browser, Run All; return (seconds, screen checks)."""
    n_cells, n_code = _cells_expected(book / chapter)
    keys = _source_keys(Path(chapter).stem)
    name = re.compile(f"^{re.escape(chapter)}$")
    page.locator(".jp-DirListing-itemText", has_text=name).dblclick()
    page.wait_for_selector(f"{CURRENT_PANEL} .jp-Cell")
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    assert tab.inner_text().strip() == chapter
    _wait_for_state(page, f"s.allCells === {n_cells} && s.kernelReady", timeout_s=180)
    started = time.monotonic()
    _run_all(page)
    # Run All queues every code cell ([*]); it is done when the kernel is idle and
    # nothing is queued any more (after an error the rest stays unqueued: [ ]).
    try:
        _wait_for_state(page, "s.status === 'idle' && s.queued === 0", RUN_TIMEOUT_S)
    except PlaywrightTimeoutError:
        pytest.fail(f"Run All not finished after {RUN_TIMEOUT_S} s: {_state(page)}")
    seconds = time.monotonic() - started
    # A folded check starts collapsed (source_hidden), and a collapsed cell shows no
    # prompt: expand every cell's code, so that each code cell's [n] can be counted.
    page.click('.lm-MenuBar-itemLabel:text-is("View")')
    page.click('.lm-Menu-itemLabel:text-is("Expand All Code")')
    result = page.evaluate(
        f"(keys) => ({SCREEN_CHECKS})([document.querySelector('{CURRENT_PANEL}'), keys])", keys
    )
    result["codeCellsExpected"] = n_code
    _close_and_shut_down(page)
    return seconds, result


@pytest.mark.parametrize("name", PAGES)
def test_page_runs_and_renders_in_jupyterlab(lab, name, tmp_path):
    page, external, notebooks = lab
    chapter = f"{name}.ipynb"
    try:
        seconds, result = _open_and_run(page, notebooks, chapter)
    except Exception:
        # What was on the screen: the picture, and the text of any dialog.
        page.screenshot(path=tmp_path / "jupyterlab.png")
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        print(f"{chapter}: screenshot {tmp_path / 'jupyterlab.png'}; dialogs: {dialogs}")
        raise
    print(f"{chapter}: Run All in {seconds:.0f} s, {result['codeCells']} code cells")

    assert not external, f"requests outside the server: {external[:5]}"
    assert not result["newsPopup"], "JupyterLab's news popup is shown"
    assert not result["stderr"], f"{chapter}: error or warning output:\n" + "\n---\n".join(
        result["stderr"][:3]
    )
    assert result["done"] == result["codeCells"] == result["codeCellsExpected"], (
        f"{chapter}: {result['done']} of {result['codeCellsExpected']} code cells ran"
    )
    assert result["markdownCells"] > 0, f"{chapter}: no rendered markdown cell"
    assert not result["mystSource"], f"{chapter}: MyST source on screen: {result['mystSource'][:5]}"
    assert not result["sourceKeys"], (
        f"{chapter}: keys of the source on screen: {result['sourceKeys'][:5]}"
    )
    assert not result["rawTex"], f"{chapter}: TeX source on screen: {result['rawTex'][:5]}"
    assert result["katexErrors"] == 0, f"{chapter}: {result['katexErrors']} KaTeX error(s)"
    source = BOOK / f"{name}.md"
    if _uses_maths(source):
        assert result["katex"] > 0, f"{chapter}: no typeset maths"

    book = _book_page(name)
    assert result["tags"] == book["equations"], (
        f"{chapter}: equation numbers differ from the book's"
    )
    shown_numbers = _numbered(result["allText"])
    assert shown_numbers == book["numbered"], (
        f"{chapter}: figure, exercise, theorem... numbers differ from the book's: only in "
        f"JupyterLab {sorted(shown_numbers - book['numbered'])[:5]}, only in the book "
        f"{sorted(book['numbered'] - shown_numbers)[:5]}"
    )
    # jupyterlab-myst prints typographic apostrophes (d’Aspremont) where the page has d'Aspremont.
    shown = result["allText"].replace("\u2019", "'")
    missing = [label for label in book["bibliography"] if f"[{label}]" not in shown]
    assert not missing, f"{chapter}: bibliography entries not shown: {missing[:5]}"
    includes = source.read_text().count("{literalinclude}")
    assert result["listings"] >= includes, (
        f"{chapter}: {result['listings']} code listings shown, the page includes {includes}"
    )
