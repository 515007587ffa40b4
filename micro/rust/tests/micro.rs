use std::process::Command;

use serde_json::{Value, json};

fn bench(args: &[&str], workers: usize) -> Value {
    let args = args.iter().map(|arg| arg.to_string()).collect();
    let config = arena_micro::parse_args(args).expect("valid arguments");
    let line = arena_micro::run(&config, Some(workers)).expect("bench runs");
    serde_json::from_str(&line).expect("one JSON object")
}

#[test]
fn every_bench_counts_every_message_in_both_modes() {
    let cases = [
        (
            vec!["pingping", "--size", "100", "--rounds", "300"],
            json!({"received": 600}),
        ),
        (
            vec!["pingpong", "--size", "3000", "--rounds", "300"],
            json!({"round_trips": 300}),
        ),
        (vec!["spawn", "--procs", "2000"], json!({"alive": 2000})),
        (
            vec!["ring", "--procs", "50", "--size", "10", "--rounds", "7"],
            json!({"laps": 7, "hops": 350}),
        ),
        (
            vec!["ring", "--procs", "2", "--size", "1", "--rounds", "300"],
            json!({"laps": 300, "hops": 600}),
        ),
    ];
    for (mode, payload) in [("idiomatic", "shared"), ("copy", "copied")] {
        for (args, check) in &cases {
            // A short warm-up: its iterations check their counts and bytes too.
            let args = [args.as_slice(), &["--mode", mode, "--warmup-s", "0.02"]].concat();
            let out = bench(&args, 2);
            assert_eq!(out["check"], *check, "{args:?}");
            assert_eq!(out["bench"], args[0]);
            assert_eq!(out["mode"], mode);
            assert_eq!(out["payload"], payload);
            assert_eq!(out["cpus"], 2);
        }
    }
}

#[test]
fn throughput_counts_both_sides_of_every_pair() {
    for mode in ["idiomatic", "copy"] {
        let args = [
            "throughput",
            "--pairs",
            "3",
            "--size",
            "100",
            "--seconds",
            "0.05",
            "--mode",
            mode,
            "--warmup-s",
            "0.02",
        ];
        let out = bench(&args, 1);
        let per_pair: Vec<u64> =
            serde_json::from_value(out["check"]["per_pair"].clone()).expect("a list");
        assert_eq!(per_pair.len(), 3);
        assert!(
            per_pair.iter().all(|&n| n >= 2 && n % 2 == 0),
            "{per_pair:?}"
        );
        assert_eq!(out["check"]["messages"], per_pair.iter().sum::<u64>());
        assert_eq!(
            out["params"],
            json!({"pairs": 3, "size": 100, "seconds": 0.05})
        );
        assert_eq!(out["cpus"], 1);
    }
}

#[test]
fn spawn_reports_its_memory() {
    let out = bench(
        &[
            "spawn",
            "--procs",
            "1000",
            "--rounds",
            "3",
            "--warmup-s",
            "0.02",
        ],
        1,
    );
    assert_eq!(out["params"], json!({"procs": 1000}));
    for key in [
        "us_per_spawn",
        "bytes_per_process",
        "rss_before_kb",
        "rss_peak_kb",
    ] {
        assert!(out["metric"][key].is_number(), "{key}: {out}");
    }
}

