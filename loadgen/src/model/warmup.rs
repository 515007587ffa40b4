//! The warm-up's watcher: looks at each slice of the warm-up just after it ends and decides when
//! the load is steady (`crate::steady`). The models run the load; this only watches it.

use std::time::{Duration, Instant};

use crate::output::{round3, round6};
use crate::record::{Registry, Second};
use crate::scenario::Warmup;
use crate::steady::{self, Decision, Slice};

/// What the watcher saw and decided.
pub struct Watched {
    pub slices: Vec<Slice>,
    /// The first slice of the agreeing window; None when `max_s` ended the warm-up, or it gave up.
    pub steady_at: Option<usize>,
    /// The load was beyond the server (`crate::steady::beyond`): the run ends unmeasured.
    pub gave_up: bool,
    /// When the watcher decided: the switch to the measurement.
    pub decided: Instant,
}

/// How long after a slice's end the watcher takes it: an answer timed just before the boundary
/// is recorded a moment later (after its task is woken), and belongs to the slice all the same.
const MARGIN: Duration = Duration::from_millis(5);

/// Watches slices of `rule.slice_s` from `t0` until the rule decides.
pub async fn watch(reg: &Registry, rule: &Warmup, t0: Instant) -> Watched {
    let mut slices = Vec::new();
    loop {
        let k = slices.len();
        // From t0 rather than from the last wake-up, so a late wake-up does not shift the slices.
        let ends = t0 + Duration::from_secs_f64(rule.slice_s * (k + 1) as f64);
        tokio::time::sleep_until((ends + MARGIN).into()).await;
        let t_s = k as f64 * rule.slice_s;
        slices.push(slice_of(t_s, rule.slice_s, &reg.take_slice(k)));
        let decision = steady::decide(&slices, rule, slices.len() < rule.max_slices());
        if decision != Decision::Continue {
            return Watched::of(slices, decision, Instant::now());
        }
    }
}

impl Watched {
    /// What the watcher saw, once `decision` (not `Continue`) ended the warm-up at `decided`.
    pub fn of(slices: Vec<Slice>, decision: Decision, decided: Instant) -> Watched {
        let steady_at = match decision {
            Decision::Steady(at) => Some(at),
            _ => None,
        };
        Watched {
            slices,
            steady_at,
            gave_up: decision == Decision::GiveUp,
            decided,
        }
    }
}

/// A slice that began `t_s` after t0 and lasted `seconds`, from what completed in it.
pub fn slice_of(t_s: f64, seconds: f64, s: &Second) -> Slice {
    let ms = |q: f64| {
        s.hist
            .as_ref()
            .map_or(0.0, |h| h.value_at_quantile(q) as f64 / 1000.0)
    };
    Slice {
        t_s: round6(t_s),
        ok_rps: round3(s.ok as f64 / seconds),
        p50_ms: ms(0.5),
        p99_ms: ms(0.99),
        error_ratio: if s.completed == 0 {
            1.0
        } else {
            round6(s.errors as f64 / s.completed as f64)
        },
    }
}
