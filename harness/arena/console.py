"""What the harness shows a person: lines, tables and reports, and progress on long work.

On a terminal, long work shows a progress bar with its phase and an ETA that is redrawn in place;
when the output is not a terminal (CI, a log file) the same events are plain lines, one each, so
that a log reads top to bottom. Text is printed as it is: no markup, no highlighting.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console as RichConsole
from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.text import Text

LOG_WIDTH = 1000  # not a terminal: lines as long as they are, never wrapped


class Work(Protocol):
    """One unit of a long loop: what it is, and how long it should take."""

    estimate_s: float

    def describe(self) -> str: ...


def _rich(stderr: bool) -> RichConsole:
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else LOG_WIDTH
    return RichConsole(stderr=stderr, markup=False, highlight=False, emoji=False, width=width)


def indent(text: str, prefix: str = "      ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


class Console:
    def __init__(self, wide: bool = False) -> None:
        self.out = _rich(stderr=False)
        self.err = _rich(stderr=True)
        self.wide = wide

    @property
    def live(self) -> bool:
        """Whether we draw in place (a terminal) or print plain lines."""
        return self.out.is_terminal

    def line(self, text: str = "", style: str | None = None) -> None:
        self.out.print(text, style=style, soft_wrap=not self.live)

    def warn(self, text: str) -> None:
        self.err.print(f"warning: {text}", style="yellow", soft_wrap=True)

    def error(self, text: str) -> None:
        self.err.print(f"arena: {text}", style="red", soft_wrap=True)

    @contextmanager
    def working(self, text: str) -> Iterator[None]:
        """A step that takes a while (a build, a conformance suite): a spinner on a terminal, a
        line when it starts otherwise. The caller prints the outcome."""
        if not self.live:
            self.line(f"{text}...")
            yield
            return
        with self.out.status(text):
            yield

    @contextmanager
    def progress(self, todo: Sequence[Work], stored: int = 0) -> Iterator[Loop]:
        loop = Loop(self, todo, stored)
        if not self.live:
            yield loop
            return
        bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.fields[phase]:8} {task.description}", markup=False),
            _Since(),
            BarColumn(),
            TextColumn("{task.fields[count]}", markup=False),
            TimeElapsedColumn(),
            TextColumn("~{task.fields[eta]} left", markup=False),
            console=self.out,
            transient=True,
        )
        with bar:
            loop.bar = bar
            loop.bar_task = bar.add_task("", total=loop.total_s, count="", eta="?", phase="", since=0.0)
            yield loop


class _Since(ProgressColumn):
    """Seconds since the work under way began."""

    def render(self, task) -> Text:
        since = task.fields.get("since")
        return Text(f"{time.monotonic() - since:4.0f} s" if since else "")


class Loop:
    """The measuring loop's display. The ETA is the estimate of what is left, scaled by how long
    what is done took against its own estimate."""

    def __init__(self, console: Console, todo: Sequence[Work], stored: int) -> None:
        self.console = console
        self.todo = list(todo)
        self.total_s = sum(w.estimate_s for w in self.todo) or 1.0
        self.done, self.done_s, self.started = 0, 0.0, time.monotonic()
        self.bar: Progress | None = None
        self.bar_task = None
        if stored:
            console.line(f"resuming: {stored} of {stored + len(self.todo)} measurements already stored")
        console.line(f"measuring: {len(self.todo)} measurements")

    def eta_s(self) -> float:
        left = self.total_s - self.done_s
        pace = (time.monotonic() - self.started) / self.done_s if self.done_s else 1.0
        return max(left * pace, 0.0)

    def start(self, work: Work) -> None:
        count = f"{self.done + 1}/{len(self.todo)}"
        if self.bar is None:
            self.console.line(f"[{count}] {work.describe()}  (~{minutes(self.eta_s())} left)")
        else:
            shown = {"description": work.describe(), "count": count, "eta": minutes(self.eta_s())}
            self.bar.update(self.bar_task, **shown, since=time.monotonic())

    def phase(self, name: str) -> None:
        """What the work under way is doing now (start, warm-up, measure): shown on a terminal."""
        if self.bar is not None:
            self.bar.update(self.bar_task, phase=name)

    def skip(self, work: Work, why: str) -> None:
        """Work that turned out not to be needed: it leaves the count and the estimate."""
        self.todo.remove(work)
        self.total_s = max(self.total_s - work.estimate_s, self.done_s, 1.0)
        if self.bar is None:
            self.console.line(f"[not needed] {work.describe()}: {why}")
        else:
            self.bar.update(self.bar_task, total=self.total_s, eta=minutes(self.eta_s()))

    def finish(self, work: Work, outcome: str) -> None:
        self.done += 1
        self.done_s += work.estimate_s
        if self.bar is None:
            self.console.line(f"        {outcome}")
            return
        self.console.line(f"[{self.done}/{len(self.todo)}] {work.describe()}\n        {outcome}")
        self.bar.update(self.bar_task, completed=self.done_s, eta=minutes(self.eta_s()))
