//! `/long-operation`: the spec's deterministic array, bubble-sorted, and its checksum.

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::config::MAX_SORT_N;
use crate::input::Reject;

/// 2^-53: scales a 53-bit integer into [0, 1) exactly.
const UNIT: f64 = 1.0 / (1u64 << 53) as f64;

/// n floats in [0, 1) from a 64-bit LCG seeded with 42, wrapping mod 2^64.
fn lcg_array(n: usize) -> Vec<f64> {
    let mut x: u64 = 42;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as f64 * UNIT
        })
        .collect()
}

/// The spec's exact O(n²) bubble sort, descending: the CPU work is the point
/// of the endpoint, so no library sort.
fn bubble_sort_desc(a: &mut [f64]) {
    let n = a.len();
    for i in 0..n {
        // Re-slicing lets the compiler drop the bounds checks of the inner loop.
        let unsorted = &mut a[..n - i];
        for j in 1..unsorted.len() {
            if unsorted[j - 1] < unsorted[j] {
                unsorted.swap(j - 1, j);
            }
        }
    }
}

/// Σ (i+1)·a[i] in index order; Rust never fuses this into an FMA on its own,
/// so every architecture gets the reference's rounding.
fn checksum(a: &[f64]) -> f64 {
    a.iter().enumerate().map(|(i, v)| (i + 1) as f64 * v).sum()
}

fn sorted_checksum(n: usize) -> f64 {
    let mut a = lcg_array(n);
    bubble_sort_desc(&mut a);
    checksum(&a)
}

/// Decimal digits only (leading zeros allowed), in 1..=MAX_SORT_N.
fn parse_n(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Digits only, so parsing fails solely on overflow: out of range as well.
    text.parse().ok().filter(|n| (1..=MAX_SORT_N).contains(n))
}

#[derive(Deserialize)]
pub struct SortQuery {
    n: Option<String>,
}

#[derive(Serialize)]
pub struct Done {
    message: &'static str,
    n: usize,
    /// serde_json prints the shortest form that parses back to the same f64.
    checksum: f64,
}

const BAD_N: Reject = (
    StatusCode::BAD_REQUEST,
    "n must be decimal digits in 1..200000",
);

/// The sort runs on tokio's blocking pool: the request still waits for it, as
/// in the honours report's server, but the async workers stay free for others.
/// It cannot be cancelled, so it finishes even when the client has gone.
pub async fn long_operation(
    State(app): State<Arc<App>>,
    query: Result<Query<SortQuery>, QueryRejection>,
) -> Result<Json<Done>, Reject> {
    let Query(query) = query.map_err(|_| BAD_N)?;
    let n = match query.n {
        None => app.config.sort_n,
        Some(text) => parse_n(&text).ok_or(BAD_N)?,
    };
    let checksum = tokio::task::spawn_blocking(move || sorted_checksum(n))
        .await
        .map_err(|_| (StatusCode::INTERNAL_SERVER_ERROR, "sort failed"))?;
    Ok(Json(Done {
        message: "done",
        n,
        checksum,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_checksums() {
        assert_eq!(sorted_checksum(1), 0.5682303266439076);
        assert_eq!(sorted_checksum(10), 10.676268897597582);
        assert_eq!(sorted_checksum(1000), 169238.799942987);
    }

    #[test]
    fn sorts_descending() {
        let mut a = lcg_array(500);
        bubble_sort_desc(&mut a);
        assert!(a.windows(2).all(|w| w[0] >= w[1]));
    }

    #[test]
    fn parses_n() {
        assert_eq!(parse_n("1"), Some(1));
        assert_eq!(parse_n("0777"), Some(777));
        assert_eq!(parse_n("200000"), Some(200_000));
        for bad in [
            "",
            "0",
            "200001",
            "-1",
            "+5",
            "1.5",
            "1e3",
            " 5",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_n(bad), None, "{bad}");
        }
    }
}
