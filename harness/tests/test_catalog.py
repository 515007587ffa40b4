import pytest

from arena.errors import UsageError
from arena.impls import catalog
from arena.impls.catalog import ManifestError
from conftest import write_manifest


def test_parse_reads_every_field(fake):
    assert fake.name == "fake"
    assert fake.build_outputs == ["out"]
    assert fake.max_cpus == 0
    assert fake.cpus_for(2) == 2
    assert fake.env(2) == {"FAKE_BUDGET": "budget-2"}


def test_name_must_match_folder(tmp_path):
    path = write_manifest(tmp_path, "fake")
    moved = tmp_path / "other"
    path.parent.rename(moved)
    with pytest.raises(ManifestError, match="differs from its folder"):
        catalog.parse(moved / "arena.toml")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('language = "Python"', "", "missing 'language'"),
        ("max = 0", 'max = "two"', "'max' must be a int"),
        ("max = 0", "max = -1", "0 \\(no limit\\)"),
        ('steps = [["sh"', 'steps = [[1, "sh"', "steps: must be a non-empty list of strings"),
        ("[build]", "[build", "invalid TOML"),
    ],
)
def test_bad_manifests_name_file_and_field(tmp_path, old, new, message):
    path = write_manifest(tmp_path, "fake")
    path.write_text(path.read_text().replace(old, new, 1))
    with pytest.raises(ManifestError, match=message):
        catalog.parse(path)


def test_load_keeps_good_manifests_and_reports_bad_ones(tmp_path):
    write_manifest(tmp_path, "good")
    bad = write_manifest(tmp_path, "bad")
    bad.write_text("name = 'bad'\n")
    manifests, errors = catalog.load(tmp_path)
    assert [m.name for m in manifests] == ["good"]
    assert len(errors) == 1 and "bad" in str(errors[0])


def test_select_unknown_lists_the_known(tmp_path):
    write_manifest(tmp_path, "good")
    manifests, _ = catalog.load(tmp_path)
    with pytest.raises(UsageError, match=r"unknown implementation.*nope.*known: good"):
        catalog.select(manifests, ["nope"])


def test_every_manifest_in_the_repository_parses():
    manifests, errors = catalog.load()
    assert errors == []
    assert {"go", "node"} <= {m.name for m in manifests}
