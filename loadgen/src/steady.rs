//! The steady-state rule of the warm-up: when the last few slices of load agree.
//!
//! Throughput must be within ±`rps_tolerance` of the window's mean, with its last slice within
//! half that of its first (no trend), and the median latency within ±`p50_tolerance` of the
//! window's median or within `floor_ms` of it. The floor is there
//! because a median of a few milliseconds is mostly queueing and moves ±20–40% from slice to slice
//! with no trend at all, while a JIT's warm-up moves it several times over; throughput is
//! steadier, so it keeps the narrower band. The harness (arena/rest/warmup.py) chooses the
//! parameters; the engine applies the rule while the load runs.
//!
//! With `give_up_p50_ms`, a warm-up also ends when the load is beyond the server: a window of
//! slices whose medians are all above it and do not fall (a JIT catching up lowers its median
//! several times over; a server behind its arrivals holds or raises it). Measuring then would
//! only say it again, slowly: a search for the highest rate a server sustains (arena capacity)
//! asks for many rates it cannot.

use serde::{Deserialize, Serialize};

use crate::scenario::Warmup;

/// One slice of the warm-up, as reported in the result document. The values are rounded as
/// reported before the rule looks at them, so the rule can be re-checked from the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slice {
    /// When the slice began, in seconds from the start of the run.
    pub t_s: f64,
    pub ok_rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Errors over completed requests; 1.0 when nothing completed (a slice without answers is
    /// no evidence of a healthy server).
    pub error_ratio: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Not steady yet, and another slice fits in `max_s`.
    Continue,
    /// The window of `window` slices starting at this index agrees.
    Steady(usize),
    /// Not steady, and another slice would end past `max_s`: measure anyway.
    Bound,
    /// The last `window` slices are beyond `give_up_p50_ms`: end the run unmeasured.
    GiveUp,
}

