//! What the processes share: message bodies, mailboxes, the start and
//! release signal, and how they fail.

use std::time::Instant;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};

use crate::{Config, Mode};

/// Ends the program: the contract wants the reason on stderr and a non-zero
/// exit, and a process that just returned would leave its partner waiting.
pub fn fail(reason: &str) -> ! {
    eprintln!("micro: {reason}");
    std::process::exit(1)
}

/// A process's incoming channel. One slot is enough, as no bench has more
/// than one message in flight towards a process, and it lets pingping's two
/// processes send at the same time before either receives.
pub fn mailbox<T>() -> (mpsc::Sender<T>, mpsc::Receiver<T>) {
    mpsc::channel(1)
}

pub async fn send<T>(to: &mpsc::Sender<T>, message: T, who: &str) {
    if to.send(message).await.is_err() {
        fail(&format!("{who}: the receiving process has ended"));
    }
}

pub async fn recv<T>(inbox: &mut mpsc::Receiver<T>, who: &str) -> T {
    match inbox.recv().await {
        Some(message) => message,
        None => fail(&format!("{who}: the sending process has ended")),
    }
}

/// Makes the message bodies of one run (spec/micro.md, payload rule).
#[derive(Clone)]
pub struct Payload {
    size: usize,
    /// The one buffer of idiomatic mode; `None` in copy mode.
    shared: Option<Bytes>,
}

impl Payload {
    pub fn new(c: &Config) -> Self {
        let shared = match c.mode {
            Mode::Idiomatic => Some(Bytes::from(vec![0; c.size])),
            Mode::Copy => None,
        };
        Self {
            size: c.size,
            shared,
        }
    }

    /// The body of a sender's seq-th send: a handle to the shared buffer
    /// (a reference count, no bytes copied), or in copy mode a fresh buffer
    /// filled with seq mod 256.
    pub fn message(&self, seq: usize) -> Bytes {
        match &self.shared {
            Some(shared) => shared.clone(),
            None => Bytes::from(vec![(seq % 256) as u8; self.size]),
        }
    }

    /// In copy mode, fails the run unless `body` is its sender's seq-th.
    pub fn verify(&self, body: &[u8], seq: usize, who: &str) {
        let want = (seq % 256) as u8;
        if self.shared.is_none()
            && (body.len() != self.size
                || body.first() != Some(&want)
                || body.last() != Some(&want))
        {
            fail(&format!(
                "{who}: message {seq} is not {} bytes of {want}",
                self.size
            ));
        }
    }
}

/// A one-time signal to any number of waiting processes, telling them when
/// it was given: the start of a bench, the release of spawn's processes.
pub struct Gate(watch::Sender<Instant>);

impl Gate {
    pub fn new() -> Self {
        Self(watch::Sender::new(Instant::now()))
    }

    /// Waits until the gate opens; returns the moment it did.
    pub fn waiter(&self) -> impl Future<Output = Instant> + Send + 'static {
        let mut opened = self.0.subscribe();
        async move {
            if opened.changed().await.is_err() {
                fail("a bench ended before starting its processes");
            }
            *opened.borrow()
        }
    }

    pub fn open(&self) -> Instant {
        let now = Instant::now();
        self.0.send_replace(now);
        now
    }
}
