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

use crate::http::{ERROR_KINDS, ErrorKind};

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
    pub errors: [u64; ERROR_KINDS],
    pub hist: Histogram<u64>,
}

impl StepRec {
    pub fn new() -> StepRec {
        StepRec {
            count: 0,
            ok: 0,
            statuses: Box::new([0; 1000]),
            errors: [0; ERROR_KINDS],
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

/// Requests that completed in one second of the window, or in one slice of the warm-up.
#[derive(Default)]
pub struct Second {
    pub completed: u64,
    pub ok: u64,
    pub errors: u64,
    pub hist: Option<Histogram<u64>>,
}

impl Second {
    pub fn add(&mut self, o: &Second) {
        self.completed += o.completed;
        self.ok += o.ok;
        self.errors += o.errors;
        if let Some(h) = &o.hist {
            let dh = self.hist.get_or_insert_with(|| new_hist(SERIES_SIGFIG));
            let _ = dh.add(h);
        }
    }
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
    /// Warm-up slices not yet taken by the watcher, by slice number: a few at most, since the
    /// watcher takes each one just after it ends. Never part of the measurement.
    pub warmup: Vec<(usize, Second)>,
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
            warmup: Vec::new(),
        }
    }

    fn warmup_slice(&mut self, k: usize) -> &mut Second {
        // Searched from the end: the slice being filled is almost always the last one.
        let i = match self.warmup.iter().rposition(|(i, _)| *i == k) {
            Some(i) => i,
            None => {
                self.warmup.push((k, Second::default()));
                self.warmup.len() - 1
            }
        };
        &mut self.warmup[i].1
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
            self.second(i).add(s);
        }
    }
}

static NEXT_RUN_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static LOCAL: RefCell<Option<(u64, Arc<Mutex<Recorder>>)>> = const { RefCell::new(None) };
}

/// The window's bound before it is set: the window has not opened, or has no end yet.
const NOT_YET: u64 = u64::MAX;

/// The recorders of one run, and its measurement window. The window is set at run time (when
/// a warm-up ends) and read on every request, so its bounds are atomics (nanoseconds from t0)
/// rather than behind a lock: the hot path stays free of shared locks.
pub struct Registry {
    id: u64,
    nsteps: usize,
    t0: Instant,
    start_ns: AtomicU64,
    /// Answers that arrive after this (while the run is being stopped) are not samples.
    end_ns: AtomicU64,
    /// The warm-up's slice length (0: no warm-up): answers before the window go to its slices.
    slice_ns: u64,
    /// A warm-up of batches (a fixed count's) names the slice answers go to: NOT_YET until then.
    batch: AtomicU64,
    recorders: Mutex<Vec<Arc<Mutex<Recorder>>>>,
    /// With `stop_when_late`: a request of the window answered later than this (µs) is late,
    /// NOT_YET when no bound was asked for; past `late_limit` of them the window ends.
    late_us: AtomicU64,
    late_limit: AtomicU64,
    late: AtomicU64,
    /// When the late requests passed the bound (ns from t0), NOT_YET while they have not.
    stopped_ns: AtomicU64,
}

/// The outcome of one request, as the models report it.
#[derive(Clone, Copy)]
pub enum Outcome {
    Response {
        status: u16,
        /// None for a success; `Status` or `Content` for a wrong answer.
        error: Option<ErrorKind>,
        latency: Duration,
    },
    Failed(ErrorKind),
}

/// Where an answer belongs: a second of the window, or a slice of the warm-up.
enum Place {
    Measured(usize),
    Warmup(usize),
}

impl Registry {
    /// A registry whose window is not open yet (see `open_window`); with `slice`, answers
    /// before the window are bucketed into warm-up slices of that length from `t0`.
    pub fn new(nsteps: usize, t0: Instant, slice: Option<Duration>) -> Arc<Registry> {
        Arc::new(Registry {
            id: NEXT_RUN_ID.fetch_add(1, Ordering::Relaxed),
            nsteps,
            t0,
            start_ns: AtomicU64::new(NOT_YET),
            end_ns: AtomicU64::new(NOT_YET),
            slice_ns: slice.map_or(0, |d| (d.as_nanos() as u64).max(1)),
            batch: AtomicU64::new(NOT_YET),
            recorders: Mutex::new(Vec::new()),
            late_us: AtomicU64::new(NOT_YET),
            late_limit: AtomicU64::new(NOT_YET),
            late: AtomicU64::new(0),
            stopped_ns: AtomicU64::new(NOT_YET),
        })
    }

