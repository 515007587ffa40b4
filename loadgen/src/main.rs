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

const USAGE: &str = "\
usage: loadgen run SCENARIO.json|- [--threads N]
       loadgen check SCENARIO.json|-
       loadgen merge RESULT.json...
Runs one scenario (JSON, a file or - for stdin) against a loopback target and prints one JSON
result document on stdout; `check` validates a scenario without sending anything; `merge`
combines the histograms of repeated runs of one scenario.";

/// Exit status 2: the input (arguments, scenario, data file) is wrong.
fn usage_error(msg: &str) -> ExitCode {
    eprintln!("loadgen: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
        Some("check") => cmd_check(&args[1..]),
        Some("merge") => cmd_merge(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("loadgen {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        _ => usage_error(USAGE),
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

fn cmd_run(args: &[String]) -> ExitCode {
    let process_start = Instant::now();
    let mut path = None;
    let mut threads = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--threads" | "-t" => {
                let Some(v) = it.next() else {
                    return usage_error("--threads needs a number");
                };
                match v.parse::<usize>() {
                    Ok(n) if (1..=1024).contains(&n) => threads = Some(n),
                    _ => return usage_error(&format!("--threads must be 1..1024 (got '{v}')")),
                }
            }
            s if s.starts_with("--threads=") => match s["--threads=".len()..].parse::<usize>() {
                Ok(n) if (1..=1024).contains(&n) => threads = Some(n),
                _ => return usage_error(&format!("--threads must be 1..1024 (got '{s}')")),
            },
            s if path.is_none() && (s == "-" || !s.starts_with('-')) => path = Some(s.to_string()),
            s => return usage_error(&format!("unexpected argument '{s}'\n{USAGE}")),
        }
    }
    let Some(path) = path else {
        return usage_error(USAGE);
    };
    let text = match read_input(&path) {
        Ok(t) => t,
        Err(e) => return usage_error(&e),
    };
    let prepared = match run::prepare(&text) {
        Ok(p) => p,
        Err(e) => return usage_error(&e.0),
    };
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
    let threads = threads.unwrap_or_else(sys::affinity_cpus).max(1);
    let nofile = sys::raise_nofile();
    let sockets_needed = match &prepared.scenario.model {
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
    // One thread: a current-thread runtime runs every task on this thread, with no cross-thread
    // wake-ups or work stealing, which is the fastest way to drive one core.
    let rt = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    };
    let rt = match rt {
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
    let u = sys::usage();
    doc.engine.threads = threads;
    let r6 = |x: f64| (x * 1e6).round() / 1e6;
    doc.engine.cpu_user_s = r6(u.user_s);
    doc.engine.cpu_system_s = r6(u.system_s);
    doc.engine.wall_s = r6(process_start.elapsed().as_secs_f64());
    doc.engine.max_rss_kb = u.max_rss_kb;
    eprintln!(
        "loadgen: {} requests in {:.3} s ({:.1} req/s), {} ok, errors: {}",
        doc.requests.total,
        doc.elapsed_s,
        doc.throughput_rps,
        doc.requests.ok,
        doc.requests
            .errors
            .kinds()
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    print_json(&doc)
}

/// Validates a scenario (including its data file and templates) without sending anything, and
/// prints the validated scenario with its defaults filled in, and how long its model is planned
/// to last (`planned_s`, null when only the run can tell).
fn cmd_check(args: &[String]) -> ExitCode {
    let [path] = args else {
        return usage_error("check needs exactly one scenario");
    };
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

fn cmd_merge(args: &[String]) -> ExitCode {
    if args.is_empty() {
        return usage_error("merge needs at least one result document");
    }
    let mut docs = Vec::new();
    for a in args {
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
