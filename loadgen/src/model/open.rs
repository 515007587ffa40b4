//! Open model: arrivals on a fixed schedule, independent of how fast the server answers
//! (the honours report's fixed-interval client; wrk2's constant throughput).
//!
//! Arrival k is due at t0 + k/rate (per stage). Its first request is timed from that intended
//! instant, so a server that stalls is charged for every arrival that had to wait, instead of the
//! generator quietly sending fewer requests (coordinated omission). When `max_in_flight`
//! iterations are already running at an arrival's time, the arrival is dropped and counted, never
//! queued: the schedule stays the schedule.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::{Ctx, join_until, run_iteration};
use crate::http::{Conn, Session};
use crate::scenario::Open;
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

/// Returns the end of the run and the achieved arrival rate.
pub async fn run(ctx: Arc<Ctx>, m: &Open, t0: Instant, hard_end: Instant) -> (Instant, f64) {
    let schedule = Schedule::of(m);
    let in_flight = Arc::new(AtomicU64::new(0));
    // Idle keep-alive connections, shared by arrivals (they are not users and own none).
    let pool: Arc<Mutex<Vec<Conn>>> = Arc::new(Mutex::new(Vec::new()));
    let timer = PreciseTimer::new();
    let mut set = JoinSet::new();
    let mut sent_in_window = 0u64;
    let mut planned_end = t0;
    for (k, (offset, rate)) in schedule.arrivals().enumerate() {
        let intended = t0 + offset;
        if intended >= hard_end {
            break;
        }
        planned_end = intended + Duration::from_secs_f64(1.0 / rate);
        if intended > Instant::now() {
            timer.sleep_until(intended).await;
        }
        while set.try_join_next().is_some() {}
        if in_flight.load(Ordering::Relaxed) >= m.max_in_flight {
            ctx.reg.dropped(intended);
            continue;
        }
        if ctx.reg.in_window(intended) {
            sent_in_window += 1;
        }
        in_flight.fetch_add(1, Ordering::Relaxed);
        let guard = InFlight(in_flight.clone());
        set.spawn(arrival(
            ctx.clone(),
            k as u64,
            intended,
            guard,
            pool.clone(),
        ));
    }
    // A late scheduler stretches the window, which lowers the achieved rate: that is the point.
    let sched_end = planned_end.max(Instant::now());
    let window = sched_end
        .saturating_duration_since(ctx.reg.measure_start)
        .as_secs_f64();
    let achieved = if window > 0.0 {
        sent_in_window as f64 / window
    } else {
        0.0
    };
    let end = join_until(&mut set, hard_end).await;
    (end, achieved)
}

async fn arrival(
    ctx: Arc<Ctx>,
    k: u64,
    intended: Instant,
    _guard: InFlight,
    pool: Arc<Mutex<Vec<Conn>>>,
) {
    let now = Instant::now();
    ctx.reg
        .lag(now.saturating_duration_since(intended), intended);
    let conn = if ctx.keep_alive {
        pool.lock().unwrap_or_else(|p| p.into_inner()).pop()
    } else {
        None
    };
    let mut session = Session::new(ctx.addr, ctx.keep_alive, ctx.timeout, conn);
    let mut scratch = String::new();
    // An arrival is its own "user": {user} and per_user rows follow the arrival number.
    run_iteration(&ctx, &mut session, k, k, Some(intended), &mut scratch).await;
    if let Some(c) = session.into_conn() {
        pool.lock().unwrap_or_else(|p| p.into_inner()).push(c);
    }
}