    /// From now on, a request of the window answered over `late_us` after its start, failed, or
    /// dropped, is late, and once more than `limit` are, the window ends at that answer: the
    /// caller has said that so many decide its verdict (README, "Stopping a failed window").
    pub fn stop_when_late(&self, late_us: u64, limit: u64) {
        self.late_limit.store(limit, Ordering::Relaxed);
        self.late_us.store(late_us, Ordering::Relaxed);
    }

    /// Counts `n` late requests at `at`; the one that passes the bound ends the window there.
    fn count_late(&self, n: u64, at: Instant) {
        let late = self.late.fetch_add(n, Ordering::Relaxed) + n;
        if late > self.late_limit.load(Ordering::Relaxed) {
            let at = self.ns(at);
            if self
                .stopped_ns
                .compare_exchange(NOT_YET, at, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                self.end_ns.fetch_min(at, Ordering::Relaxed);
            }
        }
    }

    /// When the late requests ended the window, if they did.
    pub fn stopped(&self) -> Option<Instant> {
        match self.stopped_ns.load(Ordering::Relaxed) {
            NOT_YET => None,
            ns => Some(self.t0 + Duration::from_nanos(ns)),
        }
    }

    fn ns(&self, at: Instant) -> u64 {
        let d = at.saturating_duration_since(self.t0).as_nanos();
        u64::try_from(d).unwrap_or(NOT_YET - 1)
    }

