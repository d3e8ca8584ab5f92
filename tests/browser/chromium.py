"""The Chromium that the browser tests drive, and how they start it."""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

LAUNCH_ARGS = [
    "--no-sandbox",  # the test may run as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # no calls home: the machine has no network
    "--disable-component-update",
    "--disable-sync",
]


def require_chromium():
    """Skip the test when Chromium is missing; under CI (``CI=true``) fail it instead."""
    if Path(CHROMIUM).exists():
        return
    message = f"Chromium not found at {CHROMIUM}: install it with 'apt-get install chromium'."
    if os.environ.get("CI") == "true":
        pytest.fail(message + " Under CI a missing browser is a failure.")
    pytest.skip(message)
