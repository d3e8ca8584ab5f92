"""The register of results (``book/register.md``) covers what the chapters state and cite.

For each chapter in ``REGISTERED`` (``chapters.py``), with its section pages:

* every ``{prf:theorem}``, ``{prf:proposition}``, ``{prf:lemma}`` and
  ``{prf:corollary}`` has an entry whose **Book** field refers to its label;
* every work the pages cite has an entry whose **Source** field cites it;
* every entry is complete: a result has its Book, Source, Hypotheses,
  Conventions and Checked fields, a work cited for something other than a
  result (a data set, software, history, further reading) its Book, Source
  and Cited for fields, none of them empty.
"""

import re

import pytest
from chapters import BOOK, REGISTERED, chapter_pages, lines_outside_fences

REGISTER = BOOK / "register.md"
RESULT_FIELDS = ("Book", "Source", "Hypotheses", "Conventions", "Checked")
CITED_FIELDS = ("Book", "Source", "Cited for")
STATEMENT = re.compile(
    r"^[`:]{3,}\{prf:(?:theorem|proposition|lemma|corollary)\}.*\n:label: (\S+)", re.M
)
CITE = re.compile(r"\{cite(?::\w+)?\}`([^`]+)`")
FIELD = re.compile(r"^- \*\*(?P<name>[^*]+?)\.\*\* ?(?P<text>.*)$")


def cited_keys(text, prefix):
    """The bibliography keys cited in ``text``, without their page prefix ``prefix``."""
    keys = set()
    for group in CITE.findall(text):
        for item in group.split(","):
            key = re.sub(r"\{[^}]*\}", "", item).strip()
            keys.add(key.removeprefix(prefix))
    return keys


def entries(text):
    """``{anchor: {field: text}}`` for each entry: an anchor ``(reg-…)=``, a heading, fields."""
    found, anchor, field = {}, None, None
    for _, line in lines_outside_fences(text):
        if match := re.match(r"^\((reg-[\w-]+)\)=$", line):
            anchor, field = match[1], None
            found[anchor] = {}
        elif line.startswith("#"):
            field = None
        elif anchor and (match := FIELD.match(line)):
            field = match["name"]
            found[anchor][field] = match["text"]
        elif anchor and field and line.startswith("  "):
            found[anchor][field] += " " + line.strip()
        elif not line.strip():
            field = None
    return found


ENTRIES = entries(REGISTER.read_text())


def test_register_parses_its_entries():
    assert len(ENTRIES) >= 10, sorted(ENTRIES)


@pytest.mark.parametrize("anchor", sorted(ENTRIES))
def test_entry_is_complete(anchor):
    fields = ENTRIES[anchor]
    wanted = CITED_FIELDS if "Cited for" in fields else RESULT_FIELDS
    assert set(fields) == set(wanted), f"{anchor}: fields {sorted(fields)}, expected {wanted}"
    empty = [name for name in wanted if len(fields[name].strip()) < 3]
    assert not empty, f"{anchor}: empty fields {empty}"


@pytest.mark.parametrize("chapter", REGISTERED)
def test_every_stated_result_has_an_entry(chapter):
    referred = {
        label
        for fields in ENTRIES.values()
        for label in re.findall(r"\{prf:ref\}`(?:[^`<]*<)?([\w-]+)>?`", fields.get("Book", ""))
    }
    for page in chapter_pages(chapter):
        labels = set(STATEMENT.findall(page.read_text()))
        assert labels <= referred, f"{page.name}: no register entry for {labels - referred}"


@pytest.mark.parametrize("chapter", REGISTERED)
def test_every_cited_work_has_an_entry(chapter):
    registered = set()
    for fields in ENTRIES.values():
        registered |= cited_keys(fields.get("Source", ""), "reg-")
    for page in chapter_pages(chapter):
        prefix = re.search(r":keyprefix: (\S+)", page.read_text())
        keys = cited_keys(page.read_text(), prefix[1] if prefix else "")
        assert keys <= registered, f"{page.name}: no register entry cites {keys - registered}"


def test_the_parser_sees_a_missing_field():
    text = "(reg-x)=\n### X\n\n- **Book.** somewhere\n- **Source.** {cite:p}`reg-a`\n"
    fields = entries(text)["reg-x"]
    assert set(fields) == {"Book", "Source"}
    assert cited_keys(fields["Source"], "reg-") == {"a"}
    assert cited_keys("{cite:p}`hd-b{Theorem 1}, hd-c`", "hd-") == {"b", "c"}
