//! The warm-up of spec/micro.md: the bench repeated in-process, with the same
//! parameters, until its metric is steady or `--warmup-s` seconds have passed.

use std::time::Instant;

use serde_json::{Value, json};
use tokio::runtime::Handle;

use crate::bench::{self, Outcome};
use crate::process::fail;
use crate::{Bench, Config};

/// A throughput warm-up iteration lasts min(D, 0.1 s).
const THROUGHPUT_ITERATION_S: f64 = 0.1;

/// The spec's rule: at least 5 values, and the last 5 all within ±10% of
/// their median. A value that is not finite is never steady.
pub fn steady(series: &[f64]) -> bool {
    let Some(from) = series.len().checked_sub(5) else {
        return false;
    };
    let last = &series[from..];
    let mut sorted = last.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[2];
    last.iter()
        .all(|value| (value - median).abs() <= 0.1 * median.abs())
}

/// What the warm-up did; `first` is its first iteration, whose memory spawn
/// reports.
pub struct Warmup {
    pub series: Vec<f64>,
    pub seconds: f64,
    pub steady: bool,
    pub first: Option<Outcome>,
}

impl Warmup {
    /// The output's `warmup` object.
    pub fn to_json(&self) -> Value {
        if self.series.is_empty() {
            return json!({"iterations": 0, "seconds": 0, "steady": false, "series": []});
        }
        json!({
            "iterations": self.series.len(),
            "seconds": self.seconds,
            "steady": self.steady,
            "series": self.series,
        })
    }
}

/// Repeats the bench until its metric is steady or `c.warmup_s` seconds have
/// passed since the warm-up began (the iteration under way is finished).
/// Runs as a task of the bench's runtime, like the measured run.
pub async fn warm_up(c: &Config) -> Warmup {
    let mut warmup = Warmup {
        series: Vec::new(),
        seconds: 0.0,
        steady: false,
        first: None,
    };
    if c.warmup_s == 0.0 {
        return warmup;
    }
    let mut each = c.clone();
    if c.bench == Bench::Throughput {
        each.seconds = c.seconds.min(THROUGHPUT_ITERATION_S);
    }
    let t0 = Instant::now();
    loop {
        let before = alive_tasks();
        let outcome = bench::run(each.clone()).await;
        if let Err(err) = verify(&each, &outcome.check) {
            fail(&format!(
                "warm-up iteration {}: {err}",
                warmup.series.len() + 1
            ));
        }
        gone(before).await;
        warmup.series.push(outcome.value);
        warmup.first.get_or_insert(outcome);
        if steady(&warmup.series) {
            warmup.steady = true;
            break;
        }
        if t0.elapsed().as_secs_f64() >= c.warmup_s {
            break;
        }
    }
    warmup.seconds = t0.elapsed().as_secs_f64();
    warmup
}

fn alive_tasks() -> usize {
    Handle::current().metrics().num_alive_tasks()
}

/// Waits until the tasks an iteration spawned have ended: the benches join
/// them (or see their last sender dropped), and this covers the instant
/// between a task's last statement and its release by the runtime.
async fn gone(before: usize) {
    while alive_tasks() > before {
        tokio::task::yield_now().await;
    }
}

/// Compares what an iteration's processes counted with what its parameters
/// call for, as the harness does with the measured run's `check`.
fn verify(c: &Config, check: &Value) -> Result<(), String> {
    let want = match c.bench {
        Bench::PingPing => json!({"received": 2 * c.rounds}),
        Bench::PingPong => json!({"round_trips": c.rounds}),
        Bench::Spawn => json!({"alive": c.procs}),
        Bench::Ring => json!({"laps": c.rounds, "hops": c.procs * c.rounds}),
        Bench::Throughput => {
            let per_pair: Option<Vec<u64>> = check["per_pair"]
                .as_array()
                .and_then(|counts| counts.iter().map(Value::as_u64).collect());
            let messages = check["messages"].as_u64().unwrap_or(0);
            return match per_pair {
                Some(per_pair)
                    if messages > 0
                        && per_pair.len() == c.pairs
                        && per_pair.iter().sum::<u64>() == messages =>
                {
                    Ok(())
                }
                _ => Err(format!(
                    "check {check}: want messages > 0, the sum of {} per_pair counts",
                    c.pairs
                )),
            };
        }
    };
    if *check == want {
        Ok(())
    } else {
        Err(format!("check {check}, want {want}"))
    }
}
