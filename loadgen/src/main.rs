//! `loadgen`: Arena's load engine. See README.md for the scenario and result formats.

mod data;
mod http;
mod model;
mod output;
mod record;
mod request;
mod run;
mod scenario;
mod steady;
mod sys;
mod template;

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

/// Arena's load engine: runs one scenario (JSON) against a loopback target and prints one JSON
/// result document on stdout (README.md has both formats).
#[derive(Parser)]
#[command(name = "loadgen", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its result document
    Run {
        /// The scenario: a file, or - for stdin
        scenario: String,
        /// Worker threads (default: the cores this process may run on)
        #[arg(short, long, value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
    },
    /// Validate a scenario without sending anything; print it with its defaults and planned length
    Check {
        /// The scenario: a file, or - for stdin
        scenario: String,
    },
    /// Combine the histograms of repeated runs of one scenario
    Merge {
        /// Result documents of `loadgen run`
        #[arg(required = true)]
        results: Vec<String>,
    },
}

/// Exit status 2: the input (a scenario, a data file, a result document) is wrong, as for the
/// arguments themselves, which clap refuses with the same status.
fn usage_error(msg: &str) -> ExitCode {
    eprintln!("loadgen: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run { scenario, threads } => cmd_run(&scenario, threads.map(usize::from)),
        Command::Check { scenario } => cmd_check(&scenario),
        Command::Merge { results } => cmd_merge(&results),
    }
}

fn read_input(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read the scenario from stdin: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))
    }
}

fn print_json<T: serde::Serialize>(v: &T) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let ok = serde_json::to_writer_pretty(&mut out, v).is_ok()
        && writeln!(out).is_ok()
        && out.flush().is_ok();
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("loadgen: cannot write the result to stdout");
        ExitCode::from(1)
    }
}

fn cmd_run(path: &str, threads: Option<usize>) -> ExitCode {
    let process_start = Instant::now();
    let prepared = match read_input(path).and_then(|text| run::prepare(&text).map_err(|e| e.0)) {
        Ok(p) => p,
        Err(e) => return usage_error(&e),
    };
    warn_of_limits(&prepared);
    let threads = threads.unwrap_or_else(sys::affinity_cpus).max(1);
    let rt = match runtime(threads) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("loadgen: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    eprintln!(
        "loadgen: running against {} with {threads} thread(s)",
        prepared.target.addr
    );
    // Spawned rather than run in block_on, so that with several threads the models run on the
    // workers and not on this extra thread.
    let doc = rt.block_on(async { tokio::spawn(run::execute(prepared)).await });
    let mut doc = match doc {
        Ok(d) => d,
        Err(e) => {
            eprintln!("loadgen: internal error: the run failed: {e}");
            return ExitCode::from(1);
        }
    };
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    account(&mut doc, threads, process_start);
    eprintln!("loadgen: {}", summary(&doc));
    print_json(&doc)
}

/// Warns (and goes on) when the scenario cannot be what it asks: a model longer than its
/// `max_duration_s`, or more connections than the open-files limit allows.
fn warn_of_limits(prepared: &run::Prepared) {
    let sc = &prepared.scenario;
    let warm_s = sc.warmup.as_ref().map_or(0.0, |w| w.max_s);
    if let Some(d) = sc.planned_s().filter(|d| warm_s + d > sc.max_duration_s) {
        let after = if warm_s > 0.0 {
            format!(" after a warm-up of up to {warm_s} s")
        } else {
            String::new()
        };
        eprintln!(
            "loadgen: warning: the model lasts {d} s{after} but max_duration_s is {} s: the run \
             stops there",
            sc.max_duration_s
        );
    }
    let nofile = sys::raise_nofile();
    let sockets_needed = match &sc.model {
        scenario::Model::Closed(c) => c.users,
        scenario::Model::Open(o) => o.max_in_flight,
        scenario::Model::Fixed(f) => f.concurrency,
    };
    if nofile < sockets_needed + 64 {
        eprintln!(
            "loadgen: warning: the open-files limit is {nofile}, below the {sockets_needed} \
             connections this scenario may hold; expect connect errors"
        );
    }
}

/// One thread: a current-thread runtime runs every task on this thread, with no cross-thread
/// wake-ups or work stealing, which is the fastest way to drive one core.
fn runtime(threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
}

/// The engine's own cost, from the process's start: what the harness checks it against its cores.
fn account(doc: &mut output::ResultDoc, threads: usize, process_start: Instant) {
    let u = sys::usage();
    let r6 = |x: f64| (x * 1e6).round() / 1e6;
    doc.engine.threads = threads;
    doc.engine.cpu_user_s = r6(u.user_s);
    doc.engine.cpu_system_s = r6(u.system_s);
    doc.engine.wall_s = r6(process_start.elapsed().as_secs_f64());
    doc.engine.max_rss_kb = u.max_rss_kb;
}

/// The run in one line, for a person reading stderr.
fn summary(doc: &output::ResultDoc) -> String {
    let errors = doc
        .requests
        .errors
        .kinds()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{} requests in {:.3} s ({:.1} req/s), {} ok, errors: {errors}",
        doc.requests.total, doc.elapsed_s, doc.throughput_rps, doc.requests.ok
    )
}

/// Validates a scenario (including its data file and templates) without sending anything, and
/// prints the validated scenario with its defaults filled in, and how long its model is planned
/// to last (`planned_s`, null when only the run can tell).
fn cmd_check(path: &str) -> ExitCode {
    let text = match read_input(path) {
        Ok(t) => t,
        Err(e) => return usage_error(&e),
    };
    match run::prepare(&text) {
        Ok(p) => print_json(&serde_json::json!({
            "scenario": p.scenario,
            "planned_s": p.scenario.planned_s(),
        })),
        Err(e) => usage_error(&e.0),
    }
}

fn cmd_merge(paths: &[String]) -> ExitCode {
    let mut docs = Vec::new();
    for a in paths {
        match read_input(a) {
            Ok(t) => docs.push((a.clone(), t)),
            Err(e) => return usage_error(&e),
        }
    }
    match output::merge(&docs) {
        Ok(m) => print_json(&m),
        Err(e) => usage_error(&e),
    }
}
