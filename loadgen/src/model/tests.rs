//! Scheduling tests of the three models: the pure schedules (arrival offsets, ramp offsets, think
//! draws) exactly, and real runs against a tiny HTTP/1.1 server on 127.0.0.1:0.
//!
//! The server runs on its own thread and runtime, so a test that stalls the engine's runtime
//! does not stall the server, and its timestamps are the server's view of the load.
//!
//! Timing belongs in benchmarks, not in asserts: these tests run on busy machines (2 cores, other
//! builds). A real run is checked by exact counts, by lower bounds that hold whatever the load
//! (nothing is sent before it is due; a delay is never shorter than asked), by comparisons within
//! one run, and by upper bounds with `LATE` of slack: far above scheduler noise, far below what a
//! broken engine gives (a schedule twice too slow, a duration ignored by seconds).

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::SplitMix64;
use super::closed::{start_offset, think_rng};
use super::open::{self, Schedule};
use crate::output::ResultDoc;
use crate::run;
use crate::scenario::{Open, Stage};

/// How much later than due a test lets the engine be before calling it broken (see above).
const LATE: Duration = Duration::from_millis(250);
/// A run that has not ended by then is broken (a bound or duration ignored): fail, don't hang.
const RUN_LIMIT: Duration = Duration::from_secs(5);

#[derive(Clone, Default)]
struct Behavior {
    delay: Duration,
    status: u16,
    /// One connection at a time, each fully served before the next accept.
    serial: bool,
    /// Read the request, then close without answering.
    hang_up: bool,
    /// Answer `delay` late until this instant, then at once: a server that warms up.
    slow_until: Option<Instant>,
    /// Answer 1 ms × 2^(t / period) late, t from the given instant: a server never steady.
    doubling: Option<(Instant, Duration)>,
    /// Answer `{"path": <the request's path>}` instead of `OK`.
    echo_json: bool,
    /// Stall once: a request read from this instant for this long is answered when it ends.
    stall: Option<(Instant, Duration)>,
}

struct TestServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(Instant, String)>>>,
    /// When each connection was accepted.
    accepted: Arc<Mutex<Vec<Instant>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    fn start(b: Behavior) -> TestServer {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(Mutex::new(Vec::new()));
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let (log2, accepted2) = (log.clone(), accepted.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        acc = listener.accept() => {
                            let Ok((sock, _)) = acc else { continue };
                            accepted2.lock().unwrap().push(Instant::now());
                            let fut = serve(sock, b.clone(), log2.clone());
                            if b.serial { fut.await } else { tokio::spawn(fut); }
                        }
                    }
                }
            });
        });
        TestServer {
            addr,
            log,
            accepted,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn target(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The connections accepted so far.
    fn conns(&self) -> usize {
        self.accepted.lock().unwrap().len()
    }

    fn conns_since(&self, since: Instant) -> usize {
        self.accepted
            .lock()
            .unwrap()
            .iter()
            .filter(|&&t| t >= since)
            .count()
    }

    fn requests(&self) -> Vec<(Instant, String)> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve(sock: TcpStream, b: Behavior, log: Arc<Mutex<Vec<(Instant, String)>>>) {
    let mut r = BufReader::new(sock);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let (mut len, mut close) = (0usize, false);
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).await.unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end().to_ascii_lowercase();
            if h.is_empty() {
                break;
            }
            if let Some(v) = h.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            if h == "connection: close" {
                close = true;
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        log.lock().unwrap().push((Instant::now(), path.clone()));
        if b.hang_up {
            return;
        }
        let delay = match (b.slow_until, b.doubling) {
            (Some(until), _) if Instant::now() >= until => Duration::ZERO,
            // Capped at 10 s so that a server left running cannot overflow the delay.
            (_, Some((since, period))) => ms(1).mul_f64(
                2f64.powf(since.elapsed().as_secs_f64() / period.as_secs_f64())
                    .min(1e4),
            ),
            _ => b.delay,
        };
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        if let Some((at, length)) = b.stall {
            let now = Instant::now();
            if now >= at && now < at + length {
                tokio::time::sleep_until((at + length).into()).await;
            }
        }
        let status = if b.status == 0 { 200 } else { b.status };
        let conn = if close { "Connection: close\r\n" } else { "" };
        let answer = if b.echo_json {
            serde_json::json!({ "path": path }).to_string()
        } else {
            "OK".to_string()
        };
        let resp = format!(
            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\n{conn}\r\n{answer}",
            answer.len()
        );
        if r.get_mut().write_all(resp.as_bytes()).await.is_err() || close {
            return;
        }
    }
}

fn scenario(target: &str, model: serde_json::Value, extra: serde_json::Value) -> String {
    scenario_at(target, "/x", model, extra)
}

/// One GET step to `path` (which may hold placeholders, e.g. `/x/{i}` to tell requests apart).
fn scenario_at(
    target: &str,
    path: &str,
    model: serde_json::Value,
    extra: serde_json::Value,
) -> String {
    let mut v = serde_json::json!({
        "target": target,
        "model": model,
        "steps": [{"name": "get", "method": "GET", "path": path, "expect": [200]}],
    });
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v.to_string()
}

/// A run and the instants around it: `before` is taken just before the engine's own t0, so
/// something due at offset x from t0 is due no earlier than `before + x`; `after` is no earlier
/// than anything the engine did.
struct Timed {
    doc: ResultDoc,
    before: Instant,
    after: Instant,
}

impl Timed {
    fn wall(&self) -> Duration {
        self.after - self.before
    }
}

async fn run_timed(text: &str) -> Timed {
    let prepared = run::prepare(text).unwrap();
    let before = Instant::now();
    let doc = tokio::time::timeout(RUN_LIMIT, run::execute(prepared))
        .await
        .unwrap_or_else(|_| panic!("the run did not end within {RUN_LIMIT:?}"));
    Timed {
        doc,
        before,
        after: Instant::now(),
    }
}

async fn run_json(text: &str) -> ResultDoc {
    run_timed(text).await.doc
}

fn ms(x: u64) -> Duration {
    Duration::from_millis(x)
}

/// When the server received each request `/x/{n}`, indexed by n (each n exactly once, 0..count).
fn received_by_number(srv: &TestServer, count: usize) -> Vec<Instant> {
    by_number(srv.requests(), count)
}

/// The same for the requests received from `since` on (a measurement after its warm-up, whose
/// numbers start again at 0).
fn received_by_number_since(srv: &TestServer, count: usize, since: Instant) -> Vec<Instant> {
    by_number(
        srv.requests()
            .into_iter()
            .filter(|r| r.0 >= since)
            .collect(),
        count,
    )
}

fn by_number(requests: Vec<(Instant, String)>, count: usize) -> Vec<Instant> {
    let mut at: Vec<Option<Instant>> = vec![None; count];
    for (t, path) in requests {
        let n: usize = path
            .strip_prefix("/x/")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("unexpected path {path}"));
        assert!(n < count, "request {path} beyond {count}");
        assert!(at[n].replace(t).is_none(), "request {path} twice");
    }
    at.into_iter()
        .enumerate()
        .map(|(n, t)| t.unwrap_or_else(|| panic!("no request /x/{n}")))
        .collect()
}

