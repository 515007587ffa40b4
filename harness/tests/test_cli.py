import pytest

from arena import cli


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
        (["verify", "--cpus", "one"], "give core counts such as 1 or 1,2"),
        (["verify", "no-such-impl"], "unknown implementation(s): no-such-impl"),
        (["start", "go", "--set", "BCRYPT=4"], "expected ARENA_NAME=value"),
        (["start", "go", "--port", "70000"], "--port 70000"),
        (["micro", "--bench", "pingpang"], "unknown bench(es): pingpang (known: pingping, pingpong"),
        (["micro", "--impl", "cobol"], "unknown implementation(s): cobol"),
        (["micro", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
        (["micro", "--repeat", "0"], "--repeat 0: choose 1..100"),
        (["micro", "--resume", "no-such-run"], "no micro run to resume (no-such-run)"),
        (["list", "cobol"], "unknown implementation(s): cobol"),
    ],
)
def test_bad_input_is_one_clear_line_and_status_2(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["fly"])
    assert exit_.value.code == 2


def test_measured_budgets_leave_a_core_for_the_engine(monkeypatch):
    from arena import pipeline

    for cores, budgets in [(1, [1]), (2, [1]), (4, [1, 2]), (8, [1, 2, 4]), (9, [1, 2, 4, 8])]:
        monkeypatch.setattr(pipeline, "machine_cores", lambda n=cores: list(range(n)))
        assert pipeline.measured_budgets(None) == budgets
    assert pipeline.measured_budgets("1,2") == [1, 2]
