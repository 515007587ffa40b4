import pytest

from arena.errors import UsageError
from arena.impls import catalog, setups
from arena.impls.catalog import ManifestError
from conftest import write_manifest


def test_parse_reads_every_field(fake):
    assert fake.name == "fake"
    assert fake.build_outputs == ["out"]
    assert fake.max_cpus == 0
    assert fake.cpus_for(2) == 2
    assert fake.env(2) == {"FAKE_BUDGET": "budget-2"}
    assert fake.shown == "fake"  # one setup: its name


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


SETUPS = """
[[setup]]
name = "framework-cluster"
server = "a framework"
processes = "cluster"
class = "micro"
seeds = ["thesis"]
versus = "bare-single"

[[setup]]
name = "bare-single"
server = "the runtime's own server"
processes = "single"
class = "platform"
seeds = ["blog"]
changes = "no framework, one process"
framework = "none"
run = { command = ["python3", "server.py", "--bare"], warm_s = 3 }
cores = { max = 0, how = "one process whatever the budget" }
"""


BARE_CLUSTER = """
[[setup]]
name = "bare-cluster"
server = "the runtime's own server"
processes = "cluster"
class = "platform"
seeds = ["blog"]
changes = "no framework"
"""


def with_setups(tmp_path, name="fake", setups=SETUPS):
    path = write_manifest(tmp_path, name)
    path.write_text(path.read_text() + setups)
    return path


def test_setups_are_rows_the_default_named_as_the_implementation(tmp_path):
    default, bare = catalog.parse_rows(with_setups(tmp_path))
    assert (default.name, default.label, default.default) == ("fake", "fake:framework-cluster", True)
    assert (bare.name, bare.label, bare.default, bare.impl) == ("fake:bare-single", "fake:bare-single", False, "fake")
    assert default.setup.versus == "bare-single" and bare.setup.seeds == ["blog"]
    assert bare.command(2) == ["python3", "server.py", "--bare"] and bare.warm_s == 3
    assert bare.framework == "none" and default.framework != "none"
    assert bare.build_key == default.build_key  # one folder, one build
    assert (default.shown, bare.shown) == ("fake:framework-cluster", "fake:bare-single")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('processes = "single"', 'processes = "pool"', "'processes' must be one of single, cluster, threads"),
        ('class = "platform"', 'class = "nano"', "'class' must be one of platform, micro, full-stack"),
        ('changes = "no framework, one process"\n', "", "missing 'changes'"),
        ('versus = "bare-single"', 'versus = "nope"', "'versus' names no setup"),
        ('name = "bare-single"', 'name = "framework-cluster"', "two setups share a name"),
        ('name = "bare-single"', 'name = "Bare Single"', "lower-case letters"),
        (
            'seeds = ["thesis"]',
            'seeds = ["thesis"]\nrun = { command = ["x"] }',
            "the default setup is the manifest's own",
        ),
    ],
)
def test_bad_setups_name_file_and_field(tmp_path, old, new, message):
    path = with_setups(tmp_path, setups=SETUPS.replace(old, new, 1))
    with pytest.raises(ManifestError, match=message):
        catalog.parse_rows(path)


def test_a_name_selects_every_setup_or_one(tmp_path):
    with_setups(tmp_path, "fake")
    write_manifest(tmp_path, "plain")
    manifests, _ = catalog.load(tmp_path)
    names = lambda chosen: [m.name for m in chosen]  # noqa: E731
    assert names(catalog.select(manifests, ["fake"])) == ["fake", "fake:bare-single"]
    assert names(catalog.select(manifests, ["fake:bare-single", "plain"])) == ["fake:bare-single", "plain"]
    assert names(catalog.select(manifests, ["fake:framework-cluster"])) == ["fake"]
    assert catalog.one(manifests, "fake").name == "fake"  # an implementation starts as its default
    assert catalog.one(manifests, "fake:bare-single").name == "fake:bare-single"
    with pytest.raises(UsageError, match=r"unknown implementation.*fake:nope.*known: .*fake:bare-single"):
        catalog.select(manifests, ["fake:nope"])


def test_a_comparison_takes_the_default_and_the_lightest_a_study_its_own(tmp_path):
    with_setups(tmp_path, "fake")
    write_manifest(tmp_path, "plain")
    manifests, _ = catalog.load(tmp_path)
    assert [m.name for m in catalog.compared(manifests)] == ["fake", "fake:bare-single", "plain"]
    assert [m.name for m in catalog.for_seed(manifests, "blog")] == ["fake:bare-single", "plain"]
    assert [m.name for m in catalog.for_seed(manifests, "honours")] == ["fake", "plain"]
    # Of two platform setups, the one whose processes use the budget as the default's do.
    clustered = SETUPS + BARE_CLUSTER
    rows = catalog.parse_rows(with_setups(tmp_path / "two", "fake", clustered))
    assert [m.name for m in rows] == ["fake", "fake:bare-single", "fake:bare-cluster"]
    assert catalog.lightest(rows).name == "fake:bare-cluster"
    assert catalog.lightest(rows[:2]).name == "fake:bare-single"


def test_every_server_in_the_repository_declares_its_setups():
    manifests, _ = catalog.load()
    undeclared = [m.name for m in manifests if not m.setup.name]
    assert undeclared == []
    for m in manifests:
        assert not m.setup.versus or any(o.impl == m.impl and o.setup.name == m.setup.versus for o in manifests)


def test_a_stored_name_tells_its_setup_its_lightest_and_what_it_is_measured_against(tmp_path):
    with_setups(tmp_path, "fake")
    write_manifest(tmp_path, "plain")
    manifests, _ = catalog.load(tmp_path)
    known = setups.Setups({m.name: m for m in manifests})
    # Named by its setup where its implementation has several, as stored where it has one.
    assert [known.canonical(n) for n in ("fake", "fake:bare-single", "plain", "gone:x")] == [
        "fake:framework-cluster",
        "fake:bare-single",
        "plain",
        "gone:x",
    ]
    assert known.lightest(["fake", "plain", "fake:bare-single"]) == ["plain", "fake:bare-single"]
    assert known.lightest(["fake", "plain"]) == ["fake", "plain"]
    assert (known.versus("fake"), known.versus("fake:bare-single"), known.versus("plain")) == (
        "fake:bare-single",
        None,
        None,
    )
    # A measurement stored before setups were recorded belongs to the one its row names now.
    assert known.setup("fake") == "framework-cluster" and known.setup("fake", {"setup": "old"}) == "old"
    assert (known.impl("fake:bare-single"), known.impl("gone:x")) == ("fake", "gone")
