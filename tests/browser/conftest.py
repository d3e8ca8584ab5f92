"""Set-up of the browser tests: this folder's modules importable.

``chromium.py`` holds what both tests share: where Chromium is, the flags it
starts with, and the skip (or, under CI, the failure) when it is missing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
