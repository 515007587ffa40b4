//! Open model: arrivals on a fixed schedule, independent of how fast the server answers
//! (the honours report's fixed-interval client; wrk2's constant throughput).
//!
//! Arrival k is due at t0 + k/rate (per stage). Its first request is timed from that intended
//! instant, so a server that stalls is charged for every arrival that had to wait, instead of the
//! generator quietly sending fewer requests (coordinated omission). When `max_in_flight`
//! iterations are already running at an arrival's time, the arrival is dropped and counted, never
//! queued: the schedule stays the schedule.
//!
//! With `connections`, arrivals share that many connections at most: one that finds them all busy
//! waits for the first freed, in arrival order, its wait charged to its latency like any other.
//! Without it the pool grows with the work in flight, so a server that stalls for 20 ms at 20,000
//! arrivals a second is handed 400 new connections for the rest of the run, and its latency then
//! measures those connections as much as the stall (spec/capacity.md, "The load").

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::warmup::{Watched, watch};
use super::{Ctx, join_until, run_iteration};
use crate::http::{Conn, Session};
use crate::scenario::{Open, Warmup};
use crate::sys::PreciseTimer;

/// The arrival schedule as offsets from t0: stages of constant rate.
#[derive(Debug, Clone)]
pub struct Schedule {
    stages: Vec<(f64, f64)>,
    cap: u64,
}

impl Schedule {
    pub fn of(m: &Open) -> Schedule {
        Schedule {
            stages: m.stages(),
            cap: m.iterations.unwrap_or(u64::MAX),
        }
    }

    /// Every arrival as (offset from t0, the rate of its stage), in order.
    pub fn arrivals(&self) -> impl Iterator<Item = (Duration, f64)> + '_ {
        let mut stage_start = 0.0f64;
        self.stages
            .iter()
            .flat_map(move |&(rate, dur)| {
                let start = stage_start;
                stage_start += dur;
                // Arrivals m/rate for m = 0, 1, … while inside the stage; the small epsilon
                // keeps 2/s × 25 s at exactly 50 arrivals despite rounding.
                let n = (rate * dur - 1e-9).ceil().max(0.0) as u64;
                (0..n).map(move |m| (Duration::from_secs_f64(start + m as f64 / rate), rate))
            })
            .take(usize::try_from(self.cap).unwrap_or(usize::MAX))
    }
}

/// Decrements the in-flight count however the iteration ends (finished or aborted).
struct InFlight(Arc<AtomicU64>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The connections arrivals share (they are not users and own none): the idle ones, and, when the
/// model bounds them, a slot for each that may exist. The warm-up hands its pool to the measured
/// schedule: connections a warm server has accepted are part of its warm state, like its JIT's code.
pub struct Pool {
    idle: Mutex<Vec<Conn>>,
    slots: Option<Arc<Semaphore>>,
}

impl Pool {
    pub fn new(m: &Open) -> Arc<Pool> {
        let slots = m.connections.map(|n| {
            Arc::new(Semaphore::new(
                usize::try_from(n).unwrap_or(Semaphore::MAX_PERMITS),
            ))
        });
        Arc::new(Pool {
            idle: Mutex::new(Vec::new()),
            slots,
        })
    }

    fn take(&self) -> Option<Conn> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }

    fn give_back(&self, conn: Conn) {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(conn);
    }
}

/// When the sender wakes up for an arrival: at its intended instant, or, when that is within
/// `batch` of the last wake-up, `batch` after that wake-up, with every arrival due by then.
///
/// Each wake-up costs a timer, a sleep and a wake of the engine's thread, and each burst of
/// requests a wake of the server's: on this machine's virtual CPUs, about 25 µs of the engine's
/// CPU per arrival at 40,000 a second when every arrival is timed on its own, against 13 µs with
/// a 200 µs batch (loadgen/README.md). An arrival sent late is timed from its intended start all
/// the same, so the lateness is charged to the latency, never hidden: a batch trades at most
/// `batch` of latency for the engine's capacity.
pub fn wake_at(intended: Instant, last_wake: Instant, batch: Duration) -> Instant {
    intended.max(last_wake + batch)
}

/// The arrivals in flight and what they share.
struct Arrivals {
    set: JoinSet<()>,
    in_flight: Arc<AtomicU64>,
    max_in_flight: u64,
    batch: Duration,
    pool: Arc<Pool>,
    timer: PreciseTimer,
}

impl Arrivals {
    fn new(m: &Open, pool: Arc<Pool>) -> Arrivals {
        Arrivals {
            set: JoinSet::new(),
            in_flight: Arc::new(AtomicU64::new(0)),
            max_in_flight: m.max_in_flight,
            batch: Duration::from_micros(m.batch_us),
            pool,
            timer: PreciseTimer::new(),
        }
    }

