"""What can go wrong that the user can act on: reported as one line and an exit status, never a
traceback. Every module raises a subclass of `ArenaError` for such problems; the command line
catches the base class alone."""

from __future__ import annotations


class ArenaError(Exception):
    """A problem reported to the user in one line (`arena: <message>`), exit status `status`."""

    status = 1

    def line(self) -> str:
        """The message's first line: a long detail (a log tail) stays in the log it names."""
        text = str(self).strip()
        return text.splitlines()[0] if text else type(self).__name__


class UsageError(ArenaError):
    """Bad input on the command line."""

    status = 2
