//! Measurements: per-thread recorders merged once at the end.
//!
//! Every worker thread records into its own `Recorder` (found through a thread-local), so the
//! hot path takes only an uncontended lock that no other thread touches until the run is over.
//! A run has its own registry, so runs in one process (the tests) never mix their samples.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::http::ErrorKind;

/// Significant digits of the latency histograms (0.1% value resolution).
pub const SIGFIG: u8 = 3;
/// The per-second series only reports p50/p99; 2 digits (1%) keeps a 600-second series small.
pub const SERIES_SIGFIG: u8 = 2;
/// Samples above this (one hour, in µs) are clamped; the histograms auto-resize up to it.
pub const MAX_LATENCY_US: u64 = 3_600_000_000;

pub fn new_hist(sigfig: u8) -> Histogram<u64> {
    // `new` auto-resizes, so a histogram only spans the values it has seen.
    Histogram::new(sigfig).unwrap_or_else(|_| unreachable!("sigfig 2 and 3 are valid"))
}

pub fn record_hist(h: &mut Histogram<u64>, v: u64) {
    // Auto-resizing histograms only fail on a count overflow, not a possibility here.
    let _ = h.record(v.min(MAX_LATENCY_US));
}

pub struct StepRec {
    pub count: u64,
    pub ok: u64,
    pub statuses: Box<[u64; 1000]>,
    pub errors: [u64; 5],
    pub hist: Histogram<u64>,
}

impl StepRec {
    pub fn new() -> StepRec {
        StepRec {
            count: 0,
            ok: 0,
            statuses: Box::new([0; 1000]),
            errors: [0; 5],
            hist: new_hist(SIGFIG),
        }
    }

    pub fn add(&mut self, o: &StepRec) {
        self.count += o.count;
        self.ok += o.ok;
        for (a, b) in self.statuses.iter_mut().zip(o.statuses.iter()) {
            *a += b;
        }
        for (a, b) in self.errors.iter_mut().zip(o.errors.iter()) {
            *a += b;
        }
        let _ = self.hist.add(&o.hist);
    }
}

impl Default for StepRec {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Default)]
pub struct Second {
    pub completed: u64,
    pub ok: u64,
    pub errors: u64,
    pub hist: Option<Histogram<u64>>,
}

pub struct Recorder {
    pub steps: Vec<StepRec>,
    pub iteration: Histogram<u64>,
    pub iterations_started: u64,
    pub iterations_completed: u64,
    pub dropped: u64,
    /// Open model: how late each arrival actually started, vs its intended time.
    pub lag: Histogram<u64>,
    pub series: Vec<Second>,
    /// (iteration number, latency in µs) of the earliest and the latest iteration completed:
    /// the honours report's "first and last response time" under a fixed arrival rate.
    pub first: Option<(u64, u64)>,
    pub last: Option<(u64, u64)>,
}

impl Recorder {
    pub fn new(nsteps: usize) -> Recorder {
        Recorder {
            steps: (0..nsteps).map(|_| StepRec::new()).collect(),
            iteration: new_hist(SIGFIG),
            iterations_started: 0,
            iterations_completed: 0,
            dropped: 0,
            lag: new_hist(SIGFIG),
            series: Vec::new(),
            first: None,
            last: None,
        }
    }

    fn note_iteration(&mut self, sample: (u64, u64)) {
        if self.first.is_none_or(|f| sample.0 < f.0) {
            self.first = Some(sample);
        }
        if self.last.is_none_or(|l| sample.0 > l.0) {
            self.last = Some(sample);
        }
    }

    fn second(&mut self, s: usize) -> &mut Second {
        if self.series.len() <= s {
            self.series.resize_with(s + 1, Second::default);
        }
        &mut self.series[s]
    }

