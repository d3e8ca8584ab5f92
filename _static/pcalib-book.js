// The book's own behaviour, loaded on every page.

// The menu and contents buttons in the article header. pydata-sphinx-theme
// binds its handlers (open the menu as a dialog on a phone, fold the sidebar
// on a desktop) to the first .primary-toggle / .secondary-toggle of the page,
// which is in the theme's hidden top bar; sphinx-book-theme shows its own
// buttons in the article header. A click on a visible button is passed on to
// the bound one.
function forwardSidebarToggles() {
  for (const kind of ["primary-toggle", "secondary-toggle"]) {
    const bound = document.querySelector(`.${kind}`);
    for (const button of document.querySelectorAll(`.${kind}`)) {
      if (button === bound) continue;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    }
  }
}

// Listings of pcalib's code (literalinclude) longer than 30 lines show their
// essential lines, the signature and the code, with each docstring folded to
// its first line; a click on that line unfolds the whole docstring.
const FOLD_LINES = 30;
function lineCount(element) {
  return element.textContent.replace(/\n$/, "").split("\n").length;
}
// Pygments marks each line of a docstring as its own span.sd: the lines from
// the opening quotes to the closing ones are collected into one span.
function docstrings(pre) {
  const found = [];
  let current = null;
  for (const node of [...pre.childNodes]) {
    const isDoc = node.nodeType === Node.ELEMENT_NODE && node.classList.contains("sd");
    const text = node.textContent.trim();
    if (!current && isDoc && /^[rRuU]?"""/.test(text)) {
      if (text.length > 3 && text.endsWith('"""')) continue;  // a one-line docstring
      current = {first: node, rest: []};
    } else if (current) {
      current.rest.push(node);
      if (isDoc && text.endsWith('"""')) {
        found.push(current);
        current = null;
      }
    }
  }
  return found;
}

function foldDocstrings() {
  for (const block of document.querySelectorAll("article div[class*='highlight-']")) {
    if (block.closest(".cell") || lineCount(block) <= FOLD_LINES) continue;
    const pre = block.querySelector("pre");
    for (const {first, rest} of docstrings(pre)) {
      // The toggle takes the line under the first one, indented like it.
      const [newline, ...lines] = rest;
      if (newline.nodeType === Node.TEXT_NODE && newline.length > 1) {
        lines.unshift(newline.splitText(1));  // a blank line follows the first
      }
      const before = first.previousSibling;
      const indent = before && /^\s+$/.test(before.textContent) ? before.textContent : "";
      const hidden = document.createElement("span");
      hidden.className = "pcalib-docstring-rest";
      hidden.hidden = true;
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "pcalib-docstring-toggle";
      toggle.setAttribute("aria-expanded", "false");
      const count = lines.filter((node) => node.nodeType === Node.ELEMENT_NODE).length;
      const label = () => (hidden.hidden
        ? `${indent}▸ ${count} more lines of docstring`
        : `${indent}▾ fold the docstring\n`);
      toggle.textContent = label();
      toggle.addEventListener("click", () => {
        hidden.hidden = !hidden.hidden;
        toggle.setAttribute("aria-expanded", String(!hidden.hidden));
        toggle.textContent = label();
      });
      newline.after(toggle, hidden);
      hidden.append(...lines);
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  forwardSidebarToggles();
  foldDocstrings();
});
