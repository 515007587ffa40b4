"""A real browser for the report's and the dashboard's tests and screenshots, and for the charts of
docs/results.md (report/render/images.py): Debian's Chromium,
installed from apt when missing (no browser can be downloaded here, so Playwright's own builds are
never used), driven by Playwright for Python through `executable_path`.

Every launch gets a fresh profile (Playwright makes one) and the flags that keep Chromium from
reaching anything on its own: no QUIC, no first-run, background networking, component updates or
sync.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator

from playwright.sync_api import Browser, sync_playwright

from arena.errors import ArenaError
from arena.impls.catalog import Toolchain
from arena.impls.toolchain import Toolchains

CHROMIUM = Toolchain("chromium", ["chromium", "--version"], "apt-get install -y chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure(toolchains: Toolchains | None = None) -> str:
    """The path of Chromium, installed if need be; raises ArenaError when it cannot be had."""
    available = (toolchains or Toolchains()).ensure_tool(CHROMIUM, "the report's and dashboard's browser tests")
    path = shutil.which("chromium")
    if not available.ok or path is None:
        raise ArenaError(f"no Chromium: {available.reason or 'chromium is not on PATH'}")
    return path


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium, closed however the block ends."""
    path = ensure()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()
