"""Author-year labels for the bibliography lists, as in the text.

The text cites author-year, "(Tipping and Bishop, 1999)"; pybtex's styles
label the lists with numbers ("[1]") or letters ("[TB99]"). This extension
registers the pybtex style ``author_year`` (``bibtex_default_style`` in
``_config.yml``): the plain style's entries, sorted by author and year and
labelled like the citations, "[Tipping and Bishop, 1999]", with "a", "b" after
the year when one author list has two works in a year.
"""

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle


def _last_names(person):
    return " ".join(part.render_as("text") for part in person.rich_last_names)


def _authors(entry):
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_last_names(person) for person in persons]
    if len(names) >= 3:
        return f"{names[0]} et al."
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return names[0] if names else entry.fields.get("key", entry.key)


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels "Author, Year", "Author and Other, Year", "Author et al., Year"."""

    def format_labels(self, sorted_entries):
        """Yield one label per entry, with a letter after repeated author-years."""
        bases = [f"{_authors(entry)}, {entry.fields.get('year', 'n.d.')}" for entry in sorted_entries]
        repeats = Counter(bases)
        seen = Counter()
        for base in bases:
            if repeats[base] == 1:
                yield base
            else:
                yield base + "abcdefghijklmnopqrstuvwxyz"[seen[base]]
                seen[base] += 1


class AuthorYearStyle(PlainStyle):
    """pybtex's plain style with author-year labels and author-year order."""

    default_label_style = "author_year"
    default_sorting_style = "author_year_title"


def setup(app):
    register_plugin("pybtex.style.labels", "author_year", AuthorYearLabelStyle)
    register_plugin("pybtex.style.formatting", "author_year", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