    /// Sends the arrivals due at `t0` + their offsets, up to `hard_end`. Returns how many were
    /// sent inside the window and when the schedule planned to end.
    async fn send(
        &mut self,
        ctx: &Arc<Ctx>,
        schedule: impl Iterator<Item = (Duration, f64)>,
        t0: Instant,
        hard_end: Instant,
    ) -> (u64, Instant) {
        let mut sent_in_window = 0u64;
        let mut planned_end = t0;
        let mut last_wake = t0;
        for (k, (offset, rate)) in schedule.enumerate() {
            let intended = t0 + offset;
            if intended >= hard_end || ctx.reg.stopped().is_some() {
                break;
            }
            planned_end = intended + Duration::from_secs_f64(1.0 / rate);
            if intended > Instant::now() {
                self.timer
                    .sleep_until(wake_at(intended, last_wake, self.batch))
                    .await;
                last_wake = Instant::now();
            }
            while self.set.try_join_next().is_some() {}
            if self.in_flight.load(Ordering::Relaxed) >= self.max_in_flight {
                ctx.reg.dropped(intended);
                continue;
            }
            if ctx.reg.in_window(intended) {
                sent_in_window += 1;
            }
            self.in_flight.fetch_add(1, Ordering::Relaxed);
            let guard = InFlight(self.in_flight.clone());
            self.set.spawn(arrival(
                ctx.clone(),
                k as u64,
                intended,
                guard,
                self.pool.clone(),
            ));
        }
        (sent_in_window, planned_end)
    }
}

/// Returns the end of the run and the achieved arrival rate; the schedule starts at `t0`, with
/// the idle connections in `pool`.
pub async fn run(
    ctx: Arc<Ctx>,
    m: &Open,
    pool: Arc<Pool>,
    t0: Instant,
    hard_end: Instant,
) -> (Instant, f64) {
    if let Some(late) = m.stop_when_late {
        // In whole microseconds, as latencies are recorded: a latency of exactly `ms` is not late.
        let late_us = (late.ms * 1000.0).round() as u64;
        ctx.reg.stop_when_late(late_us, late.requests);
    }
    let mut arrivals = Arrivals::new(m, pool);
    let (sent_in_window, planned_end) = arrivals
        .send(&ctx, Schedule::of(m).arrivals(), t0, hard_end)
        .await;
    // A late scheduler stretches the window, which lowers the achieved rate: that is the point.
    let sched_end = ctx.reg.stopped().unwrap_or(planned_end.max(Instant::now()));
    let window = sched_end.saturating_duration_since(t0).as_secs_f64();
    let achieved = if window > 0.0 {
        sent_in_window as f64 / window
    } else {
        0.0
    };
    // Stopped, the window is decided, and what is in flight is cancelled rather than waited for.
    let end = match ctx.reg.stopped() {
        Some(stopped) => {
            join_until(&mut arrivals.set, Instant::now()).await;
            stopped
        }
        None => join_until(&mut arrivals.set, hard_end).await,
    };
    (end, achieved)
}

/// The warm-up: arrivals at the first stage's rate, without end or iteration cap, until the
/// watcher decides; then no new arrivals, and the ones in flight are answered (within
/// `hard_end`), or cancelled if it gave up. Returns what the watcher saw and when the warm-up had drained; its idle
/// connections are left in `pool` for the measured schedule.
pub async fn warm_up(
    ctx: Arc<Ctx>,
    m: &Open,
    rule: &Warmup,
    pool: Arc<Pool>,
    t0: Instant,
    hard_end: Instant,
) -> (Watched, Instant) {
    let rate = m.stages().first().map_or(1.0, |s| s.0);
    let endless = (0u64..).map(|k| (Duration::from_secs_f64(k as f64 / rate), rate));
    let mut arrivals = Arrivals::new(m, pool);
    let watched = {
        let sending = arrivals.send(&ctx, endless, t0, hard_end);
        let watching = watch(&ctx.reg, rule, t0);
        tokio::pin!(sending, watching);
        tokio::select! {
            w = &mut watching => w,
            // Only if the bound came first; the watcher decides by max_s, before it.
            _ = &mut sending => watching.await,
        }
    };
    // Given up, what is in flight is beyond the server: cancelled rather than waited for.
    let drain_until = if watched.gave_up {
        Instant::now()
    } else {
        hard_end
    };
    let drained = join_until(&mut arrivals.set, drain_until).await;
    (watched, drained)
}

async fn arrival(ctx: Arc<Ctx>, k: u64, intended: Instant, _guard: InFlight, pool: Arc<Pool>) {
    let now = Instant::now();
    ctx.reg
        .lag(now.saturating_duration_since(intended), intended);
    // Held until the connection is back in the pool; the semaphore is never closed.
    let _slot = match &pool.slots {
        Some(slots) => slots.clone().acquire_owned().await.ok(),
        None => None,
    };
    let conn = if ctx.keep_alive { pool.take() } else { None };
    let mut session = Session::new(
        ctx.addr,
        ctx.keep_alive,
        ctx.timeout,
        conn,
        ctx.connections.clone(),
    );
    let mut scratch = String::new();
    // An arrival is its own "user": {user} and per_user rows follow the arrival number.
    run_iteration(&ctx, &mut session, k, k, Some(intended), &mut scratch).await;
    if let Some(c) = session.into_conn() {
        pool.give_back(c);
    }
}