/// Checks that request n arrived no earlier than `before + due[n]`, and all of them by the last
/// due time + `LATE`.
fn assert_on_schedule(received: &[Instant], before: Instant, due: &[Duration]) {
    assert_eq!(received.len(), due.len());
    let last_due = *due.iter().max().unwrap();
    for (n, (r, d)) in received.iter().zip(due).enumerate() {
        let at = r.saturating_duration_since(before);
        assert!(
            at >= *d,
            "request {n} at {at:?}, before it was due at {d:?}"
        );
        assert!(
            at <= last_due + LATE,
            "request {n} at {at:?}: the schedule ends at {last_due:?} (+{LATE:?} allowed)"
        );
    }
}

// ---- The pure scheduling logic, exactly ----

fn open_model(rate: Option<f64>, duration_s: Option<f64>, iterations: Option<u64>) -> Open {
    Open {
        connections: None,
        stop_when_late: None,
        rate,
        duration_s,
        iterations,
        max_in_flight: 1000,
        stages: None,
        batch_us: 0,
    }
}

/// The arrival offsets in seconds, with the rate of each arrival's stage.
fn offsets(m: &Open) -> Vec<(f64, f64)> {
    Schedule::of(m)
        .arrivals()
        .map(|(d, rate)| (d.as_secs_f64(), rate))
        .collect()
}

/// Offsets are computed in floating point: equal up to a nanosecond of rounding.
fn assert_offsets(got: &[(f64, f64)], want: &[(f64, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g.0 - w.0).abs() < 1e-9 && g.1 == w.1,
            "arrival {k}: {g:?}, want {w:?}"
        );
    }
}

#[test]
fn open_schedule_arrival_k_is_due_at_k_over_rate() {
    let want: Vec<(f64, f64)> = (0..50).map(|k| (k as f64 / 100.0, 100.0)).collect();
    assert_offsets(&offsets(&open_model(Some(100.0), Some(0.5), None)), &want);
    // k/rate == duration is outside the stage: 10/s over 0.5 s is 5 arrivals, the last at 0.4 s.
    let want: Vec<(f64, f64)> = (0..5).map(|k| (k as f64 / 10.0, 10.0)).collect();
    assert_offsets(&offsets(&open_model(Some(10.0), Some(0.5), None)), &want);
    // 2/s × 25 s = 50 arrivals (the honours report), despite rounding; 3/s × 1 s = 3.
    let a = offsets(&open_model(Some(2.0), Some(25.0), None));
    assert_eq!(a.len(), 50);
    assert!((a[49].0 - 24.5).abs() < 1e-9, "{:?}", a[49]);
    let want = [(0.0, 3.0), (1.0 / 3.0, 3.0), (2.0 / 3.0, 3.0)];
    assert_offsets(&offsets(&open_model(Some(3.0), Some(1.0), None)), &want);
}

#[test]
fn open_schedule_stages_follow_each_other() {
    let mut m = open_model(None, None, None);
    m.stages = Some(vec![
        Stage {
            rate: 20.0,
            duration_s: 0.25,
        },
        Stage {
            rate: 100.0,
            duration_s: 0.1,
        },
    ]);
    let mut want: Vec<(f64, f64)> = (0..5).map(|k| (k as f64 * 0.05, 20.0)).collect();
    want.extend((0..10).map(|k| (0.25 + k as f64 * 0.01, 100.0)));
    assert_offsets(&offsets(&m), &want);
    // The iteration cap counts across stages.
    m.iterations = Some(7);
    assert_offsets(&offsets(&m), &want[..7]);
}

#[test]
fn open_schedule_iteration_cap() {
    // Alone with a rate: N arrivals over N/λ s ("50 requests at 2/s").
    let want: Vec<(f64, f64)> = (0..7).map(|k| (k as f64 / 200.0, 200.0)).collect();
    assert_offsets(&offsets(&open_model(Some(200.0), None, Some(7))), &want);
    let a = offsets(&open_model(Some(2.0), None, Some(50)));
    assert_eq!(a.len(), 50);
    assert!((a[49].0 - 24.5).abs() < 1e-9, "{:?}", a[49]);
    // With a duration too: whichever ends first.
    assert_offsets(
        &offsets(&open_model(Some(200.0), Some(1.0), Some(7))),
        &want,
    );
    assert_eq!(
        offsets(&open_model(Some(10.0), Some(0.5), Some(50))).len(),
        5
    );
}

#[test]
fn closed_ramp_start_offsets_are_u_over_rate() {
    for u in 0..5 {
        let got = start_offset(u, Some(10.0)).as_secs_f64();
        assert!((got - u as f64 / 10.0).abs() < 1e-9, "user {u}: {got}");
        let got = start_offset(u, Some(3.0)).as_secs_f64();
        assert!((got - u as f64 / 3.0).abs() < 1e-9, "user {u}: {got}");
        // No ramp, or 0: all at once.
        assert_eq!(start_offset(u, None), Duration::ZERO);
        assert_eq!(start_offset(u, Some(0.0)), Duration::ZERO);
    }
    assert_eq!(start_offset(250, Some(100.0)), Duration::from_millis(2500));
}