fn close(value: f64, centre: f64, tolerance: f64, floor: f64) -> bool {
    (value - centre).abs() <= (tolerance * centre.abs()).max(floor)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Whether these slices are one steady level of load.
pub fn agree(window: &[Slice], rule: &Warmup) -> bool {
    if window.is_empty() {
        return false;
    }
    let mean_rps = window.iter().map(|s| s.ok_rps).sum::<f64>() / window.len() as f64;
    let median_p50 = median(window.iter().map(|s| s.p50_ms).collect());
    let (first, last) = (&window[0], &window[window.len() - 1]);
    mean_rps > 0.0
        && window.iter().all(|s| {
            close(s.ok_rps, mean_rps, rule.rps_tolerance, 0.0)
                && close(s.p50_ms, median_p50, rule.p50_tolerance, rule.floor_ms)
        })
        // No trend: a JIT still compiling gains a little every slice, so a window can sit inside
        // the band while it climbs (Scala's blog-ab batches: 368, 382, 386).
        && close(last.ok_rps, first.ok_rps, rule.rps_tolerance / 2.0, 0.0)
}

/// Whether these slices are a load the server cannot keep within `give_up_p50_ms`: every median
/// above it, and the last not lower than the first by more than the p50 band.
pub fn beyond(window: &[Slice], rule: &Warmup) -> bool {
    let (Some(bound), Some(first), Some(last)) =
        (rule.give_up_p50_ms, window.first(), window.last())
    else {
        return false;
    };
    window.iter().all(|s| s.p50_ms > bound)
        && last.p50_ms >= first.p50_ms * (1.0 - rule.p50_tolerance)
}

/// What to do after the slices so far (`slices[k]` is slice k, the last one just ended), given
/// whether another slice would still end within `max_s`.
pub fn decide(slices: &[Slice], rule: &Warmup, another_fits: bool) -> Decision {
    let n = slices.len();
    if n >= rule.window && beyond(&slices[n - rule.window..], rule) {
        return Decision::GiveUp;
    }
    if n >= rule.window && agree(&slices[n - rule.window..], rule) {
        return Decision::Steady(n - rule.window);
    }
    if !another_fits {
        return Decision::Bound;
    }
    Decision::Continue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Warmup {
        Warmup {
            slice_s: 1.0,
            window: 3,
            max_s: 6.0,
            rps_tolerance: 0.10,
            p50_tolerance: 0.25,
            floor_ms: 2.0,
            give_up_p50_ms: None,
        }
    }

    /// Slices from (ok_rps, p50_ms) pairs, one second each.
    fn slices(values: &[(f64, f64)]) -> Vec<Slice> {
        values
            .iter()
            .enumerate()
            .map(|(k, &(ok_rps, p50_ms))| Slice {
                t_s: k as f64,
                ok_rps,
                p50_ms,
                p99_ms: p50_ms * 4.0,
                error_ratio: 0.0,
            })
            .collect()
    }

    /// A warm-up so far as (ok_rps, p50_ms) per slice, and what the rule decides after it.
    type Case = (&'static str, &'static [(f64, f64)], Decision);

    #[test]
    fn the_rule_on_a_table_of_warm_ups() {
        use Decision::*;
        let cases: &[Case] = &[
            (
                "window not yet full",
                &[(500.0, 10.0), (500.0, 10.0)],
                Continue,
            ),
            (
                "an agreeing window from the first slice",
                &[(500.0, 10.0), (520.0, 11.0), (480.0, 9.0)],
                Steady(0),
            ),
            (
                "one slice out of the rps band (mean 466.7, 400 is 14% below)",
                &[(500.0, 10.0), (500.0, 10.0), (400.0, 10.0)],
                Continue,
            ),
            (
                "rps near the edge of the band, with no trend, agrees (mean 516.7, 550 is +6.5%)",
                &[(500.0, 10.0), (550.0, 10.0), (500.0, 10.0)],
                Steady(0),
            ),
            (
                "a climb inside the band is a trend (+8% from first to last, half the band is 5%)",
                &[(480.0, 10.0), (500.0, 10.0), (520.0, 10.0)],
                Continue,
            ),
            (
                "a small drift within half the band agrees (+4%)",
                &[(500.0, 10.0), (510.0, 10.0), (520.0, 10.0)],
                Steady(0),
            ),
            (
                "p50 off by 50% but within the 2 ms floor",
                &[(500.0, 2.0), (500.0, 3.0), (500.0, 4.5)],
                Steady(0),
            ),
            (
                "p50 out of band (median 10, 14 is 40% off and 4 ms)",
                &[(500.0, 10.0), (500.0, 10.0), (500.0, 14.0)],
                Continue,
            ),
            (
                "zero throughput never agrees",
                &[(0.0, 0.0), (0.0, 0.0), (0.0, 0.0)],
                Continue,
            ),
            (
                "slow first slices, then a steady window",
                &[
                    (50.0, 900.0),
                    (300.0, 40.0),
                    (500.0, 10.0),
                    (510.0, 10.5),
                    (495.0, 9.8),
                ],
                Steady(2),
            ),
            (
                "the last slice that fits in max_s (6 of 1 s) ends it, not steady",
                &[
                    (100.0, 1.0),
                    (200.0, 1.0),
                    (300.0, 1.0),
                    (400.0, 1.0),
                    (500.0, 1.0),
                    (600.0, 1.0),
                ],
                Bound,
            ),
            (
                "steady on the last slice that fits wins over the bound",
                &[
                    (100.0, 90.0),
                    (200.0, 50.0),
                    (300.0, 30.0),
                    (500.0, 10.0),
                    (500.0, 10.0),
                    (500.0, 10.0),
                ],
                Steady(3),
            ),
        ];
        for (name, values, want) in cases {
            let fits = values.len() < rule().max_slices();
            assert_eq!(decide(&slices(values), &rule(), fits), *want, "{name}");
        }
    }

    #[test]
    fn giving_up_on_a_table_of_warm_ups() {
        use Decision::*;
        let r = Warmup {
            give_up_p50_ms: Some(10.0),
            ..rule()
        };
        let cases: &[Case] = &[
            (
                "medians above the bound and rising: behind its arrivals",
                &[(500.0, 20.0), (450.0, 40.0), (400.0, 80.0)],
                GiveUp,
            ),
            (
                "a plateau above the bound (a cap on what is in flight): as hopeless",
                &[(500.0, 30.0), (500.0, 27.0), (500.0, 31.0)],
                GiveUp,
            ),
            (
                "above the bound, falling by more than the band: a JIT catching up",
                &[(300.0, 90.0), (400.0, 40.0), (500.0, 12.0)],
                Continue,
            ),
            (
                "one slice at the bound is not beyond it",
                &[(500.0, 20.0), (500.0, 10.0), (500.0, 20.0)],
                Continue,
            ),
            (
                "not a whole window yet",
                &[(500.0, 50.0), (500.0, 60.0)],
                Continue,
            ),
            (
                "slow at first, then a steady window within the bound",
                &[
                    (100.0, 50.0),
                    (300.0, 60.0),
                    (500.0, 8.0),
                    (500.0, 8.0),
                    (500.0, 8.0),
                ],
                Steady(2),
            ),
            (
                "steady, but beyond the bound: giving up wins",
                &[(500.0, 20.0), (500.0, 20.0), (500.0, 20.0)],
                GiveUp,
            ),
        ];
        for (name, values, want) in cases {
            assert_eq!(decide(&slices(values), &r, true), *want, "{name}");
        }
        let never = [(500.0, 100.0), (450.0, 200.0), (400.0, 400.0)];
        assert_eq!(
            decide(&slices(&never), &rule(), true),
            Continue,
            "without the bound, never"
        );
    }

    #[test]
    fn the_bound_counts_whole_slices_of_max_s() {
        // 0.3 s of 0.1 s slices is 3 slices, despite 0.1 × 3 > 0.3 in floating point.
        let r = Warmup {
            slice_s: 0.1,
            max_s: 0.3,
            ..rule()
        };
        assert_eq!(r.max_slices(), 3);
        let rising = [(100.0, 1.0), (200.0, 1.0), (300.0, 1.0)];
        assert_eq!(
            decide(&slices(&rising[..2]), &r, 2 < r.max_slices()),
            Decision::Continue
        );
        assert_eq!(
            decide(&slices(&rising), &r, 3 < r.max_slices()),
            Decision::Bound
        );
        // 6.5 s of 1 s slices: a 7th slice would end at 7 s, past the bound.
        let r = Warmup {
            max_s: 6.5,
            ..rule()
        };
        assert_eq!(r.max_slices(), 6);
    }

    #[test]
    fn even_windows_take_the_middle_of_the_two_medians() {
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        // Median 10.5 and 25% of it: 8.0 is 2.5 away (within 2.625), 13.2 is 2.7 away (out).
        let r = Warmup {
            window: 4,
            floor_ms: 0.0,
            ..rule()
        };
        let ok = slices(&[(500.0, 8.0), (500.0, 10.0), (500.0, 11.0), (500.0, 13.0)]);
        assert!(agree(&ok, &r));
        let out = slices(&[(500.0, 8.0), (500.0, 10.0), (500.0, 11.0), (500.0, 13.2)]);
        assert!(!agree(&out, &r));
    }
}
