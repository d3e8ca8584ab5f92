"""The key of a build of the book: a hash of everything the build reads.

``make book`` executes every chapter, which takes minutes. It records this key
next to the HTML once a build has succeeded, and builds again only when the key
has changed, so that ``make book`` followed by ``make test`` executes the
chapters for the book once. The key covers the chapters and everything in
``book/`` (bibliography, data, the extensions in ``book/_ext``), ``pcalib/``,
``_static/``, ``_config.yml``, ``_toc.yml``, ``requirements.txt``,
``pyproject.toml``, and the Python version; a file's path and its bytes both
count, so adding, removing or renaming a file changes the key too.

``python book/_ext/build_key.py`` prints the key;
``python book/_ext/build_key.py --check FILE`` exits with 0 when ``FILE``
holds the current key, with 1 (and says why) when it does not.
"""

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("book", "pcalib", "_static")
FILES = ("_config.yml", "_toc.yml", "requirements.txt", "pyproject.toml")
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}


def build_inputs(root=ROOT):
    """The files a build reads, as sorted paths relative to ``root``."""
    paths = [root / name for name in FILES]
    for folder in FOLDERS:
        for path in (root / folder).rglob("*"):
            parts = set(path.relative_to(root).parts)
            if path.is_file() and not parts & IGNORED_PARTS and path.suffix != ".pyc":
                paths.append(path)
    return sorted(path.relative_to(root) for path in paths if path.is_file())


def build_key(root=ROOT):
    """SHA-256 of the Python version and of every input's path and bytes."""
    digest = hashlib.sha256(sys.version.encode())
    for relative in build_inputs(root):
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256((root / relative).read_bytes()).digest())
    return digest.hexdigest()


def main(argv):
    if len(argv) == 0:
        print(build_key())
        return 0
    if len(argv) == 2 and argv[0] == "--check":
        recorded = Path(argv[1])
        if not recorded.exists():
            print(f"no finished build recorded in {recorded}")
            return 1
        if recorded.read_text().strip() != build_key():
            print("the book's sources changed since the last build")
            return 1
        return 0
    print(__doc__.split("\n\n")[-1].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
