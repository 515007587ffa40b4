//! One run: scenario text in, result document out.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::data::Data;
use crate::model::{self, Ctx, RunOutcome};
use crate::output::{
    self, Connections, Engine, Iterations, Latency, Requests, ResultDoc, SecondOut, StepOut,
    WarmupOut, round3, round6,
};
use crate::record::Registry;
use crate::request::PreparedStep;
use crate::scenario::{InputError, Model, Scenario, Target};

/// A scenario with everything resolved that can fail on bad input: nothing after this point
/// is the user's mistake.
pub struct Prepared {
    pub scenario: Scenario,
    pub target: Target,
    pub steps: Vec<PreparedStep>,
    pub data: Option<Data>,
}

pub fn prepare(text: &str) -> Result<Prepared, InputError> {
    let scenario = Scenario::parse(text)?;
    let target = scenario.target()?;
    let data = scenario.data.as_ref().map(Data::load).transpose()?;
    let columns: &[String] = data.as_ref().map(|d| d.columns.as_slice()).unwrap_or(&[]);
    let steps = scenario
        .steps
        .iter()
        .map(|s| PreparedStep::compile(s, columns, &target, scenario.keep_alive))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Prepared {
        scenario,
        target,
        steps,
        data,
    })
}

/// Runs on the current tokio runtime; `engine` is filled in by the caller.
pub async fn execute(p: Prepared) -> ResultDoc {
    let started_unix_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let sc = &p.scenario;
    let t0 = Instant::now();
    let hard_end = t0 + Duration::from_secs_f64(sc.max_duration_s);
    let slice = sc
        .warmup
        .as_ref()
        .map(|w| Duration::from_secs_f64(w.slice_s));
    let reg = Registry::new(p.steps.len(), t0, slice);
    let names: Vec<String> = p.steps.iter().map(|s| s.name.clone()).collect();
    let ctx = Arc::new(Ctx::new(
        p.steps,
        p.data,
        p.target.addr,
        sc.keep_alive,
        Duration::from_millis(sc.timeout_ms),
        reg,
    ));
    let tally = ctx.connections.clone();
    let outcome = model::execute(ctx, &sc.model, sc.warmup.as_ref(), t0, hard_end).await;
    let (opened, peak_open) = tally.counts();
    let connections = Connections { opened, peak_open };
    document(sc, &names, outcome, connections, started_unix_ms, t0)
}

fn document(
    sc: &Scenario,
    names: &[String],
    out: RunOutcome,
    connections: Connections,
    started_unix_ms: u64,
    t0: Instant,
) -> ResultDoc {
    let rec = &out.recorder;
    let elapsed = out.end.saturating_duration_since(out.start).as_secs_f64();
    let since_t0 = |at: Instant| round6(at.saturating_duration_since(t0).as_secs_f64());
    let warmup = sc
        .warmup
        .as_ref()
        .zip(out.warmup)
        .map(|(w, watched)| WarmupOut {
            slice_s: w.slice_s,
            seconds: since_t0(watched.decided),
            measured_from_s: since_t0(out.start),
            steady_at: watched.steady_at,
            gave_up: watched.gave_up,
            slices: watched.slices,
        });
    let steps: Vec<StepOut> = names
        .iter()
        .zip(&rec.steps)
        .map(|(n, s)| StepOut::of(n, s))
        .collect();
    let all = StepOut::of("all", &output::all_of(&rec.steps));
    let per_s = |n: u64| {
        if elapsed > 0.0 {
            n as f64 / elapsed
        } else {
            0.0
        }
    };
    let seconds = (elapsed.ceil() as usize).max(rec.series.len());
    let series = (0..seconds)
        .map(|t| match rec.series.get(t) {
            Some(s) => SecondOut {
                t: t as u64,
                completed: s.completed,
                ok: s.ok,
                errors: s.errors,
                p50_us: s.hist.as_ref().map_or(0, |h| h.value_at_quantile(0.5)),
                p99_us: s.hist.as_ref().map_or(0, |h| h.value_at_quantile(0.99)),
            },
            None => SecondOut {
                t: t as u64,
                completed: 0,
                ok: 0,
                errors: 0,
                p50_us: 0,
                p99_us: 0,
            },
        })
        .collect();
    ResultDoc {
        engine: Engine {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            threads: 0,
            cpu_user_s: 0.0,
            cpu_system_s: 0.0,
            wall_s: 0.0,
            max_rss_kb: 0,
        },
        scenario: serde_json::to_value(sc).unwrap_or(serde_json::Value::Null),
        started_unix_ms,
        elapsed_s: round6(elapsed),
        iterations: Iterations {
            started: rec.iterations_started,
            completed: rec.iterations_completed,
            dropped: rec.dropped,
            cancelled: out.cancelled,
        },
        requests: Requests {
            total: all.count,
            ok: all.ok,
            errors: all.errors.clone(),
        },
        connections,
        throughput_rps: round3(per_s(all.count)),
        ok_rps: round3(per_s(all.ok)),
        achieved_arrival_rate: out.achieved_arrival_rate.map(round3),
        iteration_latency_us: Latency::of(&rec.iteration),
        iteration_histogram: output::encode(&rec.iteration),
        arrival_lag_us: matches!(sc.model, Model::Open(_)).then(|| Latency::of(&rec.lag)),
        first_last_us: rec.first.zip(rec.last).map(|(f, l)| [f.1, l.1]),
        steps,
        all,
        series,
        warmup,
        stopped_at_s: out
            .stopped
            .map(|at| round6(at.saturating_duration_since(out.start).as_secs_f64())),
    }
}
