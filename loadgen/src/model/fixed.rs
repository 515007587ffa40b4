//! Fixed model: exactly N iterations shared by C concurrent workers, as `ab -n N -c C`.
//! Workers take iteration numbers from one counter, so the total is exact whatever their speed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::task::JoinSet;

use super::warmup::{Watched, slice_of};
use super::{Ctx, join_until, run_iteration};
use crate::scenario::{Fixed, Warmup};
use crate::steady::{self, Decision};

/// A warm-up batch's size, per worker: at least FIRST_PER_WORKER, and enough to last about
/// `slice_s` if the first was shorter, at most MAX_PER_WORKER.
const FIRST_PER_WORKER: u64 = 10;
const MAX_PER_WORKER: u64 = 100;

pub async fn run(ctx: Arc<Ctx>, m: &Fixed, hard_end: Instant) -> Instant {
    ctx.iteration_counter.store(0, Ordering::Relaxed);
    let mut set = workers(&ctx, m.concurrency, m.requests);
    join_until(&mut set, hard_end).await
}

/// The warm-up of a fixed count: batches of the measured run's own shape, one slice each — the
/// C workers start together on a batch of iterations, and it drains — until the rule decides.
/// A fixed run's cost is in its start (C new requests at once) as much as in what follows, and
/// workers that simply went on would not show it: blog-ab's spend nearly all their time in its
/// 2 s delays, so a stretch of their load shows the delays' 500/s whatever the server's cost.
/// The first batch is FIRST_PER_WORKER iterations a worker; if it was over in less than
/// `slice_s`, the later ones are larger, to last about that; they never shrink, since a batch's
/// throughput depends on its size (its start and its drain weigh more in a small one) and the
/// rule compares them. Returns what the rule saw and when the last batch had drained.
pub async fn warm_up(
    ctx: Arc<Ctx>,
    m: &Fixed,
    rule: &Warmup,
    t0: Instant,
    hard_end: Instant,
) -> (Watched, Instant) {
    let mut slices = Vec::new();
    let mut batch = m.concurrency * FIRST_PER_WORKER;
    loop {
        let k = slices.len();
        ctx.reg.begin_batch(k);
        ctx.iteration_counter.store(0, Ordering::Relaxed);
        let began = Instant::now();
        let mut set = workers(&ctx, m.concurrency, batch);
        let ended = join_until(&mut set, hard_end).await;
        let took = ended
            .saturating_duration_since(began)
            .as_secs_f64()
            .max(1e-6);
        let since_t0 = began.saturating_duration_since(t0).as_secs_f64();
        slices.push(slice_of(since_t0, took, &ctx.reg.take_slice(k)));
        if k == 0 {
            let sized = (batch as f64 * rule.slice_s / took).round() as u64;
            batch = sized.clamp(batch, m.concurrency * MAX_PER_WORKER);
        }
        let fits = ended.saturating_duration_since(t0).as_secs_f64() + took <= rule.max_s;
        let decision = steady::decide(&slices, rule, fits && ended < hard_end);
        if decision != Decision::Continue {
            return (Watched::of(slices, decision, ended), ended);
        }
    }
}

/// C workers (at most one per iteration) taking iterations below `total` from the counter.
fn workers(ctx: &Arc<Ctx>, concurrency: u64, total: u64) -> JoinSet<()> {
    let mut set = JoinSet::new();
    for w in 0..concurrency.min(total) {
        let ctx = ctx.clone();
        set.spawn(async move {
            let mut session = ctx.session();
            let mut scratch = String::new();
            loop {
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