fn micro(args: &[&str], cpus: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_micro"))
        .args(args)
        .env("ARENA_CPUS", cpus)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_binary_prints_one_line_with_the_budget_as_workers() {
    let out = micro(
        &[
            "ring",
            "--procs",
            "3",
            "--rounds",
            "2",
            "--mode",
            "copy",
            "--warmup-s",
            "0.01",
        ],
        "2",
    );
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(stdout.lines().count(), 1);
    let line: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(line["cpus"], 2);
    assert_eq!(
        line["runtime"],
        format!("tokio {}", arena_micro::TOKIO_VERSION)
    );
}

#[test]
fn bad_arguments_exit_2_with_one_line_on_stderr() {
    let bad: &[(&[&str], &str)] = &[
        (&[], "1"),
        (&["nosuchbench"], "1"),
        (&["--size", "5"], "1"),
        (&["pingpong", "--size", "0"], "1"),
        (&["pingpong", "--rounds", "-3"], "1"),
        (&["pingpong", "--size", "abc"], "1"),
        (&["pingpong", "--size"], "1"),
        (&["pingpong", "--mode", "weird"], "1"),
        (&["pingpong", "--bogus", "1"], "1"),
        (&["pingpong", "extra"], "1"),
        (&["spawn", "--procs", "99999999999999999999"], "1"),
        (&["ring", "--procs", "1"], "1"),
        (&["throughput", "--seconds", "0"], "1"),
        (&["throughput", "--seconds", "NaN"], "1"),
        (&["throughput", "--seconds", "inf"], "1"),
        (&["throughput", "--seconds", "1e300"], "1"),
        (&["pingpong", "--warmup-s", "-1"], "1"),
        (&["pingpong", "--warmup-s", "-0.5"], "1"),
        (&["pingpong", "--warmup-s", "abc"], "1"),
        (&["pingpong", "--warmup-s", "NaN"], "1"),
        (&["pingpong", "--warmup-s", "inf"], "1"),
        (&["pingpong", "--warmup-s"], "1"),
        (&["pingpong"], "0"),
        (&["pingpong"], "two"),
    ];
    for (args, cpus) in bad {
        let out = micro(args, cpus);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?} ARENA_CPUS={cpus}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn the_reported_tokio_is_the_locked_one() {
    let lock = include_str!("../Cargo.lock");
    let locked = format!(
        "name = \"tokio\"\nversion = \"{}\"",
        arena_micro::TOKIO_VERSION
    );
    assert!(lock.contains(&locked));
}

#[test]
fn the_steadiness_rule() {
    let table: &[(&[f64], bool)] = &[
        (&[], false),
        (&[10.0, 10.0, 10.0, 10.0], false),
        (&[10.0, 10.0, 10.0, 10.0, 10.0], true),
        // ±10% of the median, bounds included.
        (&[9.0, 11.0, 10.0, 10.0, 10.0], true),
        (&[8.9, 10.0, 10.0, 10.0, 10.0], false),
        (&[10.0, 10.0, 10.0, 10.0, 11.1], false),
        // Only the last 5 count.
        (&[50.0, 20.0, 10.0, 10.5, 9.5, 10.0, 10.9], true),
        // The newest breaks it.
        (&[10.0, 10.0, 10.0, 10.0, 10.0, 30.0], false),
        // Median 100: the 1s are far off; median 1: the 100 is.
        (&[1.0, 1.0, 100.0, 100.0, 100.0], false),
        (&[100.0, 1.0, 1.0, 1.0, 1.0], false),
        (&[0.0, 0.0, 0.0, 0.0, 0.0], true),
        (&[10.0, 10.0, f64::NAN, 10.0, 10.0], false),
        (&[10.0, 10.0, f64::INFINITY, 10.0, 10.0], false),
    ];
    for (series, want) in table {
        assert_eq!(arena_micro::steady(series), *want, "{series:?}");
    }
}

#[test]
fn the_output_has_the_warmup_object() {
    let cases: &[&[&str]] = &[
        &[
            "pingpong", "--size", "100", "--rounds", "100", "--mode", "copy",
        ],
        &["spawn", "--procs", "500"],
        &["throughput", "--seconds", "0.02"],
        &["ring", "--procs", "20", "--rounds", "3"],
    ];
    for args in cases {
        let args = [args, &["--warmup-s", "0.05"][..]].concat();
        let warmup = &bench(&args, 1)["warmup"];
        let series: Vec<f64> = serde_json::from_value(warmup["series"].clone()).expect("numbers");
        let seconds = warmup["seconds"].as_f64().expect("a number");
        assert_eq!(warmup.as_object().map(|w| w.len()), Some(4), "{warmup}");
        assert_eq!(warmup["iterations"], series.len(), "{warmup}");
        assert!(!series.is_empty() && seconds > 0.0, "{args:?}: {warmup}");
        assert_eq!(warmup["steady"], arena_micro::steady(&series), "{warmup}");
        // Without steadiness the warm-up lasts at least W.
        assert!(warmup["steady"] == true || seconds >= 0.05, "{warmup}");
    }
}

#[test]
fn warmup_0_runs_none() {
    for args in [
        &["pingpong", "--rounds", "10", "--warmup-s", "0"][..],
        &["spawn", "--procs", "10", "--warmup-s", "0.0"][..],
    ] {
        assert_eq!(
            bench(args, 1)["warmup"],
            json!({"iterations": 0, "seconds": 0, "steady": false, "series": []}),
            "{args:?}"
        );
    }
}