#[test]
fn think_draws_stay_within_bounds_and_cover_them() {
    let mut rng = SplitMix64::new(42);
    // A fixed think, and a reversed range (refused by validation) never leave `lo`.
    assert!((0..100).all(|_| rng.between(7, 7) == 7));
    assert!((0..100).all(|_| rng.between(9, 3) == 9));
    assert_eq!(rng.between(0, 0), 0);
    // Inclusive at both ends, and about uniform: 10,000 draws over 10 values.
    let mut counts = [0u32; 10];
    for _ in 0..10_000 {
        let x = rng.between(100, 109);
        assert!((100..=109).contains(&x), "{x}");
        counts[(x - 100) as usize] += 1;
    }
    assert!(
        counts.iter().all(|c| (900..=1100).contains(c)),
        "{counts:?}"
    );
    // The closed model's users: each has its own reproducible sequence.
    let draws = |u: u64| -> Vec<u64> {
        let mut r = think_rng(u);
        (0..50).map(|_| r.between(10, 90)).collect()
    };
    assert_eq!(draws(3), draws(3));
    assert_ne!(draws(0), draws(1));
    for u in 0..4 {
        let d = draws(u);
        assert!(d.iter().all(|x| (10..=90).contains(x)), "{d:?}");
        let (lo, hi) = (d.iter().min().unwrap(), d.iter().max().unwrap());
        assert!(hi - lo >= 60, "user {u} draws from the whole range: {d:?}");
    }
}

// ---- Real runs ----

#[tokio::test]
async fn closed_think_time_and_iterations_per_user() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{user}",
        serde_json::json!({"kind": "closed", "users": 2, "think_ms": [300, 300], "iterations_per_user": 3}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.completed, 6);
    assert_eq!(d.requests.total, 6);
    assert_eq!(d.requests.ok, 6);
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 6);
    assert_eq!(srv.conns(), 2, "keep-alive: one connection per user");
    // Each user: three requests with a think of at least 300 ms between them, and no longer than
    // 300 ms + LATE.
    for user in ["/x/0", "/x/1"] {
        let t: Vec<Instant> = reqs.iter().filter(|r| r.1 == user).map(|r| r.0).collect();
        assert_eq!(t.len(), 3, "{user}");
        for w in t.windows(2) {
            let gap = w[1] - w[0];
            assert!(gap >= ms(300) && gap <= ms(300) + LATE, "{user}: {gap:?}");
        }
    }
    // No think after the last iteration: the run ends right after the last answer. From the
    // engine's start to the first request and from the last request to the end is nothing but
    // connects and answers; a think after the last iteration would add 300 ms.
    let first = reqs.iter().map(|r| r.0).min().unwrap();
    let last = reqs.iter().map(|r| r.0).max().unwrap();
    let outside = Duration::from_secs_f64(d.elapsed_s).saturating_sub(last - first);
    assert!(d.elapsed_s >= 0.6, "two thinks of 300 ms: {}", d.elapsed_s);
    assert!(
        outside < LATE,
        "the run went on {outside:?} beyond its requests (elapsed {})",
        d.elapsed_s
    );
}

#[tokio::test]
async fn closed_think_range_is_drawn_per_iteration() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 1, "think_ms": [10, 90], "iterations_per_user": 12}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.completed, 12);
    // User 0's think draws, known in advance: the gap between two requests is at least the think
    // drawn between them (so the drawn value, not the minimum, is slept), and all the gaps
    // together exceed the draws by less than LATE (so not the maximum, nor anything longer: with
    // the maximum every time the run would be ~400 ms longer).
    let mut rng = think_rng(0);
    let draws: Vec<Duration> = (0..11).map(|_| ms(rng.between(10, 90))).collect();
    let times: Vec<Instant> = srv.requests().iter().map(|r| r.0).collect();
    assert_eq!(times.len(), 12);
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    for (k, (g, t)) in gaps.iter().zip(&draws).enumerate() {
        assert!(g >= t, "gap {k} is {g:?}, the think drawn {t:?}: {gaps:?}");
    }
    let (sum_gaps, sum_draws) = (
        gaps.iter().sum::<Duration>(),
        draws.iter().sum::<Duration>(),
    );
    assert!(
        sum_gaps < sum_draws + LATE,
        "gaps {sum_gaps:?} for thinks of {sum_draws:?}: {gaps:?} for {draws:?}"
    );
    assert!(ms(90) * 11 > sum_draws + LATE + ms(100), "{draws:?}");
}

#[tokio::test]
async fn closed_ramp_starts_users_at_the_given_rate() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{user}",
        serde_json::json!({"kind": "closed", "users": 5, "ramp_per_s": 10, "iterations_per_user": 1}),
        serde_json::json!({}),
    );
    let r = run_timed(&text).await;
    assert_eq!(r.doc.iterations.completed, 5);
    // User u sends no earlier than u/10 s, and all have started by 0.4 s + LATE (at half the rate,
    // the last would start at 0.8 s).
    let due: Vec<Duration> = (0..5).map(|u| ms(100 * u)).collect();
    assert_on_schedule(&received_by_number(&srv, 5), r.before, &due);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_duration_ends_the_run_and_cancels_in_flight() {
    let srv = TestServer::start(Behavior {
        delay: ms(100),
        ..Default::default()
    });
    // max_duration_s only keeps an engine that ignores duration_s from running 600 s.
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 3, "duration_s": 0.6}),
        serde_json::json!({"max_duration_s": 3}),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    // The window is exactly the duration, and the run really stops then.
    assert!((d.elapsed_s - 0.6).abs() < 1e-6, "elapsed {}", d.elapsed_s);
    assert!(
        r.wall() >= ms(600) && r.wall() <= ms(600) + LATE,
        "the run took {:?}",
        r.wall()
    );
    // Iterations of at least 100 ms each: at most 5 per user complete inside 0.6 s (a 6th would
    // end at 0.6 s or later, outside). At least 3 per user: the users loop, side by side.
    assert!(
        d.iterations.completed >= 9 && d.iterations.completed <= 15,
        "{:?}",
        d.iterations
    );
    assert_eq!(
        d.iterations.cancelled, 3,
        "each user was waiting for an answer at the end"
    );
    assert_eq!(
        d.iterations.started,
        d.iterations.completed + d.iterations.cancelled
    );
    assert_eq!(
        d.requests.total, d.iterations.completed,
        "cut requests are not samples"
    );
    assert!(d.all.latency_us.p50 >= 100_000);
    assert_eq!(d.series.len(), 1);
    assert_eq!(d.series[0].completed, d.requests.total);
}

