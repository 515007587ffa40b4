"""The implementations compared: every manifest answers the thesis' features, cloc counts the real
folders (source apart from tests, build outputs never), and a manifest with an unknown feature is
refused by name."""

import pytest

from arena.impls import catalog
from arena.impls.catalog import FEATURES, ManifestError
from arena.impls.toolchain import Toolchains
from arena.report import features
from conftest import write_manifest


def test_every_implementation_answers_every_feature():
    manifests, errors = catalog.load()
    assert errors == []
    missing = {m.name: sorted(set(FEATURES) - set(m.features)) for m in manifests if set(FEATURES) - set(m.features)}
    assert missing == {}


@pytest.fixture
def cloc():
    """cloc, installed with apt when missing, as the report does."""
    assert Toolchains().ensure_tool(features.CLOC, "the tests").ok


def test_cloc_counts_source_and_tests_apart_from_git_tracked_files(cloc):
    (go,) = catalog.select(catalog.load()[0], ["go"])
    size = features.size(go)
    assert size.languages == ["Go"]  # the built binary in bin/ and go.sum are not code
    assert size.source > 200 and size.tests > 200  # main.go and friends; the *_test.go files
    node = catalog.one(catalog.load()[0], "node")
    assert "TypeScript" in features.size(node).languages  # with lib-ts, which its build reads


def test_the_section_has_a_row_per_implementation_and_the_thesis_rows():
    manifests, _ = catalog.load()
    section = features.section(manifests)
    names = [row.cells[0].show() for row in section.table.rows]
    assert names[: len(manifests)] == sorted(m.name for m in manifests)
    assert names[len(manifests) :] == ["go (seed)", "node (seed)", "elixir (seed)"]
    go = section.table.rows[names.index("go")]
    assert go.cells[2].show().startswith("yes") and go.cells[-2].show().endswith("(Go)")
    assert not any("not counted" in note for note in section.notes)


def test_an_unknown_feature_is_refused_with_the_known_ones(tmp_path):
    path = write_manifest(tmp_path, "fake")
    path.write_text(path.read_text() + '\n[features]\nthreads = "yes"\n')
    with pytest.raises(ManifestError, match="unknown threads; known: multi_threading"):
        catalog.parse(path)
