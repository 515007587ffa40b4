//! Connections and request exchange over hyper's HTTP/1 client connection.
//!
//! The connection future is polled inside the task that sends the request, instead of in a task
//! of its own as hyper's examples do: a request then costs no cross-task wake-up, which matters
//! when one core must out-run the server under test.

use std::future::{Future, poll_fn};
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::Request;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::request::Body;

/// Why a request failed: without a response, or (`Status`, `Content`) with one that is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Connect = 0,
    Timeout = 1,
    Reset = 2,
    /// A response with a status the step does not expect.
    Status = 3,
    Other = 4,
    /// A response with an expected status whose JSON body lacks what the step expects of it.
    Content = 5,
}

/// The number of `ErrorKind`s, for counts indexed by `kind as usize`.
pub const ERROR_KINDS: usize = 6;

/// A response: its status, and its body when the caller asked to keep it.
pub type Answer = (u16, Option<Bytes>);

/// The connections of a run: how many it opened, and the most it held open at once. The load's
/// shape, beside its rate: a server can serve a few kept-alive connections faster than hundreds.
#[derive(Debug, Default)]
pub struct Tally {
    opened: AtomicU64,
    open: AtomicU64,
    peak: AtomicU64,
}

impl Tally {
    /// (opened, the most open at once).
    pub fn counts(&self) -> (u64, u64) {
        (
            self.opened.load(Ordering::Relaxed),
            self.peak.load(Ordering::Relaxed),
        )
    }

    fn hold(tally: &Arc<Tally>) -> Held {
        tally.opened.fetch_add(1, Ordering::Relaxed);
        let now = tally.open.fetch_add(1, Ordering::Relaxed) + 1;
        tally.peak.fetch_max(now, Ordering::Relaxed);
        Held(tally.clone())
    }
}

/// One open connection in its run's tally, until dropped.
struct Held(Arc<Tally>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

pub struct Conn {
    tx: http1::SendRequest<Body>,
    io: http1::Connection<TokioIo<TcpStream>, Body>,
    open: bool,
    _held: Held,
}

impl Conn {
    pub async fn connect(addr: SocketAddr, tally: &Arc<Tally>) -> Result<Conn, ErrorKind> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|_| ErrorKind::Connect)?;
        // Requests are small and answered one at a time; Nagle would only add delay.
        let _ = stream.set_nodelay(true);
        let (tx, io) = http1::Builder::new()
            .handshake(TokioIo::new(stream))
            .await
            .map_err(|_| ErrorKind::Connect)?;
        Ok(Conn {
            tx,
            io,
            open: true,
            _held: Tally::hold(tally),
        })
    }

    /// Whether the connection can take another request. Polls the connection once so that a
    /// close by the server while we were idle (thinking) is noticed before we send.
    async fn usable(&mut self) -> bool {
        if !self.open || self.tx.is_closed() {
            return false;
        }
        let io = &mut self.io;
        let closed = poll_fn(|cx| Poll::Ready(Pin::new(&mut *io).poll(cx).is_ready())).await;
        if closed {
            self.open = false;
        }
        self.open && self.tx.is_ready()
    }

    /// Sends one request, reads the whole response body, returns the status and, when asked
    /// (`keep_body`), the body; otherwise the body is read and dropped frame by frame.
    async fn exchange(&mut self, req: Request<Body>, keep_body: bool) -> Result<Answer, ErrorKind> {
        let Conn { tx, io, open, .. } = self;
        let fut = async move {
            let resp = tx.send_request(req).await.map_err(classify)?;
            let status = resp.status().as_u16();
            let mut body = resp.into_body();
            let mut kept = keep_body.then(BytesMut::new);
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(classify)?;
                if let (Some(kept), Some(data)) = (kept.as_mut(), frame.data_ref()) {
                    kept.extend_from_slice(data);
                }
            }
            Ok((status, kept.map(BytesMut::freeze)))
        };
        let mut fut = pin!(fut);
        poll_fn(|cx| {
            if let Poll::Ready(r) = fut.as_mut().poll(cx) {
                return Poll::Ready(r);
            }
            if *open {
                if Pin::new(&mut *io).poll(cx).is_ready() {
                    *open = false;
                }
                if let Poll::Ready(r) = fut.as_mut().poll(cx) {
                    return Poll::Ready(r);
                }
                if !*open {
                    // Nothing can drive the exchange any more: the connection ended under it.
                    return Poll::Ready(Err(ErrorKind::Reset));
                }
            } else {
                return Poll::Ready(Err(ErrorKind::Reset));
            }
            Poll::Pending
        })
        .await
    }
}

fn classify(e: hyper::Error) -> ErrorKind {
    use std::error::Error as _;
    if e.is_timeout() {
        return ErrorKind::Timeout;
    }
    if e.is_incomplete_message() || e.is_closed() || e.is_canceled() || e.is_body_write_aborted() {
        return ErrorKind::Reset;
    }
    let mut src = e.source();
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind as K;
            return match io.kind() {
                K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof => {
                    ErrorKind::Reset
                }
                K::TimedOut => ErrorKind::Timeout,
                _ => ErrorKind::Other,
            };
        }
        src = s.source();
    }
    ErrorKind::Other
}

/// One client's connection state: a virtual user's, a worker's, or an arrival's.
pub struct Session {
    addr: SocketAddr,
    keep_alive: bool,
    timeout: Duration,
    conn: Option<Conn>,
    tally: Arc<Tally>,
}

impl Session {
    pub fn new(
        addr: SocketAddr,
        keep_alive: bool,
        timeout: Duration,
        conn: Option<Conn>,
        tally: Arc<Tally>,
    ) -> Session {
        Session {
            addr,
            keep_alive,
            timeout,
            conn,
            tally,
        }
    }

    /// The connection to hand back to a pool, if it can be reused.
    pub fn into_conn(self) -> Option<Conn> {
        if self.keep_alive {
            self.conn.filter(|c| c.open)
        } else {
            None
        }
    }

    /// One request within the timeout, connecting first if needed (the connect time is part of
    /// the request's latency, as for ab without -k).
    pub async fn request(
        &mut self,
        req: Request<Body>,
        keep_body: bool,
    ) -> Result<Answer, ErrorKind> {
        let addr = self.addr;
        let tally = &self.tally;
        let slot = &mut self.conn;
        let work = async move {
            let reuse = match slot.as_mut() {
                Some(c) => c.usable().await,
                None => false,
            };
            if !reuse {
                *slot = None;
                *slot = Some(Conn::connect(addr, tally).await?);
            }
            let Some(conn) = slot.as_mut() else {
                return Err(ErrorKind::Other);
            };
            conn.exchange(req, keep_body).await
        };
        let result = match tokio::time::timeout(self.timeout, work).await {
            Ok(r) => r,
            Err(_) => Err(ErrorKind::Timeout),
        };
        // After an error the connection's state is unknown; without keep-alive it is done.
        if result.is_err() || !self.keep_alive {
            self.conn = None;
        }
        result
    }
}