    pub fn add(&mut self, o: &Recorder) {
        for (a, b) in self.steps.iter_mut().zip(o.steps.iter()) {
            a.add(b);
        }
        let _ = self.iteration.add(&o.iteration);
        let _ = self.lag.add(&o.lag);
        self.iterations_started += o.iterations_started;
        self.iterations_completed += o.iterations_completed;
        self.dropped += o.dropped;
        for sample in [o.first, o.last].into_iter().flatten() {
            self.note_iteration(sample);
        }
        for (i, s) in o.series.iter().enumerate() {
            let d = self.second(i);
            d.completed += s.completed;
            d.ok += s.ok;
            d.errors += s.errors;
            if let Some(h) = &s.hist {
                let dh = d.hist.get_or_insert_with(|| new_hist(SERIES_SIGFIG));
                let _ = dh.add(h);
            }
        }
    }
}

static NEXT_RUN_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static LOCAL: RefCell<Option<(u64, Arc<Mutex<Recorder>>)>> = const { RefCell::new(None) };
}

/// The recorders of one run, and its measurement window: from the end of the warm-up to the
/// end of the run's duration.
pub struct Registry {
    id: u64,
    nsteps: usize,
    pub measure_start: Instant,
    /// Answers that arrive after this (while the run is being stopped) are not samples.
    pub measure_end: Instant,
    recorders: Mutex<Vec<Arc<Mutex<Recorder>>>>,
}

/// The outcome of one request, as the models report it.
pub enum Outcome {
    Response {
        status: u16,
        ok: bool,
        latency: Duration,
    },
    Failed(ErrorKind),
}

impl Registry {
    pub fn new(nsteps: usize, measure_start: Instant, measure_end: Instant) -> Arc<Registry> {
        Arc::new(Registry {
            id: NEXT_RUN_ID.fetch_add(1, Ordering::Relaxed),
            nsteps,
            measure_start,
            measure_end,
            recorders: Mutex::new(Vec::new()),
        })
    }

