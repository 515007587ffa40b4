//! Fixed model: exactly N iterations shared by C concurrent workers, as `ab -n N -c C`.
//! Workers take iteration numbers from one counter, so the total is exact whatever their speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use tokio::task::JoinSet;

use super::warmup::{Watched, watch};
use super::{Ctx, join_until, run_iteration};
use crate::scenario::{Fixed, Warmup};

pub async fn run(ctx: Arc<Ctx>, m: &Fixed, hard_end: Instant) -> Instant {
    let mut set = workers(&ctx, m, m.requests, None);
    join_until(&mut set, hard_end).await
}

/// The warm-up: the same C workers with no count, until the watcher decides; then each finishes
/// the iteration it is in (within `hard_end`). Returns what the watcher saw and when the warm-up
/// had drained. The measured N iterations are then numbered from 0, as in a fresh run.
pub async fn warm_up(
    ctx: Arc<Ctx>,
    m: &Fixed,
    rule: &Warmup,
    t0: Instant,
    hard_end: Instant,
) -> (Watched, Instant) {
    let stop = Arc::new(AtomicBool::new(false));
    let mut set = workers(&ctx, m, u64::MAX, Some(stop.clone()));
    let watched = watch(&ctx.reg, rule, t0).await;
    stop.store(true, Ordering::Relaxed);
    let drained = join_until(&mut set, hard_end).await;
    ctx.iteration_counter.store(0, Ordering::Relaxed);
    (watched, drained)
}

/// C workers (at most one per iteration) taking iterations below `total` from the counter, until
/// `stop` is set if one is given.
fn workers(ctx: &Arc<Ctx>, m: &Fixed, total: u64, stop: Option<Arc<AtomicBool>>) -> JoinSet<()> {
    let mut set = JoinSet::new();
    for w in 0..m.concurrency.min(m.requests) {
        let ctx = ctx.clone();
        let stop = stop.clone();
        set.spawn(async move {
            let mut session = ctx.session();
            let mut scratch = String::new();
            while !stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                let i = ctx.iteration_counter.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                run_iteration(&ctx, &mut session, w, i, None, &mut scratch).await;
            }
        });
    }
    set
}
