//! The HTTP/1.1 server: hyper connections from our own accept loop, since
//! `axum::serve` cannot set the connection options below.

use std::future::Future;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::signal::unix::{SignalKind, signal};

use crate::app::{App, router};
use crate::config::Config;

/// A client gets this long to send its request headers, so silent
/// connections do not pile up. Bodies have no timeout: hyper offers none.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long answers in flight may still finish after SIGTERM or SIGINT; a
/// long poll or sort must not hold up the exit.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);
/// Pause after a failed accept (such as running out of file descriptors), so
/// the loop does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves until SIGTERM or SIGINT.
pub async fn serve(config: Config) -> io::Result<()> {
    let stop = stop_signal()?;
    let hello_page = read_hello(&config.data_dir)?;
    // Bind before logging, so the start line means the port is open.
    let listener = TcpListener::bind((config.host.as_str(), config.port)).await?;
    // The database's address only: the URL holds the password.
    let db = config.db.as_ref().map_or("none".to_owned(), |db| {
        format!("{}:{}", db.get_host(), db.get_port())
    });
    println!(
        "rust server on http://{}: worker_threads={} bcrypt_cost={} longpoll={:?} hello_delay={:?} every {} sort_n={} data={} db={db} db_pool={}",
        listener.local_addr()?,
        config.cpus,
        config.bcrypt_cost,
        config.long_poll,
        config.hello_delay,
        config.hello_every,
        config.sort_n,
        config.data_dir.display(),
        config.db_pool,
    );

    let service = TowerToHyperService::new(router(Arc::new(App::new(config, hello_page))));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        // A client may send its request and shut down its sending side while
        // it waits; without this, hyper drops the answer at that early EOF.
        .half_close(true);
    let graceful = GracefulShutdown::new();

    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // As Go's net/http does: answers go out without Nagle's delay.
                    let _ = stream.set_nodelay(true);
                    let connection = http.serve_connection(TokioIo::new(stream), service.clone());
                    // A connection's errors (a malformed request, a client gone)
                    // concern only that connection; hyper has answered what it could.
                    tokio::spawn(graceful.watch(connection));
                }
                Err(err) => {
                    eprintln!("accept: {err}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            () = &mut stop => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    println!("stopped");
    Ok(())
}

fn read_hello(data_dir: &Path) -> io::Result<Bytes> {
    let path = data_dir.join("hello.html");
    match std::fs::read(&path) {
        Ok(page) => Ok(page.into()),
        Err(err) => Err(io::Error::new(
            err.kind(),
            format!("{}: {err}", path.display()),
        )),
    }
}

/// Registers the handlers at once, so a signal that comes during start-up is
/// not lost.
fn stop_signal() -> io::Result<impl Future<Output = ()>> {
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
    })
}