#[tokio::test]
async fn open_arrivals_follow_the_schedule() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "rate": 100, "duration_s": 0.5}),
        serde_json::json!({}),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    assert_eq!(d.iterations.started, 50);
    assert_eq!(d.iterations.completed, 50);
    assert_eq!(d.iterations.dropped, 0);
    // Arrival k is never sent before k/100 s, and all are sent by 0.49 s + LATE (at half the
    // rate, arrival 49 would be due at 0.98 s).
    let due: Vec<Duration> = (0..50).map(|k| ms(10 * k)).collect();
    assert_on_schedule(&received_by_number(&srv, 50), r.before, &due);
    // 50 arrivals over a window of at least the schedule's 0.5 s, at most 0.5 s + LATE.
    let rate = d.achieved_arrival_rate.unwrap();
    assert!(
        rate <= 100.0 && rate >= 50.0 / (0.5 + LATE.as_secs_f64()),
        "achieved {rate}"
    );
}

#[test]
fn open_batch_wakes_for_an_arrival_or_a_batch_after_the_last_wake() {
    let t0 = Instant::now();
    let at = |us: u64| t0 + Duration::from_micros(us);
    // (intended, last wake, batch) → wake, all in µs from t0.
    let cases = [
        (500, 0, 0, 500),   // no batch: every arrival at its instant
        (500, 0, 200, 500), // due after the batch: at its instant
        (100, 0, 200, 200), // due within the batch: with the batch, 100 µs late
        (200, 0, 200, 200), // due at the batch's end: on time
        (1000, 900, 200, 1100),
    ];
    for (intended, last, batch, want) in cases {
        assert_eq!(
            open::wake_at(at(intended), at(last), Duration::from_micros(batch)),
            at(want),
            "intended {intended}, last wake {last}, batch {batch}"
        );
    }
}

#[tokio::test]
async fn open_batch_sends_arrivals_together_and_charges_the_wait() {
    // 1,000 arrivals a second with a 10 ms batch (the most allowed): the sender wakes at most
    // every 10 ms and sends every arrival due by then, so within a batch the arrivals were due
    // 10, 9, …, 1 ms before it was sent (4.5 ms on average); none is sent before it is due, and
    // each one's latency counts from when it was due: the wait is in it.
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "rate": 1000, "duration_s": 0.1, "batch_us": 10_000}),
        serde_json::json!({}),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    assert_eq!(d.iterations.completed, 100);
    let due: Vec<Duration> = (0..100).map(ms).collect();
    assert_on_schedule(&received_by_number(&srv, 100), r.before, &due);
    let lag = d.arrival_lag_us.as_ref().unwrap();
    assert!(lag.mean >= 4_000.0, "{lag:?}");
    assert!(d.all.latency_us.mean >= lag.mean, "{:?}", d.all.latency_us);
}

#[tokio::test]
async fn open_stages_and_iteration_cap() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "stages": [{"rate": 20, "duration_s": 0.25}, {"rate": 100, "duration_s": 0.1}]}),
        serde_json::json!({}),
    );
    let r = run_timed(&text).await;
    assert_eq!(r.doc.iterations.started, 5 + 10);
    let mut due: Vec<Duration> = (0..5).map(|k| ms(50 * k)).collect();
    due.extend((0..10).map(|k| ms(250 + 10 * k)));
    assert_on_schedule(&received_by_number(&srv, 15), r.before, &due);
    // Open: the run ends with the last answer after the last arrival (due at 0.34 s).
    let elapsed = Duration::from_secs_f64(r.doc.elapsed_s);
    assert!(
        elapsed >= ms(340) && elapsed <= ms(340) + LATE,
        "{elapsed:?}"
    );

    srv.log.lock().unwrap().clear();
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "rate": 200, "iterations": 7}),
        serde_json::json!({}),
    );
    let r = run_timed(&text).await;
    assert_eq!(r.doc.iterations.started, 7);
    let due: Vec<Duration> = (0..7).map(|k| ms(5 * k)).collect();
    assert_on_schedule(&received_by_number(&srv, 7), r.before, &due);
    let elapsed = Duration::from_secs_f64(r.doc.elapsed_s);
    assert!(
        elapsed >= ms(30) && elapsed <= ms(30) + LATE,
        "7 arrivals at 200/s take 30 ms, got {elapsed:?}"
    );
}

#[tokio::test]
async fn open_latency_counts_from_the_intended_start_under_a_slow_server() {
    // The server answers one request at a time, 100 ms each; arrivals come every 50 ms, so
    // arrival k waits for all before it: its answer comes at least 100(k+1) ms after the first
    // request reached the server, while it was due 50k ms after t0 (which is no later). Its
    // latency is then at least 100 + 50k ms: 100 ms for the first, 550 ms for the last.
    let srv = TestServer::start(Behavior {
        delay: ms(100),
        serial: true,
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 20, "duration_s": 0.5}),
        serde_json::json!({"keep_alive": false}),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    assert_eq!(d.requests.ok, 10);
    let l = &d.all.latency_us;
    assert!(l.min >= 100_000, "{l:?}");
    assert!(l.max >= 550_000, "{l:?}");
    // The mean of 100 + 50k ms over k = 0..9 is 325 ms (less 0.1% of histogram resolution).
    assert!(l.mean >= 324_000.0, "{l:?}");
    // The honours report's first and last response times: arrival 0 and arrival 9.
    let [first, last] = d.first_last_us.expect("iterations completed");
    assert!(first >= 100_000, "first {first}");
    assert!(last >= 550_000, "last {last}");
    // Within the run: the last arrival waited behind the queue, the first did not.
    assert!(last > 2 * first, "first {first}, last {last}");
    // Taken from its intended start (t0 + 0.45 s), not from t0 or earlier: the last answer came
    // before the run returned, so its latency is at most the run's wall time less 0.45 s.
    let bound = r.wall().saturating_sub(ms(450)).as_micros() as u64;
    assert!(last <= bound, "last {last} µs, at most {bound} µs");
}

