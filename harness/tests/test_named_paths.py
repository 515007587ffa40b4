"""Every repository path that a document or a comment names still exists: the READMEs, spec/, and
the comments and docstrings of the harness, the engine and the implementations name dozens, and a
moved or renamed file must take its mentions along.

A mention is a path whose first folder is one of the repository's or the harness's folders
(`spec/data/record.sql`, `rest/warmup.py`, `servers/<impl>/`, with `<...>` and `*` as wildcards),
found from the repository's root, the mentioning file's folder, `harness/` or `harness/arena/`; or a
bare file name of a source or document type (`verify.py`), found anywhere in the repository.
"""

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from arena.paths import ROOT

SOURCE_TYPES = "py|rs|md|toml|yaml|sql|html|css|ts|go|java|kt|scala|ex|exs|erl|rb"
# A path: folders then a last part, or a bare file name of a source type. What stands before it must
# not make it part of a longer word, URL or path.
MENTION = re.compile(
    r"(?<![\w/.:<>{}$@~-])((?:\.?[\w<>{}*-]+/)+[\w.*<>{}-]*|[\w-]+\.(?:" + SOURCE_TYPES + r"))(?![\w/])"
)
# Folders whose files are made, never committed: what a run writes (results/), builds, installs.
MADE = {"results", "target", "node_modules", "_build", ".venv", "deps", "bin"}
# Bare names that are no file of this repository, by design:
ELSEWHERE = {
    "summary.md",  # written by every run into results/<run>/
    "DESIGN.md",  # the design, in ../shared/ beside the repository
    "server.py",  # a throw-away implementation the build tests write
    "util.ts",  # ditto
    "broken.toml",  # a manifest the scenario tests write to see it refused
    "deno.lock",  # named to say why there is none
    "mix.lock",  # ditto
    "_test.go",  # the ending of a Go test's name
}
COMMENT = {  # how each type of file marks a comment, for files whose prose is their comments
    **dict.fromkeys(("rs", "go", "ts", "js", "java", "kt", "scala", "c", "css"), ("//", "/*", "* ")),
    **dict.fromkeys(("toml", "yaml", "yml", "sh", "rb", "ex", "exs"), ("#",)),
    "erl": ("%",),
    "sql": ("--",),
    "html": ("<!--", "{#"),
}


def tracked() -> list[str]:
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.split()


def prose(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of what a file says to its reader: all of a document, the comments and
    docstrings of a Python module, the comments of other code."""
    text = path.read_text(encoding="utf-8", errors="replace")
    kind = path.suffix.lstrip(".") or ("sh" if text.startswith("#!") else "")
    if kind in ("md", "txt"):
        return list(enumerate(text.splitlines(), 1))
    if kind == "py":
        return python_prose(text)
    markers = COMMENT.get(kind, ())
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        starts = [line.find(marker) for marker in markers if marker in line]
        if starts:
            found.append((number, line[min(starts) :]))
    return found


def python_prose(text: str) -> list[tuple[int, str]]:
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found += [(first.lineno + i, line) for i, line in enumerate(first.value.value.splitlines())]
    return found


def mentions(path: Path) -> list[tuple[int, str]]:
    return [(number, m.group(1).rstrip(".")) for number, line in prose(path) for m in MENTION.finditer(line)]


def found(mention: str, folder: Path, firsts: set[str], names: set[str]) -> bool:
    """Whether a mention names something in the repository; True too for what it does not check."""
    parts = mention.split("/")
    if "/" not in mention:
        return mention in names or mention in ELSEWHERE
    pattern = re.sub(r"<[^>]*>|\{[^}]*\}", "*", mention).rstrip("/")
    if any((base / pattern).exists() or any(base.glob(pattern)) for base in bases(folder)):
        return True
    return parts[0] not in firsts or bool(MADE & set(parts))


def bases(folder: Path) -> list[Path]:
    return [ROOT, folder, ROOT / "harness", ROOT / "harness" / "arena"]


def firsts_and_names(files: list[str]) -> tuple[set[str], set[str]]:
    """The folders a mention may start with, and every tracked file's and folder's name."""
    harness = ROOT / "harness"
    firsts = {p.name for p in ROOT.iterdir() if p.name != ".git"} | {p.name for p in harness.iterdir()}
    firsts |= {p.name for p in (harness / "arena").iterdir() if p.is_dir()}
    names = {part for file in files for part in Path(file).parts}
    return firsts, names


def stale(files: list[str]) -> list[str]:
    firsts, names = firsts_and_names(files)
    return [
        f"{file}:{number}: {mention}"
        for file in files
        for number, mention in mentions(ROOT / file)
        if not found(mention, (ROOT / file).parent, firsts, names)
    ]


def test_every_path_a_document_or_comment_names_exists():
    files = [f for f in tracked() if (ROOT / f).is_file() and not f.endswith((".lock", ".json", ".csv"))]
    assert stale(files) == []


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("see `spec/data/record.sql`", True),
        ("see `spec/data/gone.sql`", False),
        ("each `servers/<impl>/arena.toml`", True),
        ("`rest/warmup.py` owns the rule", True),
        ("`arena/warmup_rule.py` applies it", False),
        ("verify.py and no_such_module.py", False),
        ("written to results/<run>/summary.md", True),
        ("built as loadgen/target/release/loadgen", True),
        ("200 text/plain, req/s, HTTP/1.1", True),
        ("https://example.org/spec/gone.md", True),
    ],
)
def test_the_check_tells_a_gone_path_from_one_that_is_there(tmp_path, line, ok):
    doc = tmp_path / "doc.md"
    doc.write_text(line + "\n")
    firsts, names = firsts_and_names(tracked())
    assert all(found(mention, ROOT, firsts, names) for _, mention in mentions(doc)) is ok
