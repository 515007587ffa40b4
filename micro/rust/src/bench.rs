//! The five benchmarks. Each runs as a task on the runtime and returns what
//! it measured and what its processes counted.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::process::{Gate, Payload, fail, mailbox, recv, send};
use crate::{Bench, Config};

pub struct Outcome {
    pub elapsed: Duration,
    /// The bench's metric of spec/micro.md's table, also in `metric`.
    pub value: f64,
    pub metric: Value,
    pub check: Value,
}

pub async fn run(c: Config) -> Outcome {
    match c.bench {
        Bench::PingPing => pingping(c).await,
        Bench::PingPong => pingpong(c).await,
        Bench::Spawn => spawn(c).await,
        Bench::Throughput => throughput(c).await,
        Bench::Ring => ring(c).await,
    }
}

fn per_op(elapsed: Duration, n: usize) -> f64 {
    elapsed.as_secs_f64() * 1e6 / n as f64
}

async fn joined<T>(process: JoinHandle<T>) -> T {
    match process.await {
        Ok(value) => value,
        Err(err) => fail(&format!("a process failed: {err}")),
    }
}

/// pingping: this task and one other send each other a message, then receive
/// the other's, R times.
async fn pingping(c: Config) -> Outcome {
    let p = Payload::new(&c);
    let (to_a, inbox_a) = mailbox();
    let (to_b, inbox_b) = mailbox();
    let start = Gate::new();
    let other = tokio::spawn({
        let (p, started) = (p.clone(), start.waiter());
        async move {
            started.await;
            exchange(&p, c.rounds, inbox_b, to_a, "pingping B").await
        }
    });
    let t0 = start.open();
    let mut received = exchange(&p, c.rounds, inbox_a, to_b, "pingping A").await;
    received += joined(other).await;
    let elapsed = t0.elapsed();
    let value = per_op(elapsed, c.rounds);
    Outcome {
        elapsed,
        value,
        metric: json!({"us_per_message": value}),
        check: json!({"received": received}),
    }
}

/// One side of pingping; returns how many messages it received.
async fn exchange(
    p: &Payload,
    rounds: usize,
    mut inbox: mpsc::Receiver<Bytes>,
    to: mpsc::Sender<Bytes>,
    who: &str,
) -> usize {
    let mut received = 0;
    for seq in 0..rounds {
        send(&to, p.message(seq), who).await;
        p.verify(&recv(&mut inbox, who).await, received, who);
        received += 1;
    }
    received
}

/// pingpong: this task sends, an echoing task answers, R times.
async fn pingpong(c: Config) -> Outcome {
    let p = Payload::new(&c);
    let (to_echo, inbox) = mailbox();
    let (to_me, mut replies) = mailbox();
    let echo = tokio::spawn(echo(p.clone(), inbox, to_me, "pingpong echo"));
    let t0 = Instant::now();
    let mut trips = 0;
    for seq in 0..c.rounds {
        send(&to_echo, p.message(seq), "pingpong").await;
        p.verify(&recv(&mut replies, "pingpong").await, trips, "pingpong");
        trips += 1;
    }
    let elapsed = t0.elapsed();
    // Closing its mailbox ends the echo; it is gone before the next run.
    drop(to_echo);
    joined(echo).await;
    let value = per_op(elapsed, c.rounds);
    Outcome {
        elapsed,
        value,
        metric: json!({"us_per_round_trip": value}),
        check: json!({"round_trips": trips}),
    }
}

/// Answers every message until its senders are gone; returns how many it
/// received.
async fn echo(
    p: Payload,
    mut inbox: mpsc::Receiver<Bytes>,
    to: mpsc::Sender<Bytes>,
    who: &'static str,
) -> usize {
    let mut received = 0;
    while let Some(message) = inbox.recv().await {
        p.verify(&message, received, who);
        send(&to, p.message(received), who).await;
        received += 1;
    }
    received
}