#[tokio::test]
async fn open_latency_includes_a_stalled_generator() {
    // The engine's own thread is blocked for 200 ms: arrivals due meanwhile are sent late, and
    // that lateness is in their latency (what coordinated omission would hide).
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 100, "duration_s": 0.5}),
        serde_json::json!({}),
    );
    let stall = tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        std::thread::sleep(Duration::from_millis(200));
    });
    let d = run_json(&text).await;
    stall.await.unwrap();
    assert_eq!(d.requests.ok, 50);
    let l = &d.all.latency_us;
    assert!(
        l.max >= 190_000,
        "the first arrival due in the stall waited ~200 ms: {l:?}"
    );
    assert!(d.all.latency_us.p90 >= 50_000, "{l:?}");
    let lag = d.arrival_lag_us.unwrap();
    assert!(lag.max >= 190_000, "{lag:?}");
}

#[tokio::test]
async fn open_drops_arrivals_beyond_max_in_flight() {
    // The first 5 arrivals (0–40 ms) are answered after 300 ms, so the 15 others (50–190 ms)
    // all find 5 in flight.
    let srv = TestServer::start(Behavior {
        delay: ms(300),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 100, "duration_s": 0.2, "max_in_flight": 5}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.started, 5);
    assert_eq!(d.iterations.dropped, 15);
    assert_eq!(d.iterations.completed, 5);
    assert_eq!(srv.requests().len(), 5);
    // 5 arrivals sent over the schedule's 0.2 s (up to 0.2 s + LATE if the scheduler was late):
    // dropped arrivals do not count as sent.
    let rate = d.achieved_arrival_rate.unwrap();
    assert!(
        rate <= 25.0 && rate >= 5.0 / (0.2 + LATE.as_secs_f64()),
        "5 arrivals sent over 0.2 s: {rate}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_runs_exactly_n_iterations_over_c_workers() {
    let srv = TestServer::start(Behavior::default());
    let mut v: serde_json::Value = serde_json::from_str(&scenario(
        &srv.target(),
        serde_json::json!({"kind": "fixed", "requests": 37, "concurrency": 5}),
        serde_json::json!({}),
    ))
    .unwrap();
    v["steps"] = serde_json::json!([
        {"name": "a", "path": "/a/{user}/{i}"},
        {"name": "b", "method": "POST", "path": "/b", "body": "{\"i\":{i}}"}
    ]);
    let d = run_json(&v.to_string()).await;
    assert_eq!(d.iterations.completed, 37);
    assert_eq!(d.requests.total, 74);
    assert_eq!(d.steps[0].count, 37);
    assert_eq!(d.steps[1].count, 37);
    let reqs = srv.requests();
    assert_eq!(reqs.len(), 74);
    let mut iters: Vec<u64> = reqs
        .iter()
        .filter_map(|(_, p)| p.strip_prefix("/a/"))
        .map(|p| p.split('/').nth(1).unwrap().parse().unwrap())
        .collect();
    iters.sort();
    assert_eq!(
        iters,
        (0..37).collect::<Vec<_>>(),
        "each iteration number exactly once"
    );
    let workers: std::collections::BTreeSet<&str> = reqs
        .iter()
        .filter_map(|(_, p)| p.strip_prefix("/a/"))
        .map(|p| p.split('/').next().unwrap())
        .collect();
    assert_eq!(workers.len(), 5, "{workers:?}");
    assert_eq!(srv.conns(), 5);
}

#[tokio::test]
async fn without_keep_alive_every_request_has_its_own_connection() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "fixed", "requests": 10, "concurrency": 2}),
        serde_json::json!({"keep_alive": false}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.ok, 10);
    assert_eq!(srv.conns(), 10);
}

#[tokio::test]
async fn an_answer_without_the_expected_json_is_a_content_error() {
    let srv = TestServer::start(Behavior {
        echo_json: true,
        ..Default::default()
    });
    let with = |expected: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&scenario_at(
            &srv.target(),
            "/x/{i}",
            serde_json::json!({"kind": "fixed", "requests": 4, "concurrency": 2}),
            serde_json::json!({}),
        ))
        .unwrap();
        v["steps"][0]["expect_json"] = serde_json::json!({ "path": expected });
        v.to_string()
    };
    let d = run_json(&with("/x/{i}")).await;
    assert_eq!((d.requests.ok, d.requests.errors.content), (4, 0));
    let d = run_json(&with("/x/{user}-{i}")).await;
    assert_eq!((d.requests.ok, d.requests.errors.content), (0, 4));
    assert_eq!(d.requests.errors.status, 0, "the status was right");
    assert_eq!(d.steps[0].statuses["200"], 4);
}

