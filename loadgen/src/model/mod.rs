//! The three load models and what they share: the run context and one iteration of the steps.

pub mod closed;
pub mod fixed;
pub mod open;
pub mod warmup;

#[cfg(test)]
mod tests;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use crate::data::Data;
use crate::http::{ErrorKind, Session, Tally};
use crate::record::{Outcome, Recorder, Registry};
use crate::request::PreparedStep;
use crate::scenario::{Model, Warmup};
use crate::template::Vars;
use warmup::Watched;

/// Everything the tasks of one run share, read-only except for the counters.
pub struct Ctx {
    pub steps: Vec<PreparedStep>,
    pub data: Option<Data>,
    pub addr: SocketAddr,
    pub keep_alive: bool,
    pub timeout: Duration,
    pub reg: Arc<Registry>,
    pub connections: Arc<Tally>,
    /// The global iteration number, `{i}` (closed and fixed models).
    pub iteration_counter: AtomicU64,
    /// Iterations started in the window but cut off by the end of the run.
    pub cancelled: AtomicU64,
    build_errors_shown: AtomicU64,
}

impl Ctx {
    pub fn new(
        steps: Vec<PreparedStep>,
        data: Option<Data>,
        addr: SocketAddr,
        keep_alive: bool,
        timeout: Duration,
        reg: Arc<Registry>,
    ) -> Ctx {
        Ctx {
            steps,
            data,
            addr,
            keep_alive,
            timeout,
            reg,
            connections: Arc::default(),
            iteration_counter: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
            build_errors_shown: AtomicU64::new(0),
        }
    }

    pub fn session(&self) -> Session {
        Session::new(
            self.addr,
            self.keep_alive,
            self.timeout,
            None,
            self.connections.clone(),
        )
    }
}

/// What a model reports besides the recorded samples.
pub struct RunOutcome {
    pub recorder: Recorder,
    pub cancelled: u64,
    /// When the measurement window opened: t0, or the switch after a warm-up.
    pub start: Instant,
    /// When the run ended: the duration's end, the last completion, or the hard bound.
    pub end: Instant,
    /// Open model: arrivals sent per second over the schedule's window.
    pub achieved_arrival_rate: Option<f64>,
    pub warmup: Option<Watched>,
    /// Open model with `stop_when_late`: when its late requests ended the window.
    pub stopped: Option<Instant>,
}

/// Runs the scenario's model from `t0`, after its warm-up if it has one; nothing outlives
/// `hard_end`.
///
/// A closed model's users go on from the warm-up into the window without a pause: its
/// throughput is over exactly `duration_s` of users that keep coming back. An open schedule or a
/// fixed count instead starts fresh once the warm-up's requests are answered, as if the run began
/// then, as the seeds' clients measured (ab's N requests, the honours report's fixed-interval
/// arrivals): all the warm-up leaves behind is a warm server.
pub async fn execute(
    ctx: Arc<Ctx>,
    model: &Model,
    warmup: Option<&Warmup>,
    t0: Instant,
    hard_end: Instant,
) -> RunOutcome {
    let mut watched = None;
    let (start, end, achieved) = match model {
        Model::Closed(c) => {
            let (w, start, end) = closed::run(ctx.clone(), c, warmup, t0, hard_end).await;
            watched = w;
            (start, end, None)
        }
        Model::Open(o) => {
            let pool = open::Pool::new(o);
            let warm =
                warmup.map(|rule| open::warm_up(ctx.clone(), o, rule, pool.clone(), t0, hard_end));
            let start = fresh_start(&ctx, warm, t0, hard_end, &mut watched).await;
            let (end, rate) = if gave_up(&watched) {
                (start, 0.0)
            } else {
                open::run(ctx.clone(), o, pool, start, hard_end).await
            };
            (start, end, Some(rate))
        }
        Model::Fixed(f) => {
            let warm = warmup.map(|rule| fixed::warm_up(ctx.clone(), f, rule, t0, hard_end));
            let start = fresh_start(&ctx, warm, t0, hard_end, &mut watched).await;
            // A drain cut off by the bound leaves no time to measure: send nothing past it.
            let end = if gave_up(&watched) {
                start
            } else if start < hard_end {
                fixed::run(ctx.clone(), f, hard_end).await
            } else {
                hard_end
            };
            (start, end, None)
        }
    };
    RunOutcome {
        recorder: ctx.reg.merged(),
        cancelled: ctx.cancelled.load(Ordering::Relaxed),
        start,
        end,
        achieved_arrival_rate: achieved,
        warmup: watched,
        stopped: ctx.reg.stopped(),
    }
}

