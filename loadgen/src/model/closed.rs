//! Closed model: a fixed population of virtual users, each running the steps, thinking, and
//! running them again (the thesis' Locust users). Load follows the server's speed: a user sends
//! its next request only after the previous answer and its think time.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::warmup::{Watched, watch};
use super::{Ctx, SplitMix64, join_until, run_iteration};
use crate::scenario::{Closed, Warmup};

/// Returns what the warm-up saw (if any), and when the window opened and ended.
pub async fn run(
    ctx: Arc<Ctx>,
    m: &Closed,
    warmup: Option<&Warmup>,
    t0: Instant,
    hard_end: Instant,
) -> (Option<Watched>, Instant, Instant) {
    let end_from = |start: Instant| match m.duration_s {
        Some(d) => (start + Duration::from_secs_f64(d)).min(hard_end),
        None => hard_end,
    };
    if warmup.is_none() {
        ctx.reg.open_window(t0, end_from(t0));
    }
    let mut set = JoinSet::new();
    for u in 0..m.users {
        set.spawn(user(
            ctx.clone(),
            u,
            t0 + start_offset(u, m.ramp_per_s),
            m.think_ms,
            m.iterations_per_user,
        ));
    }
    let (watched, start, end) = match warmup {
        Some(rule) => {
            let w = watch(&ctx.reg, rule, t0).await;
            // The users go on as they are: the window opens under them, unless the warm-up gave
            // up, and then it closes as it opens.
            let start = w.decided.min(hard_end);
            let end = if w.gave_up { start } else { end_from(start) };
            ctx.reg.open_window(start, end);
            (Some(w), start, end)
        }
        None => (None, t0, end_from(t0)),
    };
    let end = join_until(&mut set, end).await;
    (watched, start, end)
}

/// When user `u` starts, from t0: u/R s with a ramp of R users per second; with no ramp (absent
/// or 0), at once.
pub fn start_offset(u: u64, ramp_per_s: Option<f64>) -> Duration {
    match ramp_per_s.filter(|r| *r > 0.0) {
        Some(r) => Duration::from_secs_f64(u as f64 / r),
        None => Duration::ZERO,
    }
}

/// User `u`'s think-time generator: reproducible per user, different between users.
pub fn think_rng(u: u64) -> SplitMix64 {
    SplitMix64::new(u.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x5EED)
}

async fn user(
    ctx: Arc<Ctx>,
    u: u64,
    start_at: Instant,
    think_ms: [u64; 2],
    iterations: Option<u64>,
) {
    if start_at > Instant::now() {
        tokio::time::sleep_until(start_at.into()).await;
    }
    let mut session = ctx.session();
    let mut rng = think_rng(u);
    let mut scratch = String::new();
    let mut done = 0u64;
    loop {
        let i = ctx.iteration_counter.fetch_add(1, Ordering::Relaxed);
        run_iteration(&ctx, &mut session, u, i, None, &mut scratch).await;
        done += 1;
        if iterations.is_some_and(|n| done >= n) {
            break;
        }
        let think = rng.between(think_ms[0], think_ms[1]);
        if think > 0 {
            tokio::time::sleep(Duration::from_millis(think)).await;
        }
    }
}
