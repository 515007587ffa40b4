"""What both kinds of process share: the parameters, the payload rule and the result of a bench."""

from dataclasses import dataclass


class CheckFailed(Exception):
    """A message arrived with the wrong content: the run is invalid."""


@dataclass(frozen=True)
class Params:
    mode: str
    size: int
    rounds: int
    procs: int
    pairs: int
    seconds: float
    warmup_s: float = 10.0


@dataclass
class Result:
    elapsed: float
    check: dict
    rss_kb: tuple[int, int] | None = None  # spawn: before creation, and with all processes alive


class Payload:
    """The buffer a send carries: one shared bytes object (idiomatic) or a fresh one per send (copy)."""

    def __init__(self, mode: str, size: int):
        self.copy = mode == "copy"
        self.size = size
        self.shared = bytes(size)

    def make(self, seq: int) -> bytes:
        return bytes((seq & 255,)) * self.size if self.copy else self.shared

    def check(self, data: bytes, seq: int) -> None:
        expected = seq & 255
        if self.copy and (data[0] != expected or data[-1] != expected):
            raise CheckFailed(f"message {seq} holds bytes {data[0]}..{data[-1]}, expected {expected}")


def rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")