/// Whether the warm-up gave up on the load: then nothing is measured.
fn gave_up(watched: &Option<Watched>) -> bool {
    watched.as_ref().is_some_and(|w| w.gave_up)
}

/// An open schedule's or a fixed count's start: after its warm-up (if any) has drained, or at
/// t0; the window opens then.
async fn fresh_start(
    ctx: &Ctx,
    warm: Option<impl Future<Output = (Watched, Instant)>>,
    t0: Instant,
    hard_end: Instant,
    watched: &mut Option<Watched>,
) -> Instant {
    let start = match warm {
        Some(warm) => {
            let (w, drained) = warm.await;
            *watched = Some(w);
            drained
        }
        None => t0,
    };
    ctx.reg.open_window(start, hard_end);
    start
}

/// Counts an iteration as cancelled if it is dropped (by the end of the run) before finishing.
struct CancelGuard<'a> {
    ctx: &'a Ctx,
    armed: bool,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.ctx.cancelled.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One iteration: every step in order, whatever the previous step's outcome (a failed `set`
/// still lets the `verify` of the same user be measured, as the thesis' Locust tasks did).
///
/// `intended` is the open model's scheduled start: the first step's latency is taken from it,
/// so time the request spent waiting behind a late scheduler or a busy connection is counted
/// (no coordinated omission). Later steps are timed from their actual send.
pub async fn run_iteration(
    ctx: &Ctx,
    session: &mut Session,
    user: u64,
    iteration: u64,
    intended: Option<Instant>,
    scratch: &mut String,
) {
    let iter_start = intended.unwrap_or_else(Instant::now);
    let counted = ctx.reg.in_window(iter_start);
    if counted {
        ctx.reg.iteration_started();
    }
    let mut guard = CancelGuard {
        ctx,
        armed: counted,
    };
    let row: &[Box<str>] = match &ctx.data {
        Some(d) => d.row(user, iteration),
        None => &[],
    };
    let vars = Vars {
        row,
        iteration,
        user,
    };
    let mut end = iter_start;
    for (idx, step) in ctx.steps.iter().enumerate() {
        let sent = if idx == 0 { iter_start } else { end };
        let outcome = match step.build(&vars, scratch) {
            Ok(req) => {
                let r = session.request(req, step.checks_body()).await;
                end = Instant::now();
                match r {
                    Ok((status, body)) => Outcome::Response {
                        status,
                        error: if !step.is_expected(status) {
                            Some(ErrorKind::Status)
                        } else if !step.body_matches(&vars, body.as_deref()) {
                            Some(ErrorKind::Content)
                        } else {
                            None
                        },
                        latency: end.saturating_duration_since(sent),
                    },
                    Err(kind) => Outcome::Failed(kind),
                }
            }
            Err(e) => {
                end = Instant::now();
                if ctx.build_errors_shown.fetch_add(1, Ordering::Relaxed) < 5 {
                    eprintln!("loadgen: request not sent: {}", e.0);
                }
                Outcome::Failed(ErrorKind::Other)
            }
        };
        ctx.reg.request(idx, outcome, end);
    }
    if ctx.reg.after_window(end) {
        // Finished while the run was being stopped: as if it had been cut off at the end.
        return;
    }
    guard.armed = false;
    if counted {
        ctx.reg
            .iteration_completed(iteration, end.saturating_duration_since(iter_start));
    }
}

/// Waits for every task, or until `deadline`, when the rest are aborted (their iterations count
/// as cancelled). Returns when the run ended: the last completion, or the deadline.
pub async fn join_until(set: &mut JoinSet<()>, deadline: Instant) -> Instant {
    let sleep = tokio::time::sleep_until(deadline.into());
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            biased;
            r = set.join_next() => match r {
                None => return Instant::now(),
                Some(Err(e)) if e.is_panic() => eprintln!("loadgen: internal error: a task panicked"),
                Some(_) => {}
            },
            _ = &mut sleep => {
                set.abort_all();
                while set.join_next().await.is_some() {}
                return deadline;
            }
        }
    }
}

/// A small, fast generator for think times: reproducible per user, no dependency.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi] (inclusive).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }
}
