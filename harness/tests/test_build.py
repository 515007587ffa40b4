from arena.impls import build


def test_build_runs_then_skips_until_a_source_changes(fake):
    first = build.build(fake)
    assert first.ok and not first.skipped
    assert build.build(fake).skipped
    (fake.folder / "server.py").write_text((fake.folder / "server.py").read_text() + "\n# changed\n")
    again = build.build(fake)
    assert again.ok and not again.skipped
    assert (fake.folder / "out" / "count").read_text().count("built") == 2


def test_outputs_are_not_part_of_the_digest(fake):
    before = build.source_digest(fake)
    (fake.folder / "out").mkdir()
    (fake.folder / "out" / "artifact").write_text("x")
    assert build.source_digest(fake) == before


def test_failed_step_is_reported_with_its_command(fake):
    broken = fake.__class__(**{**fake.__dict__, "build_steps": [["sh", "-c", "echo boom; exit 7"]]})
    result = build.build(broken, force=True)
    assert not result.ok
    assert "exited 7" in result.message
    assert "boom" in build.tail(result.log)


def test_a_shared_input_folder_is_part_of_the_digest(fake, tmp_path):
    shared = tmp_path / "lib"
    shared.mkdir()
    (shared / "util.ts").write_text("export const a = 1;\n")
    with_input = fake.__class__(**{**fake.__dict__, "build_inputs": ["../lib"]})
    before = build.source_digest(with_input)
    (shared / "util.ts").write_text("export const a = 2;\n")
    assert build.source_digest(with_input) != before
