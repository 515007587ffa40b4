//! `/record`: records on PostgreSQL through an sqlx pool, one parameterised
//! statement a request.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use crate::app::App;
use crate::input::{JsonBody, Reject, valid_name};

const MAX_VALUE_BYTES: usize = 1024;

/// How long a request waits for a connection, connecting included: while the
/// database is down, `/record` answers 503 after this, inside the contract's 5 s.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

const INSERT: &str = "INSERT INTO record (name, value) VALUES ($1, $2) \
                      ON CONFLICT (name) DO NOTHING RETURNING name, value";
const SELECT: &str = "SELECT name, value FROM record WHERE name = $1";
const UPDATE: &str = "UPDATE record SET value = $2 WHERE name = $1 RETURNING name, value";
const DELETE: &str = "DELETE FROM record WHERE name = $1 RETURNING name, value";

const BAD_NAME: Reject = (
    StatusCode::BAD_REQUEST,
    "name must match ^[A-Za-z0-9_.-]{1,64}$",
);
const BAD_BODY: Reject = (
    StatusCode::BAD_REQUEST,
    r#"body must be {"name": string, "value": string}"#,
);
const BAD_VALUE: Reject = (
    StatusCode::BAD_REQUEST,
    "value must be a string of at most 1024 bytes without U+0000",
);
const NO_DATABASE: Reject = (
    StatusCode::SERVICE_UNAVAILABLE,
    "no database: ARENA_DB_URL is unset",
);
const UNAVAILABLE: Reject = (StatusCode::SERVICE_UNAVAILABLE, "database unavailable");
const FAILED: Reject = (StatusCode::INTERNAL_SERVER_ERROR, "database error");
const NOT_FOUND: Reject = (StatusCode::NOT_FOUND, "no such record");
const EXISTS: Reject = (StatusCode::CONFLICT, "record exists");

/// Lazy, so the server starts whether or not the database is up. sqlx checks
/// an idle connection before handing it out and again when it comes back,
/// with a protocol Sync rather than a query (no statement for
/// pg_stat_statements to count), and drops a broken one: after an outage the
/// pool reconnects by itself.
pub fn pool(options: PgConnectOptions, max_connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_lazy_with(options)
}

#[derive(Serialize)]
pub struct Record {
    name: String,
    value: String,
}

type Answer = Result<(StatusCode, Json<Record>), Reject>;

#[derive(Deserialize)]
pub struct NameQuery {
    name: Option<String>,
}

pub async fn put(State(app): State<Arc<App>>, body: JsonBody) -> Answer {
    let Record { name, value } = record(body.value)?;
    match run(&app, INSERT, name, Some(value)).await? {
        Some(record) => Ok((StatusCode::CREATED, Json(record))),
        // The insert did nothing: the name exists, and keeps its value.
        None => Err(EXISTS),
    }
}

pub async fn get(
    State(app): State<Arc<App>>,
    query: Result<Query<NameQuery>, QueryRejection>,
) -> Answer {
    found(run(&app, SELECT, name(query)?, None).await?)
}

pub async fn post(State(app): State<Arc<App>>, body: JsonBody) -> Answer {
    let Record { name, value } = record(body.value)?;
    found(run(&app, UPDATE, name, Some(value)).await?)
}

pub async fn delete(
    State(app): State<Arc<App>>,
    query: Result<Query<NameQuery>, QueryRejection>,
) -> Answer {
    found(run(&app, DELETE, name(query)?, None).await?)
}

fn found(record: Option<Record>) -> Answer {
    record.map(|r| (StatusCode::OK, Json(r))).ok_or(NOT_FOUND)
}

/// The `name` of the query string, percent-decoded.
fn name(query: Result<Query<NameQuery>, QueryRejection>) -> Result<String, Reject> {
    match query {
        Ok(Query(NameQuery { name: Some(name) })) if valid_name(&name) => Ok(name),
        _ => Err(BAD_NAME),
    }
}

/// The record of a body; other fields are ignored. PostgreSQL text cannot
/// hold U+0000, so such a value is refused here rather than by the database.
fn record(body: Value) -> Result<Record, Reject> {
    let Value::Object(mut fields) = body else {
        return Err(BAD_BODY);
    };
    let name = match fields.remove("name") {
        Some(Value::String(name)) if valid_name(&name) => name,
        _ => return Err(BAD_NAME),
    };
    match fields.remove("value") {
        Some(Value::String(value)) if value.len() <= MAX_VALUE_BYTES && !value.contains('\0') => {
            Ok(Record { name, value })
        }
        _ => Err(BAD_VALUE),
    }
}

/// Runs one statement, outside any transaction, and answers the row it
/// returns. Only input that passed the checks above gets here.
async fn run(
    app: &App,
    statement: &'static str,
    name: String,
    value: Option<String>,
) -> Result<Option<Record>, Reject> {
    let pool = app.records.as_ref().ok_or(NO_DATABASE)?;
    let mut query = sqlx::query_as::<_, (String, String)>(statement).bind(name);
    if let Some(value) = value {
        query = query.bind(value);
    }
    match query.fetch_optional(pool).await {
        Ok(row) => Ok(row.map(|(name, value)| Record { name, value })),
        Err(err) => Err(failure(err)),
    }
}

/// A database that is down, unreachable, shutting down or out of connections
/// is the contract's 503; anything else is a 500, logged, since it means a
/// bug or a misconfigured database. Neither answer shows the error.
fn failure(err: sqlx::Error) -> Reject {
    let unavailable = match &err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed => true,
        // SQLSTATE classes 08 (connection exception) and 53 (insufficient
        // resources), and 57P (shutdown, starting up, database dropped).
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| ["08", "53", "57P"].iter().any(|c| code.starts_with(c))),
        _ => false,
    };
    if unavailable {
        UNAVAILABLE
    } else {
        eprintln!("record: {err}");
        FAILED
    }
}