    /// Opens the measurement window [start, end). The end is stored first, and the start with
    /// Release, so a thread that sees the window open also sees its end.
    pub fn open_window(&self, start: Instant, end: Instant) {
        self.end_ns.store(self.ns(end), Ordering::Relaxed);
        self.start_ns.store(self.ns(start), Ordering::Release);
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

    /// Where an answer at `at` belongs, or None when it is after the window (or before it,
    /// without a warm-up).
    fn place(&self, at: Instant) -> Option<Place> {
        let at = self.ns(at);
        let start = self.start_ns.load(Ordering::Acquire);
        if at >= start {
            if at >= self.end_ns.load(Ordering::Relaxed) {
                return None;
            }
            return Some(Place::Measured(((at - start) / 1_000_000_000) as usize));
        }
        // An answer just before the window opened (a closed model's users do not pause) belongs
        // to the warm-up, even once the watcher has stopped looking.
        match self.batch.load(Ordering::Relaxed) {
            NOT_YET => (self.slice_ns > 0).then(|| Place::Warmup((at / self.slice_ns) as usize)),
            k => Some(Place::Warmup(k as usize)),
        }
    }

    /// Whether something that started at `at` belongs to the measurement (warm-up excluded).
    pub fn in_window(&self, at: Instant) -> bool {
        let at = self.ns(at);
        at >= self.start_ns.load(Ordering::Acquire) && at < self.end_ns.load(Ordering::Relaxed)
    }

    /// Whether an answer at `at` came after the end of the window.
    pub fn after_window(&self, at: Instant) -> bool {
        self.ns(at) >= self.end_ns.load(Ordering::Relaxed)
    }

    /// Records one request that completed (or failed) at `at`: a sample if it completed inside
    /// the window, a count in its warm-up slice if before.
    pub fn request(&self, step: usize, outcome: Outcome, at: Instant) {
        let Some(place) = self.place(at) else { return };
        let (ok, us) = match outcome {
            Outcome::Response { error, latency, .. } => (
                error.is_none(),
                Some(latency.as_micros().min(u128::from(MAX_LATENCY_US)) as u64),
            ),
            Outcome::Failed(_) => (false, None),
        };
        if let Place::Measured(_) = place {
            let late_us = self.late_us.load(Ordering::Relaxed);
            if late_us != NOT_YET && (!ok || us.is_some_and(|us| us > late_us)) {
                self.count_late(1, at);
            }
        }
        self.with(|r| {
            let bucket = match place {
                Place::Measured(sec) => {
                    let s = &mut r.steps[step];
                    s.count += 1;
                    match outcome {
                        Outcome::Response { status, error, .. } => {
                            s.statuses[usize::from(status).min(999)] += 1;
                            match error {
                                None => s.ok += 1,
                                Some(kind) => s.errors[kind as usize] += 1,
                            }
                        }
                        Outcome::Failed(kind) => s.errors[kind as usize] += 1,
                    }
                    if let Some(us) = us {
                        record_hist(&mut s.hist, us);
                    }
                    r.second(sec)
                }
                Place::Warmup(k) => r.warmup_slice(k),
            };
            bucket.completed += 1;
            if ok {
                bucket.ok += 1;
            } else {
                bucket.errors += 1;
            }
            if let Some(us) = us {
                record_hist(
                    bucket.hist.get_or_insert_with(|| new_hist(SERIES_SIGFIG)),
                    us,
                );
            }
        });
    }

    /// From now on, answers before the window go to warm-up slice `k`, whenever they come: the
    /// slices of a warm-up of batches are its batches, not stretches of time.
    pub fn begin_batch(&self, k: usize) {
        self.batch.store(k as u64, Ordering::Relaxed);
    }

    /// Warm-up slice `k` over every thread's recorder, taken out of them. Slices before `k` were
    /// taken already: an answer recorded later than the watcher's margin after its slice ended
    /// (its thread held up that long) is dropped with them; it was warm-up, not a sample.
    pub fn take_slice(&self, k: usize) -> Second {
        let mut total = Second::default();
        for r in self.lock_list().iter() {
            let mut r = r.lock().unwrap_or_else(|p| p.into_inner());
            r.warmup.retain(|(i, s)| {
                if *i == k {
                    total.add(s);
                }
                *i > k
            });
        }
        total
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
            if self.late_us.load(Ordering::Relaxed) != NOT_YET {
                self.count_late(self.nsteps as u64, at);
            }
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
        let reg = Registry::new(2, t0, None);
        reg.open_window(t0, t0 + Duration::from_secs(10));
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let reg = &reg;
                s.spawn(move || {
                    for k in 0..100u64 {
                        let outcome = Outcome::Response {
                            status: if k % 10 == 0 { 500 } else { 200 },
                            error: (k % 10 == 0).then_some(ErrorKind::Status),
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
        let reg = Registry::new(1, t0, None);
        reg.open_window(t0, t0 + Duration::from_secs(10));
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
        let reg = Registry::new(1, t0, None);
        reg.request(0, OK, t0);
        reg.open_window(t0 + Duration::from_secs(1), t0 + Duration::from_secs(2));
        reg.request(0, OK, t0 + Duration::from_millis(500));
        reg.request(0, OK, t0 + Duration::from_millis(1200));
        reg.request(0, OK, t0 + Duration::from_millis(2000));
        let m = reg.merged();
        assert_eq!(m.steps[0].count, 1);
        assert_eq!(m.series.len(), 1);
        assert!(m.warmup.is_empty(), "no warm-up, no slices");
        assert!(reg.in_window(t0 + Duration::from_secs(1)));
        assert!(!reg.in_window(t0 + Duration::from_millis(999)));
        assert!(reg.after_window(t0 + Duration::from_secs(2)));
    }

    const OK: Outcome = Outcome::Response {
        status: 200,
        error: None,
        latency: Duration::from_micros(5),
    };

    #[test]
    fn warm_up_answers_go_to_their_slices_until_the_window_opens() {
        let t0 = Instant::now();
        let reg = Registry::new(1, t0, Some(Duration::from_millis(100)));
        let at = |ms| t0 + Duration::from_millis(ms);
        // Nothing is in the window before it opens, and nothing is after it.
        assert!(!reg.in_window(at(50)));
        assert!(!reg.after_window(at(50)));
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    reg.request(0, OK, at(10));
                    reg.request(0, Outcome::Failed(ErrorKind::Reset), at(90));
                    reg.request(0, OK, at(150));
                });
            }
        });
        let first = reg.take_slice(0);
        assert_eq!((first.completed, first.ok, first.errors), (4, 2, 2));
        assert_eq!(
            first.hist.map(|h| h.len()),
            Some(2),
            "only answers are samples"
        );
        assert_eq!(reg.take_slice(0).completed, 0, "taken out");
        // The window opens at 250 ms, mid-slice 2: from then on answers are samples.
        reg.open_window(at(250), at(1250));
        assert!(reg.in_window(at(250)) && !reg.in_window(at(249)));
        reg.request(0, OK, at(240));
        reg.request(0, OK, at(260));
        reg.request(0, OK, at(1300));
        assert_eq!(reg.take_slice(1).completed, 2);
        let m = reg.merged();
        assert_eq!(m.steps[0].count, 1);
        assert_eq!(m.series[0].completed, 1);
        assert_eq!(
            reg.take_slice(2).completed,
            1,
            "just before the window: warm-up"
        );
    }
}
