//! `/password/set` and `/password/verify`: bcrypt hashes in the shared store.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

use crate::app::App;
use crate::input::{JsonBody, Reject, Username};

/// bcrypt's own limit; longer input would be silently truncated by `bcrypt::hash`.
const MAX_PASSWORD_BYTES: usize = 72;

const BAD_BODY: Reject = (
    StatusCode::BAD_REQUEST,
    r#"body must be {"password": string of at most 72 bytes}"#,
);

const HASH_FAILED: Reject = (StatusCode::INTERNAL_SERVER_ERROR, "bcrypt failed");

/// The string `password` of a JSON object body.
fn password(body: &Value) -> Result<String, Reject> {
    match body.get("password") {
        Some(Value::String(s)) if s.len() <= MAX_PASSWORD_BYTES => Ok(s.clone()),
        _ => Err(BAD_BODY),
    }
}

pub async fn set(
    State(app): State<Arc<App>>,
    Username(name): Username,
    body: JsonBody,
) -> Result<&'static str, Reject> {
    let hash = hash(password(&body.value)?, app.config.bcrypt_cost).await?;
    app.passwords.set(name, hash);
    Ok("OK")
}

pub async fn verify(
    State(app): State<Arc<App>>,
    Username(name): Username,
    body: JsonBody,
) -> Result<&'static str, Reject> {
    let password = password(&body.value)?;
    let Some(stored) = app.passwords.get(&name) else {
        // Spend the same bcrypt work as for a known user, so the answer
        // time does not tell which usernames exist.
        hash(password, app.config.bcrypt_cost).await?;
        return Err((StatusCode::NOT_FOUND, "unknown user"));
    };
    match tokio::task::spawn_blocking(move || bcrypt::verify(password, &stored)).await {
        Ok(Ok(true)) => Ok("OK"),
        Ok(Ok(false)) => Err((StatusCode::FORBIDDEN, "wrong password")),
        _ => Err(HASH_FAILED),
    }
}

/// bcrypt is deliberately slow CPU work: it runs on tokio's blocking pool so
/// the async workers keep serving other requests meanwhile.
async fn hash(password: String, cost: u32) -> Result<String, Reject> {
    match tokio::task::spawn_blocking(move || bcrypt::hash(password, cost)).await {
        Ok(Ok(hash)) => Ok(hash),
        _ => Err(HASH_FAILED),
    }
}
