"""What the tests share besides fixtures: where things are, and the quick settings."""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent
DATA = FOLDER.parent.parent / "spec" / "data"
HELLO = (DATA / "hello.html").read_bytes()
# Short waits and the cheapest bcrypt cost, as `arena verify` starts servers.
QUICK = {
    "ARENA_BCRYPT_COST": "4",
    "ARENA_LONGPOLL_MS": "300",
    "ARENA_HELLO_DELAY_MS": "400",
    "ARENA_HELLO_DELAY_EVERY": "3",
    "ARENA_SORT_N": "300",
}
