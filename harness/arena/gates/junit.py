"""JUnit XML, the report format CI systems display: a test suite of cases, each passed, failed (with
its message) or skipped (with why)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError


@dataclass(frozen=True)
class Case:
    group: str  # the case's class name: what CI groups it under
    name: str
    failure: str = ""  # a failed case's message
    skipped: str = ""  # why a case was not judged


def write(path: Path, suite: str, cases: list[Case]) -> None:
    failures = sum(bool(c.failure) for c in cases)
    skipped = sum(bool(c.skipped) and not c.failure for c in cases)
    root = ET.Element("testsuites", name="arena", tests=str(len(cases)), failures=str(failures))
    made = ET.SubElement(
        root, "testsuite", name=suite, tests=str(len(cases)), failures=str(failures), skipped=str(skipped), errors="0"
    )
    for c in cases:
        case = ET.SubElement(made, "testcase", classname=c.group, name=c.name)
        if c.failure:
            ET.SubElement(case, "failure", message=c.failure).text = c.failure
        elif c.skipped:
            ET.SubElement(case, "skipped", message=c.skipped)
    ET.indent(root)
    try:
        path.write_text(ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n", encoding="utf-8")
    except OSError as err:
        raise ArenaError(f"cannot write {path}: {err.strerror or err}") from err