#[tokio::test]
async fn errors_are_classified() {
    // Unexpected status: an error, but still a latency sample.
    let srv = TestServer::start(Behavior {
        status: 503,
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "fixed", "requests": 3, "concurrency": 1}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!((d.requests.ok, d.requests.errors.status), (0, 3));
    assert_eq!(d.steps[0].statuses["503"], 3);
    assert_eq!(
        crate::output::decode(&d.steps[0].histogram).unwrap().len(),
        3
    );

    // Timeout: 50 ms against a server that would answer after 2 s.
    let slow = TestServer::start(Behavior {
        delay: ms(2000),
        ..Default::default()
    });
    let text = scenario(
        &slow.target(),
        serde_json::json!({"kind": "fixed", "requests": 2, "concurrency": 2}),
        serde_json::json!({"timeout_ms": 50}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.errors.timeout, 2);
    let elapsed = Duration::from_secs_f64(d.elapsed_s);
    assert!(elapsed >= ms(50) && elapsed <= ms(50) + LATE, "{elapsed:?}");
    assert_eq!(d.all.latency_us.max, 0, "no answer, no latency sample");

    // Connection closed without an answer.
    let rude = TestServer::start(Behavior {
        hang_up: true,
        ..Default::default()
    });
    let text = scenario(
        &rude.target(),
        serde_json::json!({"kind": "fixed", "requests": 3, "concurrency": 1}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.errors.reset, 3, "{:?}", d.requests);

    // Nobody listening.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let text = scenario(
        &format!("http://127.0.0.1:{port}"),
        serde_json::json!({"kind": "fixed", "requests": 2, "concurrency": 1}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.errors.connect, 2);
}

#[tokio::test]
async fn max_duration_bounds_the_run_and_counts_cancelled() {
    // Without the bound, 1000 requests over 4 workers at 2 s each would take 500 s.
    let srv = TestServer::start(Behavior {
        delay: ms(2000),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "fixed", "requests": 1000, "concurrency": 4}),
        serde_json::json!({"max_duration_s": 0.3}),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    assert!((d.elapsed_s - 0.3).abs() < 1e-6, "elapsed {}", d.elapsed_s);
    assert!(
        r.wall() >= ms(300) && r.wall() <= ms(300) + LATE,
        "the run took {:?}",
        r.wall()
    );
    assert_eq!(d.iterations.cancelled, 4);
    assert_eq!(d.iterations.completed, 0);
    assert_eq!(d.requests.total, 0, "cancelled requests are not samples");
}

#[tokio::test]
async fn data_rows_per_user_and_per_iteration() {
    let srv = TestServer::start(Behavior::default());
    let path = std::env::temp_dir().join(format!("loadgen-test-{}.csv", std::process::id()));
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "username;password\nu0;p0\nu1;p1\nu2;p2").unwrap();
    drop(f);
    let csv = path.to_string_lossy().to_string();
    let mk = |rows: &str, model: serde_json::Value| {
        let mut v: serde_json::Value =
            serde_json::from_str(&scenario(&srv.target(), model, serde_json::json!({}))).unwrap();
        v["steps"][0]["path"] = "/{username}/{password}".into();
        v["data"] = serde_json::json!({"csv": csv, "rows": rows});
        v.to_string()
    };
    let d = run_json(&mk(
        "per_user",
        serde_json::json!({"kind": "closed", "users": 4, "iterations_per_user": 2}),
    ))
    .await;
    assert_eq!(d.requests.ok, 8);
    let mut paths: Vec<String> = srv.requests().into_iter().map(|r| r.1).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "/u0/p0", "/u0/p0", "/u0/p0", "/u0/p0", "/u1/p1", "/u1/p1", "/u2/p2", "/u2/p2"
        ]
    );
    srv.log.lock().unwrap().clear();
    let d = run_json(&mk(
        "per_iteration",
        serde_json::json!({"kind": "closed", "users": 1, "iterations_per_user": 5}),
    ))
    .await;
    assert_eq!(d.requests.ok, 5);
    let paths: Vec<String> = srv.requests().into_iter().map(|r| r.1).collect();
    assert_eq!(paths, ["/u0/p0", "/u1/p1", "/u2/p2", "/u0/p0", "/u1/p1"]);
    let _ = std::fs::remove_file(&path);
}

#[tokio::test]
async fn connections_opened_and_held_are_counted() {
    // Four users keep their connections: four opened, four at once. Without keep-alive each of
    // the eight requests opens its own, and at most the four users' are open together.
    let srv = TestServer::start(Behavior::default());
    let model = serde_json::json!({"kind": "closed", "users": 4, "iterations_per_user": 2});
    let kept = run_json(&scenario(
        &srv.target(),
        model.clone(),
        serde_json::json!({}),
    ))
    .await;
    assert_eq!(
        (kept.connections.opened, kept.connections.peak_open),
        (4, 4)
    );
    let fresh = run_json(&scenario(
        &srv.target(),
        model,
        serde_json::json!({"keep_alive": false}),
    ))
    .await;
    assert_eq!(fresh.connections.opened, 8);
    assert!(
        (1..=4).contains(&fresh.connections.peak_open),
        "{:?}",
        fresh.connections
    );
}

#[tokio::test]
async fn a_stall_does_not_grow_a_bounded_pool() {
    // The server stalls once for 20 ms while 5,000 arrivals a second come: about a hundred are in
    // flight at its end. A pool that grows with them opens a connection for each and keeps them
    // all; a bounded one holds its 8, the waits charged to the arrivals that waited.
    let stalled = |model: serde_json::Value| async move {
        let srv = TestServer::start(Behavior {
            stall: Some((Instant::now() + ms(150), ms(20))),
            ..Default::default()
        });
        run_json(&scenario(&srv.target(), model, serde_json::json!({}))).await
    };
    let open = serde_json::json!({"kind": "open", "rate": 5000, "duration_s": 0.4});
    let grown = stalled(open.clone()).await;
    assert!(grown.connections.opened > 30, "{:?}", grown.connections);
    let mut bounded = open;
    bounded["connections"] = serde_json::json!(8);
    let held = stalled(bounded).await;
    assert_eq!(held.iterations.completed, 2000);
    assert!(held.connections.opened <= 8, "{:?}", held.connections);
    assert!(
        held.all.latency_us.max >= 20_000,
        "{:?}",
        held.all.latency_us
    );
}

#[tokio::test]
async fn a_window_ends_once_its_late_requests_decide_it() {
    // Every answer comes 100 ms after its arrival, over the 50 ms the run calls late; the eleventh
    // late one, past the bound of ten, ends a window of 3 s about 150 ms in, and the arrivals in
    // flight then are cancelled rather than waited for.
    let srv = TestServer::start(Behavior {
        delay: ms(100),
        ..Default::default()
    });
    let model = serde_json::json!({"kind": "open", "rate": 200, "duration_s": 3.0,
        "stop_when_late": {"ms": 50, "requests": 10}});
    let r = run_timed(&scenario(&srv.target(), model, serde_json::json!({}))).await;
    let d = &r.doc;
    let stopped = d.stopped_at_s.expect("stopped");
    assert!(
        stopped >= 0.15 && stopped < 0.15 + LATE.as_secs_f64(),
        "{stopped}"
    );
    assert_eq!(d.elapsed_s, stopped);
    assert!(
        d.requests.total >= 11 && d.requests.total < 200,
        "{:?}",
        d.requests
    );
    assert!(d.iterations.cancelled > 0, "{:?}", d.iterations);
    assert!(srv.requests().len() < 200, "sent after the stop");
    assert!(r.wall() < Duration::from_secs(1), "{:?}", r.wall());
}

