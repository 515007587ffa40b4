import dataclasses
import textwrap

import pytest

from arena.rest import scenarios
from arena.rest.ceiling import cycles_rps
from arena.rest.scenarios import ScenarioError


def test_every_experiment_of_the_design_is_there_with_both_profiles():
    loaded = {s.id: s for s in scenarios.load()}
    assert set(loaded) == {
        "thesis-password",
        "thesis-userinfo",
        "thesis-longpoll",
        "blog-ab",
        "honours-long",
        "honours-basic",
        "records-crud",
    }
    for scenario in loaded.values():
        assert {"quick", "paper"} <= set(scenario.profiles)
    assert not any(s.pending for s in loaded.values())
    assert {k for k, s in loaded.items() if s.database} == {"honours-basic", "records-crud"}


def test_users_per_core_scales_with_the_budget():
    (password,) = scenarios.load(["thesis-password"])
    point = scenarios.points(password, "paper")[1]
    document = point.engine_scenario(9999, 2, None, 100)
    assert document["model"]["users"] == 4
    assert document["target"] == "http://127.0.0.1:9999"
    assert "data" not in document


def test_open_points_keep_their_model_and_params_are_filled(tmp_path):
    (long_op,) = scenarios.load(["honours-long"])
    point = scenarios.points(long_op, "paper")[0]
    document = point.engine_scenario(1, 1, tmp_path / "users.csv", 100)
    # The schedule's length is the engine's to tell (LoadEngine.check), not computed here.
    assert document["model"] == {"kind": "open", "max_in_flight": 1000, "rate": 2, "iterations": 50}
    assert document["max_duration_s"] == 100
    assert document["steps"][0]["path"] == "/long-operation?n=50000"
    assert document["data"]["csv"].endswith("users.csv")


def test_blog_ab_runs_like_ab_without_keep_alive():
    (blog,) = scenarios.load(["blog-ab"])
    document = scenarios.points(blog, "paper")[0].engine_scenario(1, 1, None, 100)
    assert document["model"] == {"kind": "fixed", "concurrency": 100, "requests": 10000}
    assert document["keep_alive"] is False


def test_unknown_names_and_bad_files_are_clear_errors(tmp_path):
    with pytest.raises(ScenarioError, match=r"unknown scenario.*nope"):
        scenarios.load(["nope"])
    bad = tmp_path / "broken.toml"
    bad.write_text(
        textwrap.dedent("""
        id = "broken"
        seed = "x"
        source = "x"
        title = "x"
        reported_as = "x"
        steps = []
        [profiles.quick]
        model = { kind = "sideways" }
        points = []
    """)
    )
    with pytest.raises(ScenarioError, match=r"broken.toml \[quick\]: no points"):
        scenarios.parse(bad)
    bad.write_text(bad.read_text().replace("points = []", 'points = [{ users = 1 }]\ncount_unsteady = "yes"'))
    with pytest.raises(ScenarioError, match=r"broken.toml \[quick\]: count_unsteady is true or false"):
        scenarios.parse(bad)


def test_a_closed_models_ceiling_is_its_users_cycles():
    model = {"users": 2000, "think_ms": [500, 500]}
    assert cycles_rps(model, 1, 0.5) == 2000  # a 0.5 s poll and 0.5 s of thought: one a second each
    assert cycles_rps({"users": 2, "think_ms": [0, 2000]}, 2, 2 * 0.25) == 2 * 2 / 1.5  # two hashes, 1 s think
    assert cycles_rps({"users": 5, "think_ms": [0, 0]}, 1, 0) == float("inf")


def test_a_point_may_replace_its_profiles_settings_warmup_and_timeout_and_be_chosen_by_number():
    # bcrypt at cost 20 for three minutes from the first request, waiting a quarter of an hour for
    # an answer: a point of the kind the thesis' errors once needed, beside the profile's own two
    loaded = scenarios.load(["thesis-password"])[0]
    cold_point = {
        "users_per_core": 2,
        "think_ms": [1000, 1000],
        "duration_s": 180,
        "settings": {"ARENA_BCRYPT_COST": "20"},
        "warmup": "none",
        "timeout_ms": 900000,
    }
    findings = {**loaded.profiles["findings"], "points": [*loaded.profiles["findings"]["points"], cold_point]}
    password = dataclasses.replace(loaded, profiles={**loaded.profiles, "findings": findings})
    warm, _, cold = scenarios.points(password, "findings")
    assert warm.settings() == {"ARENA_BCRYPT_COST": "10"} and warm.warmup() is not None
    assert cold.settings() == {"ARENA_BCRYPT_COST": "20"} and cold.warmup() is None  # measured from its first request
    document = cold.engine_scenario(18000, 1, None, None)
    assert "warmup" not in document and document["timeout_ms"] == 900_000
    assert "settings" not in document["model"] and document["model"]["duration_s"] == 180
    assert warm.engine_scenario(18000, 1, None, None)["timeout_ms"] == scenarios.TIMEOUT_MS
    assert [p.index for p in scenarios.points(password, "findings", [3])] == [2]
    with pytest.raises(ScenarioError, match=r"thesis-password \[findings\]: no point 4 \(it has 3\)"):
        scenarios.points(password, "findings", [4])
    assert scenarios.points(scenarios.load(["records-crud"])[0], "findings") == []  # no finding needs it
