//! The actor micro-benchmarks of `spec/micro.md` on tokio: every process is
//! a task, every mailbox a `tokio::sync::mpsc` channel.

mod bench;
mod process;
mod warmup;

pub use warmup::steady;

use std::ffi::OsString;
use std::time::Duration;

use serde_json::{Value, json};

/// The tokio this crate is built with (pinned with `=` in Cargo.toml).
pub const TOKIO_VERSION: &str = "1.54.1";

/// What an idiomatic send does (the manifest's payload): a `Bytes` clone
/// points at the one buffer.
const PAYLOAD_SHARED: &str = "shared";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bench {
    PingPing,
    PingPong,
    Spawn,
    Throughput,
    Ring,
}

impl Bench {
    const ALL: [Bench; 5] = [
        Bench::PingPing,
        Bench::PingPong,
        Bench::Spawn,
        Bench::Throughput,
        Bench::Ring,
    ];

    fn name(self) -> &'static str {
        match self {
            Bench::PingPing => "pingping",
            Bench::PingPong => "pingpong",
            Bench::Spawn => "spawn",
            Bench::Throughput => "throughput",
            Bench::Ring => "ring",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Idiomatic,
    Copy,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub bench: Bench,
    pub mode: Mode,
    pub size: usize,
    pub rounds: usize,
    pub procs: usize,
    pub pairs: usize,
    pub seconds: f64,
    pub warmup_s: f64,
}

impl Config {
    /// The parameters of the bench's row in spec/micro.md.
    fn params(&self) -> Value {
        match self.bench {
            Bench::PingPing | Bench::PingPong => json!({"size": self.size, "rounds": self.rounds}),
            Bench::Spawn => json!({"procs": self.procs}),
            Bench::Throughput => {
                json!({"pairs": self.pairs, "size": self.size, "seconds": self.seconds})
            }
            Bench::Ring => json!({"procs": self.procs, "size": self.size, "rounds": self.rounds}),
        }
    }
}

/// Reads `BENCH [--option value]...` as spec/micro.md defines it.
pub fn parse_args(args: Vec<String>) -> Result<Config, String> {
    let mut args = args.into_iter();
    let name = args
        .next()
        .ok_or("missing benchmark: pingping, pingpong, spawn, throughput or ring")?;
    let bench = Bench::ALL
        .into_iter()
        .find(|bench| bench.name() == name)
        .ok_or_else(|| {
            format!(
                "unknown benchmark {name:?}: want pingping, pingpong, spawn, throughput or ring"
            )
        })?;
    let mut c = Config {
        bench,
        mode: Mode::Idiomatic,
        size: 5000,
        rounds: 10000,
        procs: 1000,
        pairs: 1,
        seconds: 1.0,
        warmup_s: 10.0,
    };
    while let Some(option) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{option} needs a value"));
        match option.as_str() {
            "--mode" => {
                c.mode = match value()?.as_str() {
                    "idiomatic" => Mode::Idiomatic,
                    "copy" => Mode::Copy,
                    other => return Err(format!("--mode {other:?}: want idiomatic or copy")),
                }
            }
            "--size" => c.size = count(&option, &value()?)?,
            "--rounds" => c.rounds = count(&option, &value()?)?,
            "--procs" => c.procs = count(&option, &value()?)?,
            "--pairs" => c.pairs = count(&option, &value()?)?,
            "--seconds" => {
                let text = value()?;
                c.seconds = text
                    .parse()
                    .ok()
                    // Whatever a Duration cannot hold would panic later.
                    .filter(|&s: &f64| s > 0.0 && Duration::try_from_secs_f64(s).is_ok())
                    .ok_or_else(|| format!("--seconds {text:?}: want a number > 0"))?;
            }
            "--warmup-s" => {
                let text = value()?;
                c.warmup_s = text
                    .parse()
                    .ok()
                    .filter(|&s: &f64| s >= 0.0 && s.is_finite())
                    .ok_or_else(|| format!("--warmup-s {text:?}: want a number >= 0"))?;
            }
            _ => return Err(format!("unknown option {option:?}")),
        }
    }
    if bench == Bench::Ring && c.procs < 2 {
        return Err("ring needs --procs >= 2".into());
    }
    Ok(c)
}

fn count(option: &str, text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("{option} {text:?}: want an integer >= 1"))
}

/// The core budget, `ARENA_CPUS`: the number of worker threads, or tokio's
/// default (one per CPU) when it is not set.
pub fn workers_from(value: Option<OsString>) -> Result<Option<usize>, String> {
    let Some(value) = value else { return Ok(None) };
    value
        .to_str()
        .and_then(|text| text.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .map(Some)
        .ok_or_else(|| format!("ARENA_CPUS={value:?}: want an integer >= 1"))
}

/// Warms the bench up and runs it on a multi-thread runtime of `workers`
/// worker threads; returns its JSON line.
pub fn run(config: &Config, workers: Option<usize>) -> Result<String, String> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(workers) = workers {
        builder.worker_threads(workers);
    }
    let runtime = builder
        .build()
        .map_err(|err| format!("cannot start the tokio runtime: {err}"))?;
    // The bench runs as a task, not in block_on on this thread, so that the
    // main process of pingpong, pingping and ring is on a worker like the
    // others and the runtime uses exactly its worker threads.
    let measured = config.clone();
    let (warmup, mut outcome) = runtime
        .block_on(runtime.spawn(async move {
            let warmup = warmup::warm_up(&measured).await;
            let outcome = bench::run(measured).await;
            (warmup, outcome)
        }))
        .map_err(|err| format!("the benchmark failed: {err}"))?;
    if let (Bench::Spawn, Some(first)) = (config.bench, &warmup.first) {
        // What a fresh runtime pays per process: the first iteration's.
        for key in ["rss_before_kb", "rss_peak_kb", "bytes_per_process"] {
            outcome.metric[key] = first.metric[key].clone();
        }
    }
    let (mode, payload) = match config.mode {
        Mode::Idiomatic => ("idiomatic", PAYLOAD_SHARED),
        Mode::Copy => ("copy", "copied"),
    };
    Ok(json!({
        "bench": config.bench.name(),
        "mode": mode,
        "payload": payload,
        "params": config.params(),
        "elapsed_s": outcome.elapsed.as_secs_f64(),
        "metric": outcome.metric,
        "check": outcome.check,
        "warmup": warmup.to_json(),
        "runtime": format!("tokio {TOKIO_VERSION}"),
        "cpus": runtime.metrics().num_workers(),
    })
    .to_string())
}