#[tokio::test]
async fn a_window_within_its_bound_runs_its_whole_schedule() {
    let srv = TestServer::start(Behavior::default());
    let model = serde_json::json!({"kind": "open", "rate": 200, "duration_s": 0.5,
        "stop_when_late": {"ms": 1000, "requests": 0}});
    let d = run_json(&scenario(&srv.target(), model, serde_json::json!({}))).await;
    assert_eq!(d.stopped_at_s, None);
    assert_eq!(d.requests.ok, 100);
}

#[tokio::test]
async fn arrivals_dropped_at_the_cap_count_as_late() {
    // The first 5 arrivals are answered after 300 ms, within the 10 s that is late: the arrivals
    // after them are dropped at `max_in_flight`, and the eleventh drop (arrival 15, due at 150 ms)
    // ends the window before any answer came.
    let srv = TestServer::start(Behavior {
        delay: ms(300),
        ..Default::default()
    });
    let model = serde_json::json!({"kind": "open", "rate": 100, "duration_s": 2.0,
        "max_in_flight": 5, "stop_when_late": {"ms": 10000, "requests": 10}});
    let d = run_json(&scenario(&srv.target(), model, serde_json::json!({}))).await;
    let stopped = d.stopped_at_s.expect("stopped");
    assert!((0.15..0.3).contains(&stopped), "{stopped}");
    assert_eq!((d.iterations.dropped, d.requests.total), (11, 0));
}

// ---- Warm-up until steady ----
//
// The bands are wider than the defaults: the server is steady, but a busy test machine need not
// be, and the rule itself is tested exactly in `crate::steady`.

fn warmup_rule(slice_s: f64, max_s: f64) -> serde_json::Value {
    serde_json::json!({"warmup": {"slice_s": slice_s, "max_s": max_s, "rps_tolerance": 0.3,
                                  "p50_tolerance": 0.5, "floor_ms": 5}})
}

/// When the measurement window opened, no later than the engine's own instant.
fn measured_from(r: &Timed) -> Instant {
    let w = r.doc.warmup.as_ref().expect("a warm-up");
    r.before + Duration::from_secs_f64(w.measured_from_s)
}

#[tokio::test]
async fn closed_warmup_of_a_steady_server_ends_after_one_window() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 4, "think_ms": [10, 10], "duration_s": 0.3}),
        warmup_rule(0.2, 2.0),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    let w = d.warmup.as_ref().expect("a warm-up");
    assert_eq!(w.steady_at, Some(0), "{:?}", w.slices);
    assert_eq!(w.slices.len(), 3);
    let t: Vec<f64> = w.slices.iter().map(|s| s.t_s).collect();
    assert_eq!(t, [0.0, 0.2, 0.4]);
    assert!(
        w.slices
            .iter()
            .all(|s| s.error_ratio == 0.0 && s.ok_rps > 0.0)
    );
    // Decided once the third slice had ended; the users went on without a pause.
    assert!(w.seconds >= 0.6, "{}", w.seconds);
    assert_eq!(w.measured_from_s, w.seconds);
    assert!((d.elapsed_s - 0.3).abs() < 1e-6, "elapsed {}", d.elapsed_s);
    // The window holds at most what 4 users thinking 10 ms can do in 0.3 s (31 iterations each),
    // well below the 0.9 s the server saw: the warm-up's 0.6 s are not in it.
    assert!(
        d.requests.ok > 0 && d.requests.ok <= 4 * 31,
        "{:?}",
        d.requests
    );
    assert!(
        d.iterations.started <= 4 * 31,
        "iterations started in the warm-up are not counted: {:?}",
        d.iterations
    );
    assert_eq!(
        d.iterations.started,
        d.iterations.completed + d.iterations.cancelled
    );
    let sent = srv.requests().len() as u64;
    assert!(
        sent > d.requests.total + 4 * 31,
        "{sent} sent, {:?}",
        d.requests
    );
    assert!(
        r.wall() >= ms(900) && r.wall() <= ms(900) + LATE,
        "the run took {:?}",
        r.wall()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_warmup_in_fresh_batches_then_exactly_n_fresh_iterations() {
    let srv = TestServer::start(Behavior {
        delay: ms(5),
        ..Default::default()
    });
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "fixed", "requests": 50, "concurrency": 2}),
        warmup_rule(0.2, 2.0),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    let w = d.warmup.as_ref().expect("a warm-up");
    assert_eq!(w.steady_at, Some(0), "{:?}", w.slices);
    // The workers finished their iterations before the window opened.
    assert!(w.measured_from_s >= w.seconds);
    assert_eq!(d.iterations.started, 50);
    assert_eq!(d.iterations.completed, 50);
    assert_eq!(d.requests.total, 50);
    // The measurement is a fresh run: iterations 0..49 once each, all sent after the window
    // opened; the warm-up sent its own before.
    let measured = received_by_number_since(&srv, 50, measured_from(&r));
    assert_eq!(measured.len(), 50);
    // A slice a batch: the first of 10 iterations a worker (at 5 ms each, two workers, 50 ms),
    // the later ones sized to last about 0.2 s.
    assert_eq!(w.slices.len(), 3, "{:?}", w.slices);
    assert!(w.slices.windows(2).all(|p| p[0].t_s < p[1].t_s));
    assert!(
        srv.requests().len() >= 50 + 20 + 2 * 2,
        "{}",
        srv.requests().len()
    );
    // Every batch starts its two workers on fresh connections, and so does the measurement.
    assert_eq!(srv.conns(), 2 * (3 + 1));
}