    /// Runs `f` on this thread's recorder for this run.
    pub fn with<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        let rec = LOCAL
            .try_with(|slot| {
                let mut slot = slot.borrow_mut();
                match &*slot {
                    Some((id, r)) if *id == self.id => r.clone(),
                    _ => {
                        let r = Arc::new(Mutex::new(Recorder::new(self.nsteps)));
                        self.lock_list().push(r.clone());
                        *slot = Some((self.id, r.clone()));
                        r
                    }
                }
            })
            // Only during thread teardown: record into a fresh recorder that still gets merged.
            .unwrap_or_else(|_| {
                let r = Arc::new(Mutex::new(Recorder::new(self.nsteps)));
                self.lock_list().push(r.clone());
                r
            });
        let mut guard = rec.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    fn lock_list(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Mutex<Recorder>>>> {
        self.recorders.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Seconds since the window opened, or None outside the window.
    fn slot(&self, at: Instant) -> Option<usize> {
        if at >= self.measure_end {
            return None;
        }
        at.checked_duration_since(self.measure_start)
            .map(|d| d.as_secs() as usize)
    }

    /// Whether something that started at `at` belongs to the measurement (warm-up excluded).
    pub fn in_window(&self, at: Instant) -> bool {
        at >= self.measure_start && at < self.measure_end
    }

    /// Whether an answer at `at` came after the end of the window.
    pub fn after_window(&self, at: Instant) -> bool {
        at >= self.measure_end
    }

    /// Records one request that completed (or failed) at `at`.
    pub fn request(&self, step: usize, outcome: Outcome, at: Instant) {
        let Some(sec) = self.slot(at) else { return };
        self.with(|r| {
            let s = &mut r.steps[step];
            s.count += 1;
            let (ok, lat) = match outcome {
                Outcome::Response {
                    status,
                    ok,
                    latency,
                } => {
                    let us = latency.as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
                    record_hist(&mut s.hist, us);
                    s.statuses[usize::from(status).min(999)] += 1;
                    if ok {
                        s.ok += 1;
                    } else {
                        s.errors[ErrorKind::Status as usize] += 1;
                    }
                    (ok, Some(us))
                }
                Outcome::Failed(kind) => {
                    s.errors[kind as usize] += 1;
                    (false, None)
                }
            };
            let second = r.second(sec);
            second.completed += 1;
            if ok {
                second.ok += 1;
            } else {
                second.errors += 1;
            }
            if let Some(us) = lat {
                record_hist(
                    second.hist.get_or_insert_with(|| new_hist(SERIES_SIGFIG)),
                    us,
                );
            }
        });
    }

    pub fn iteration_started(&self) {
        self.with(|r| r.iterations_started += 1);
    }

    pub fn iteration_completed(&self, iteration: u64, latency: Duration) {
        let us = latency.as_micros().min(u128::from(MAX_LATENCY_US)) as u64;
        self.with(|r| {
            r.iterations_completed += 1;
            record_hist(&mut r.iteration, us);
            r.note_iteration((iteration, us));
        });
    }

    pub fn dropped(&self, at: Instant) {
        if self.in_window(at) {
            self.with(|r| r.dropped += 1);
        }
    }

    pub fn lag(&self, lag: Duration, at: Instant) {
        if self.in_window(at) {
            self.with(|r| record_hist(&mut r.lag, lag.as_micros() as u64));
        }
    }

    /// Merges every thread's recorder. Call after all tasks of the run have ended.
    pub fn merged(&self) -> Recorder {
        let mut total = Recorder::new(self.nsteps);
        for r in self.lock_list().iter() {
            let r = r.lock().unwrap_or_else(|p| p.into_inner());
            total.add(&r);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorders_of_several_threads_merge() {
        let t0 = Instant::now();
        let reg = Registry::new(2, t0, t0 + Duration::from_secs(10));
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let reg = &reg;
                s.spawn(move || {
                    for k in 0..100u64 {
                        let outcome = Outcome::Response {
                            status: if k % 10 == 0 { 500 } else { 200 },
                            ok: k % 10 != 0,
                            latency: Duration::from_micros(t * 100 + k),
                        };
                        reg.request((k % 2) as usize, outcome, t0 + Duration::from_millis(1500));
                    }
                    reg.request(0, Outcome::Failed(ErrorKind::Timeout), t0);
                });
            }
        });
        let m = reg.merged();
        assert_eq!(m.steps[0].count + m.steps[1].count, 404);
        assert_eq!(m.steps[0].errors[ErrorKind::Timeout as usize], 4);
        assert_eq!(m.steps[0].statuses[500], 40);
        assert_eq!(m.steps[0].hist.len() + m.steps[1].hist.len(), 400);
        assert_eq!(m.series.len(), 2);
        assert_eq!(m.series[0].completed, 4);
        assert_eq!(m.series[1].completed, 400);
        assert_eq!(m.series[1].errors, 40);
    }

    #[test]
    fn first_and_last_follow_the_iteration_number_not_the_completion_order() {
        let t0 = Instant::now();
        let reg = Registry::new(1, t0, t0 + Duration::from_secs(10));
        std::thread::scope(|s| {
            for t in 0..3u64 {
                let reg = &reg;
                s.spawn(move || {
                    for k in (0..10u64).rev() {
                        let iteration = k * 3 + t;
                        reg.iteration_completed(iteration, Duration::from_micros(1000 + iteration));
                    }
                });
            }
        });
        let m = reg.merged();
        assert_eq!(m.first, Some((0, 1000)));
        assert_eq!(m.last, Some((29, 1029)));
    }

    #[test]
    fn requests_outside_the_window_are_not_recorded() {
        let t0 = Instant::now();
        let reg = Registry::new(1, t0 + Duration::from_secs(1), t0 + Duration::from_secs(2));
        let ok = || Outcome::Response {
            status: 200,
            ok: true,
            latency: Duration::from_micros(5),
        };
        reg.request(0, ok(), t0);
        reg.request(0, ok(), t0 + Duration::from_millis(1200));
        reg.request(0, ok(), t0 + Duration::from_millis(2000));
        let m = reg.merged();
        assert_eq!(m.steps[0].count, 1);
        assert_eq!(m.series.len(), 1);
    }
}