/// throughput: P pinger/echo pairs play ping-pong until D seconds have passed.
async fn throughput(c: Config) -> Outcome {
    let p = Payload::new(&c);
    let limit = Duration::from_secs_f64(c.seconds);
    let start = Gate::new();
    let pairs: Vec<JoinHandle<usize>> = (0..c.pairs)
        .map(|_| {
            let (to_echo, inbox) = mailbox();
            let (to_pinger, mut replies) = mailbox();
            let echo = tokio::spawn(echo(p.clone(), inbox, to_pinger, "throughput echo"));
            let (p, started) = (p.clone(), start.waiter());
            tokio::spawn(async move {
                let t0 = started.await;
                let mut received = 0;
                // Stop at the first round trip that ends after the limit.
                for seq in 0.. {
                    send(&to_echo, p.message(seq), "throughput pinger").await;
                    let reply = recv(&mut replies, "throughput pinger").await;
                    p.verify(&reply, received, "throughput pinger");
                    received += 1;
                    if t0.elapsed() >= limit {
                        break;
                    }
                }
                // Closing the echo's mailbox ends it.
                drop(to_echo);
                received + joined(echo).await
            })
        })
        .collect();
    let t0 = start.open();
    let mut per_pair = Vec::with_capacity(c.pairs);
    for pair in pairs {
        per_pair.push(joined(pair).await);
    }
    let elapsed = t0.elapsed();
    let messages: usize = per_pair.iter().sum();
    let value = messages as f64 / elapsed.as_secs_f64();
    Outcome {
        elapsed,
        value,
        metric: json!({"messages_per_s": value}),
        check: json!({"messages": messages, "per_pair": per_pair}),
    }
}

/// spawn: N tasks each send this task a started message and wait for the
/// release.
async fn spawn(c: Config) -> Outcome {
    let before = rss_kb();
    let release = Gate::new();
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let t0 = Instant::now();
    for _ in 0..c.procs {
        let (started_tx, released) = (started_tx.clone(), release.waiter());
        tokio::spawn(async move {
            // Only fails once this task's parent has ended the program.
            let _ = started_tx.send(());
            released.await;
            // The last sender dropped ends the parent's join loop below.
            drop(started_tx);
        });
    }
    drop(started_tx);
    let mut alive = 0;
    while alive < c.procs {
        if started.recv().await.is_none() {
            fail("spawn: a process ended before the release");
        }
        alive += 1;
    }
    let elapsed = t0.elapsed();
    let peak = rss_kb();
    release.open();
    while started.recv().await.is_some() {}
    let value = per_op(elapsed, c.procs);
    Outcome {
        elapsed,
        value,
        metric: json!({
            "us_per_spawn": value,
            "bytes_per_process": peak.saturating_sub(before) as f64 * 1024.0 / c.procs as f64,
            "rss_before_kb": before,
            "rss_peak_kb": peak,
        }),
        check: json!({"alive": alive}),
    }
}

/// VmRSS of /proc/self/status, in kB.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_else(|err| fail(&format!("spawn: /proc/self/status: {err}")));
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| fail("spawn: no VmRSS in /proc/self/status"))
}

/// The ring's message: a hop counter and the S-byte body.
struct Token {
    hops: usize,
    body: Bytes,
}

impl Payload {
    /// Counts the hop that brought the token, after checking its body in copy
    /// mode, and gives it the body of its next hop.
    fn arrive(&self, token: Token, who: &str) -> Token {
        self.verify(&token.body, token.hops, who);
        let hops = token.hops + 1;
        Token {
            hops,
            body: self.message(hops),
        }
    }
}

/// ring: this task and N-1 others, each passing the token to the next, for R
/// laps.
async fn ring(c: Config) -> Outcome {
    let p = Payload::new(&c);
    let (to_me, mut inbox) = mailbox();
    // Built backwards from process N-1, which sends to this one, down to
    // process 1, to which this one sends.
    let mut next = to_me;
    let mut relays = Vec::with_capacity(c.procs - 1);
    for _ in 1..c.procs {
        let (to_relay, relay_inbox) = mailbox();
        relays.push(tokio::spawn(relay(p.clone(), relay_inbox, next)));
        next = to_relay;
    }
    let t0 = Instant::now();
    let mut token = Token {
        hops: 0,
        body: p.message(0),
    };
    let mut laps = 0;
    while laps < c.rounds {
        send(&next, token, "ring").await;
        token = p.arrive(recv(&mut inbox, "ring").await, "ring process 0");
        laps += 1;
    }
    let elapsed = t0.elapsed();
    // The token is back here: dropping the sender to process 1 ends it, which
    // drops its sender to process 2, and so on round the ring.
    drop(next);
    for relay in relays {
        joined(relay).await;
    }
    let value = per_op(elapsed, c.procs * c.rounds);
    Outcome {
        elapsed,
        value,
        metric: json!({"us_per_hop": value}),
        check: json!({"laps": laps, "hops": token.hops}),
    }
}

async fn relay(p: Payload, mut inbox: mpsc::Receiver<Token>, next: mpsc::Sender<Token>) {
    while let Some(token) = inbox.recv().await {
        send(&next, p.arrive(token, "ring relay"), "ring relay").await;
    }
}
