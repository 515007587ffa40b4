//! Request validation shared by the handlers: usernames, JSON bodies, error answers.

use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use bytes::Bytes;
use serde_json::Value;

/// Every body is limited to 64 KiB, exactly 65,536 bytes accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// An error answer: a status with a short plain-text message.
pub type Reject = (StatusCode, &'static str);

pub const BAD_USERNAME: Reject = (StatusCode::BAD_REQUEST, "invalid username");

/// The `{username}` path segment, percent-decoded, matching `^[A-Za-z0-9_.-]{1,64}$`.
pub struct Username(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Username {
    type Rejection = Reject;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Reject> {
        // Path fails only on a decoded segment that is not UTF-8, which is
        // no valid username either.
        let Path(name) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| BAD_USERNAME)?;
        if valid_name(&name) {
            Ok(Self(name))
        } else {
            Err(BAD_USERNAME)
        }
    }
}

/// `^[A-Za-z0-9_.-]{1,64}$`, for usernames and record names alike.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A body of at most [`BODY_LIMIT`] bytes that is valid JSON, kept both as
/// sent and parsed. axum's own `Json` extractor is not used because it insists
/// on the Content-Type and answers with statuses the contract does not use.
pub struct JsonBody {
    pub raw: Bytes,
    pub value: Value,
}

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = Reject;

    async fn from_request(req: Request, state: &S) -> Result<Self, Reject> {
        // The limit itself is the router's DefaultBodyLimit layer.
        let raw = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body larger than 65536 bytes",
                )
            } else {
                (StatusCode::BAD_REQUEST, "cannot read body")
            }
        })?;
        // serde_json also refuses invalid UTF-8 and nesting deeper than 128
        // levels, which keeps hostile bodies from exhausting the stack.
        let value = serde_json::from_slice(&raw)
            .map_err(|_| (StatusCode::BAD_REQUEST, "body is not valid JSON"))?;
        Ok(Self { raw, value })
    }
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names() {
        for ok in ["a", "user000001", "A-b_c.d", &"x".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "bad name",
            "semi;colon",
            "a/b",
            "ü",
            "a\0",
            &"x".repeat(65),
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
