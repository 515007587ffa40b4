//! Scheduling tests of the three models against a tiny HTTP/1.1 server on 127.0.0.1:0.
//!
//! The server runs on its own thread and runtime, so a test that stalls the engine's runtime
//! does not stall the server, and its timestamps are the server's view of the load.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::output::ResultDoc;
use crate::run;

#[derive(Clone, Default)]
struct Behavior {
    delay: Duration,
    status: u16,
    /// One connection at a time, each fully served before the next accept.
    serial: bool,
    /// Read the request, then close without answering.
    hang_up: bool,
}

struct TestServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(Instant, String)>>>,
    conns: Arc<AtomicU64>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    fn start(b: Behavior) -> TestServer {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let conns = Arc::new(AtomicU64::new(0));
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let (log2, conns2) = (log.clone(), conns.clone());
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
                            conns2.fetch_add(1, Ordering::Relaxed);
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
            conns,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn target(&self) -> String {
        format!("http://{}", self.addr)
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
        log.lock().unwrap().push((Instant::now(), path));
        if b.hang_up {
            return;
        }
        if !b.delay.is_zero() {
            tokio::time::sleep(b.delay).await;
        }
        let status = if b.status == 0 { 200 } else { b.status };
        let conn = if close { "Connection: close\r\n" } else { "" };
        let resp = format!("HTTP/1.1 {status} X\r\nContent-Length: 2\r\n{conn}\r\nOK");
        if r.get_mut().write_all(resp.as_bytes()).await.is_err() || close {
            return;
        }
    }
}

fn scenario(target: &str, model: serde_json::Value, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "target": target,
        "model": model,
        "steps": [{"name": "get", "method": "GET", "path": "/x", "expect": [200]}],
    });
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v.to_string()
}

async fn run_json(text: &str) -> ResultDoc {
    run::execute(run::prepare(text).unwrap()).await
}

fn secs(a: Instant, b: Instant) -> f64 {
    b.saturating_duration_since(a).as_secs_f64()
}

#[tokio::test]
async fn closed_think_time_and_iterations_per_user() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 2, "think_ms": [100, 100], "iterations_per_user": 3}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.completed, 6);
    assert_eq!(d.requests.total, 6);
    assert_eq!(d.requests.ok, 6);
    assert_eq!(srv.requests().len(), 6);
    // Three iterations with two thinks between them: at least 200 ms, and no think after the last.
    assert!(
        d.elapsed_s >= 0.2 && d.elapsed_s < 0.3,
        "elapsed {}",
        d.elapsed_s
    );
    assert_eq!(
        srv.conns.load(Ordering::Relaxed),
        2,
        "keep-alive: one connection per user"
    );
}

#[tokio::test]
async fn closed_think_range_is_uniform_within_bounds() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 1, "think_ms": [10, 50], "iterations_per_user": 12}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.completed, 12);
    let times: Vec<Instant> = srv.requests().iter().map(|r| r.0).collect();
    let gaps: Vec<f64> = times
        .windows(2)
        .map(|w| secs(w[0], w[1]) * 1000.0)
        .collect();
    assert!(gaps.iter().all(|g| *g >= 9.5 && *g < 80.0), "{gaps:?}");
    // Not all the same: drawn from the range.
    let (lo, hi) = gaps
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), g| (a.min(*g), b.max(*g)));
    assert!(hi - lo > 5.0, "{gaps:?}");
}

