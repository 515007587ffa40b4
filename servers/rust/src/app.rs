//! The shared state, the routes, and the two waiting endpoints.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::response::Html;
use axum::routing::{get, post};
use bytes::Bytes;
use sqlx::PgPool;

use crate::config::Config;
use crate::input::{BODY_LIMIT, Reject};
use crate::store::Store;
use crate::{password, record, sort, user};

pub struct App {
    pub config: Config,
    /// hello.html, read once at start-up.
    pub hello_page: Bytes,
    /// `/hello` requests so far, over all worker threads.
    pub hello_count: AtomicU64,
    /// username → bcrypt hash
    pub passwords: Store<String>,
    /// username → the JSON object as sent
    pub users: Store<Bytes>,
    /// `/record`'s database, `None` without `ARENA_DB_URL`.
    pub records: Option<PgPool>,
}

impl App {
    /// Must run inside the tokio runtime, where the pool starts its
    /// maintenance task; no connection is opened yet.
    pub fn new(config: Config, hello_page: Bytes) -> Self {
        let records = config
            .db
            .clone()
            .map(|options| record::pool(options, config.db_pool));
        Self {
            config,
            hello_page,
            hello_count: AtomicU64::new(0),
            passwords: Store::default(),
            users: Store::default(),
            records,
        }
    }
}

/// Unknown paths (including an empty or multi-segment username) fall to the
/// 404 fallback, known paths with another method to the 405 one; axum's own
/// answers for these have empty bodies, and the contract wants a message.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(|| async { "OK" }))
        .route("/hello", get(hello))
        .route("/password/set/{username}", post(password::set))
        .route("/password/verify/{username}", post(password::verify))
        .route("/user/set/{username}", post(user::set))
        .route("/user/get/{username}", get(user::get))
        .route("/longPoll", get(long_poll))
        .route("/long-operation", get(sort::long_operation))
        .route(
            "/record",
            get(record::get)
                .put(record::put)
                .post(record::post)
                .delete(record::delete),
        )
        .fallback(|| async { NOT_FOUND })
        .method_not_allowed_fallback(|| async { METHOD_NOT_ALLOWED })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

const NOT_FOUND: Reject = (StatusCode::NOT_FOUND, "not found");
const METHOD_NOT_ALLOWED: Reject = (StatusCode::METHOD_NOT_ALLOWED, "method not allowed");

/// Every K-th request waits. The count is taken before the wait, and the
/// wait is a timer that parks only this request's task, so the requests that
/// come meanwhile are answered at once.
async fn hello(State(app): State<Arc<App>>) -> Html<Bytes> {
    let count = app.hello_count.fetch_add(1, Ordering::Relaxed) + 1;
    if count % app.config.hello_every == 0 {
        tokio::time::sleep(app.config.hello_delay).await;
    }
    Html(app.hello_page.clone())
}

/// A timer, not a thread: any number of polls wait together.
async fn long_poll(State(app): State<Arc<App>>) -> &'static str {
    tokio::time::sleep(app.config.long_poll).await;
    "OK"
}
