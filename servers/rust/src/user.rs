//! `/user/set` and `/user/get`: JSON objects in the shared store.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use bytes::Bytes;

use crate::app::App;
use crate::input::{JsonBody, Reject, Username};

/// Stores the object as sent, so reading it back needs no re-encoding.
pub async fn set(
    State(app): State<Arc<App>>,
    Username(name): Username,
    body: JsonBody,
) -> Result<&'static str, Reject> {
    if !body.value.is_object() {
        return Err((StatusCode::BAD_REQUEST, "body must be a JSON object"));
    }
    // The body may be a slice of the connection's larger read buffer; a copy
    // keeps the store from pinning that buffer for as long as the user lives.
    app.users.set(name, Bytes::copy_from_slice(&body.raw));
    Ok("OK")
}

pub async fn get(
    State(app): State<Arc<App>>,
    Username(name): Username,
) -> Result<impl IntoResponse, Reject> {
    let object = app
        .users
        .get(&name)
        .ok_or((StatusCode::NOT_FOUND, "unknown user"))?;
    Ok(([(CONTENT_TYPE, "application/json")], object))
}