#[tokio::test]
async fn closed_ramp_starts_users_at_the_given_rate() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 4, "ramp_per_s": 10, "iterations_per_user": 1}),
        serde_json::json!({}),
    );
    let t0 = Instant::now();
    let d = run_json(&text).await;
    assert_eq!(d.iterations.completed, 4);
    let times: Vec<f64> = srv.requests().iter().map(|r| secs(t0, r.0)).collect();
    for (i, t) in times.iter().enumerate() {
        let want = i as f64 * 0.1;
        assert!(
            (t - want).abs() < 0.03,
            "user {i} started at {t}, want {want}: {times:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_duration_ends_the_run_and_cancels_in_flight() {
    let srv = TestServer::start(Behavior {
        delay: Duration::from_millis(30),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "closed", "users": 3, "duration_s": 0.5}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert!((d.elapsed_s - 0.5).abs() < 0.02, "elapsed {}", d.elapsed_s);
    // About 16 iterations per user of 30 ms each in 0.5 s.
    assert!(
        d.iterations.completed >= 39 && d.iterations.completed <= 51,
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
    assert!(d.all.latency_us.p50 >= 30_000);
    assert_eq!(d.series.len(), 1);
    assert_eq!(d.series[0].completed, d.requests.total);
}

#[tokio::test]
async fn open_arrivals_follow_the_schedule() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 100, "duration_s": 0.5}),
        serde_json::json!({}),
    );
    let t0 = Instant::now();
    let d = run_json(&text).await;
    assert_eq!(d.iterations.started, 50);
    assert_eq!(d.iterations.dropped, 0);
    let times: Vec<f64> = srv.requests().iter().map(|r| secs(t0, r.0)).collect();
    assert_eq!(times.len(), 50);
    for (k, t) in times.iter().enumerate() {
        // The timer has millisecond granularity; arrivals are never early.
        let want = k as f64 * 0.01;
        assert!(
            *t >= want - 0.0005 && *t < want + 0.006,
            "arrival {k} at {t}, want {want}"
        );
    }
    let rate = d.achieved_arrival_rate.unwrap();
    assert!((rate - 100.0).abs() < 1.0, "achieved {rate}");
}

#[tokio::test]
async fn open_stages_and_iteration_cap() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "stages": [{"rate": 20, "duration_s": 0.25}, {"rate": 100, "duration_s": 0.1}]}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.started, 5 + 10);
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 200, "iterations": 7}),
        serde_json::json!({}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.iterations.started, 7);
    assert!(
        d.elapsed_s < 0.1,
        "7 arrivals at 200/s take 30 ms, got {}",
        d.elapsed_s
    );
}

#[tokio::test]
async fn open_latency_counts_from_the_intended_start_under_a_slow_server() {
    // The server answers one request at a time, 100 ms each; arrivals come every 50 ms, so
    // arrival k waits for all before it: its answer comes ~100(k+1) ms after t0 while it was
    // due at 50k ms.
    let srv = TestServer::start(Behavior {
        delay: Duration::from_millis(100),
        serial: true,
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 20, "duration_s": 0.5}),
        serde_json::json!({"keep_alive": false}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.ok, 10);
    let l = &d.all.latency_us;
    assert!(l.min >= 100_000 && l.min < 130_000, "{l:?}");
    assert!(l.max >= 540_000 && l.max < 650_000, "{l:?}");
    assert!(l.mean >= 300_000.0, "{l:?}");
    // The honours report's first and last response times: arrival 0 and arrival 9.
    let [first, last] = d.first_last_us.expect("iterations completed");
    assert!((100_000..130_000).contains(&first), "first {first}");
    assert!((540_000..650_000).contains(&last), "last {last}");
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
    let srv = TestServer::start(Behavior {
        delay: Duration::from_millis(300),
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
    let rate = d.achieved_arrival_rate.unwrap();
    assert!(
        (rate - 25.0).abs() < 1.0,
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
    assert_eq!(srv.conns.load(Ordering::Relaxed), 5);
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
    assert_eq!(srv.conns.load(Ordering::Relaxed), 10);
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

    // Timeout.
    let slow = TestServer::start(Behavior {
        delay: Duration::from_millis(400),
        ..Default::default()
    });
    let text = scenario(
        &slow.target(),
        serde_json::json!({"kind": "fixed", "requests": 2, "concurrency": 2}),
        serde_json::json!({"timeout_ms": 50}),
    );
    let d = run_json(&text).await;
    assert_eq!(d.requests.errors.timeout, 2);
    assert!(d.elapsed_s < 0.2);
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
    let srv = TestServer::start(Behavior {
        delay: Duration::from_millis(500),
        ..Default::default()
    });
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "fixed", "requests": 1000, "concurrency": 4}),
        serde_json::json!({"max_duration_s": 0.3}),
    );
    let started = Instant::now();
    let d = run_json(&text).await;
    assert!(started.elapsed() < Duration::from_millis(450));
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
async fn warmup_requests_are_excluded() {
    let srv = TestServer::start(Behavior::default());
    let text = scenario(
        &srv.target(),
        serde_json::json!({"kind": "open", "rate": 100, "duration_s": 0.4}),
        serde_json::json!({"warmup_s": 0.2}),
    );
    let d = run_json(&text).await;
    assert_eq!(srv.requests().len(), 40);
    assert!((19..=21).contains(&d.requests.total), "{:?}", d.requests);
    assert_eq!(d.iterations.started, 20);
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