#[tokio::test]
async fn open_warmup_then_the_whole_schedule_from_the_switch() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "rate": 200, "iterations": 40}),
        warmup_rule(0.1, 1.0),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    let w = d.warmup.as_ref().expect("a warm-up");
    assert_eq!(w.steady_at, Some(0), "{:?}", w.slices);
    // The first stage's rate: 20 arrivals in each slice of 0.1 s.
    assert!(w.slices.iter().all(|s| s.ok_rps > 100.0), "{:?}", w.slices);
    assert!(w.measured_from_s >= w.seconds);
    // The warm-up has no iteration cap: three slices of 20 arrivals, past the model's 40.
    assert!(srv.requests().len() >= 60 + 40, "{}", srv.requests().len());
    // Exactly the schedule's 40 arrivals, each due 5 ms after the last from the switch.
    assert_eq!(d.iterations.started, 40);
    assert_eq!(d.iterations.completed, 40);
    assert_eq!(d.requests.total, 40);
    let due: Vec<Duration> = (0..40).map(|k| ms(5 * k)).collect();
    let from = measured_from(&r);
    assert_on_schedule(&received_by_number_since(&srv, 40, from), from, &due);
    let rate = d.achieved_arrival_rate.unwrap();
    assert!(
        rate <= 200.0 && rate >= 40.0 / (0.2 + LATE.as_secs_f64()),
        "achieved {rate}"
    );
    let elapsed = Duration::from_secs_f64(d.elapsed_s);
    assert!(
        elapsed >= ms(195) && elapsed <= ms(195) + LATE,
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn open_schedule_starts_on_the_warmup_connections() {
    // Answers take 30 ms and arrivals come every 10 ms: three or four in flight. A fresh pool
    // would open a connection for each of the schedule's first three arrivals (due at 0, 10 and
    // 20 ms, before any answer); the warm-up's pool already holds them.
    let srv = TestServer::start(Behavior {
        delay: ms(30),
        ..Default::default()
    });
    let text = scenario_at(
        &srv.target(),
        "/x/{i}",
        serde_json::json!({"kind": "open", "rate": 100, "iterations": 30}),
        warmup_rule(0.2, 2.0),
    );
    let r = run_timed(&text).await;
    let d = &r.doc;
    assert_eq!(d.iterations.completed, 30);
    let opened = srv.conns_since(measured_from(&r));
    assert!(
        opened < 3,
        "{opened} connections opened by the schedule, {} in all",
        srv.conns()
    );
}

#[tokio::test]
async fn warmup_waits_out_a_slow_start_and_measures_the_fast_server() {
    // Slow (100 ms an answer) for the first 0.6 s: two slices of 0.25 s and part of a third,
    // never a whole window of three, so the first steady window is the fast server's.
    let srv = TestServer::start(Behavior {
        delay: ms(100),
        slow_until: Some(Instant::now() + ms(600)),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 4, "think_ms": [10, 10], "duration_s": 0.3}),
        warmup_rule(0.25, 2.5),
    );
    let d = run_json(&text).await;
    let w = d.warmup.as_ref().expect("a warm-up");
    let steady_at = w.steady_at.expect("steady once fast");
    assert!(steady_at >= 1, "{:?}", w.slices);
    assert!(w.slices[0].p50_ms >= 100.0, "{:?}", w.slices);
    assert!(w.slices[steady_at].p50_ms < 50.0, "{:?}", w.slices);
    assert!(w.seconds >= 0.25 * (steady_at + 3) as f64, "{}", w.seconds);
    assert!(d.requests.ok > 0);
    assert!(d.all.latency_us.p50 < 50_000, "{:?}", d.all.latency_us);
}

#[tokio::test]
async fn warmup_of_a_server_that_never_settles_ends_at_max_s() {
    // Every answer twice as slow as 0.1 s before: no two slices agree.
    let srv = TestServer::start(Behavior {
        doubling: Some((Instant::now(), ms(100))),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 4, "duration_s": 0.3}),
        warmup_rule(0.1, 0.55),
    );
    let d = run_json(&text).await;
    let w = d.warmup.as_ref().expect("a warm-up");
    assert_eq!(w.steady_at, None, "{:?}", w.slices);
    // Five slices fit in 0.55 s; a sixth would end at 0.6 s.
    assert_eq!(w.slices.len(), 5, "{:?}", w.slices);
    assert!(w.seconds >= 0.5, "{}", w.seconds);
    // Measured all the same.
    assert!((d.elapsed_s - 0.3).abs() < 1e-6, "elapsed {}", d.elapsed_s);
    assert!(d.requests.ok > 0, "{:?}", d.requests);
}

#[test]
fn unknown_placeholder_is_an_input_error() {
    let text = scenario(
        "http://127.0.0.1:9",
        serde_json::json!({"kind": "fixed", "requests": 1, "concurrency": 1}),
        serde_json::json!({}),
    )
    .replace("/x", "/x/{username}");
    let e = run::prepare(&text).err().unwrap();
    assert!(e.0.contains("unknown placeholder {username}"), "{}", e.0);
    let e = run::prepare(&text.replace("127.0.0.1", "10.1.2.3"))
        .err()
        .unwrap();
    assert!(e.0.contains(crate::scenario::LOOPBACK_ONLY), "{}", e.0);
}

#[tokio::test]
async fn warmup_gives_up_on_a_load_beyond_its_bound_and_measures_nothing() {
    // Every answer takes 40 ms, four times the bound: the first window of three slices says so,
    // and each model ends there rather than after its 2 s or its 400 requests. A fixed count's
    // slices are its batches, of 10 requests a worker (0.4 s) here.
    let srv = TestServer::start(Behavior {
        delay: ms(40),
        ..Default::default()
    });
    let models = [
        (
            serde_json::json!({"kind": "open", "rate": 200, "duration_s": 2}),
            ms(300),
        ),
        (
            serde_json::json!({"kind": "closed", "users": 4, "duration_s": 2}),
            ms(300),
        ),
        (
            serde_json::json!({"kind": "fixed", "requests": 400, "concurrency": 4}),
            ms(1200),
        ),
    ];
    for (model, takes) in models {
        let mut rule = warmup_rule(0.1, 3.0);
        rule["warmup"]["give_up_p50_ms"] = 10.into();
        let r = run_timed(&scenario(&srv.target(), model.clone(), rule)).await;
        let d = &r.doc;
        let w = d.warmup.as_ref().expect("a warm-up");
        assert!(w.gave_up, "{model}: {:?}", w.slices);
        assert_eq!(w.steady_at, None, "{model}");
        assert_eq!(w.slices.len(), 3, "{model}: {:?}", w.slices);
        assert!(
            w.slices.iter().all(|s| s.p50_ms >= 40.0),
            "{model}: {:?}",
            w.slices
        );
        assert_eq!(d.requests.total, 0, "{model}: nothing measured");
        assert_eq!(d.elapsed_s, 0.0, "{model}");
        assert!(
            r.wall() <= takes + LATE,
            "{model}: the run took {:?}",
            r.wall()
        );
    }
}
