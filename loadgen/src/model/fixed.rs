//! Fixed model: exactly N iterations shared by C concurrent workers, as `ab -n N -c C`.
//! Workers take iteration numbers from one counter, so the total is exact whatever their speed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::task::JoinSet;

use super::{Ctx, join_until, run_iteration};
use crate::scenario::Fixed;

pub async fn run(ctx: Arc<Ctx>, m: &Fixed, hard_end: Instant) -> Instant {
    let total = m.requests;
    let mut set = JoinSet::new();
    for w in 0..m.concurrency.min(total) {
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
    join_until(&mut set, hard_end).await
}
