//! The contract at the HTTP level, on the router in memory (no socket).

use std::sync::Arc;
use std::time::Duration;

use arena_rust::app::{App, router};
use arena_rust::config::Config;
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::header::CONTENT_TYPE;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};
use tower::ServiceExt;

const PAGE: &[u8] = b"<p>hello</p>";

fn test_config(hello_every: u64) -> Config {
    let mut config = Config::from_lookup(|_| None).unwrap();
    config.bcrypt_cost = 4;
    config.long_poll = Duration::from_millis(20);
    config.hello_every = hello_every;
    config.hello_delay = Duration::from_secs(3600);
    config.sort_n = 10;
    config
}

fn test_router(hello_every: u64) -> Router {
    router(Arc::new(App::new(test_config(hello_every), PAGE.into())))
}

/// `/record` on the database at `url`, through a pool of `pool` connections.
fn record_router(url: &str, pool: u32) -> Router {
    let mut config = test_config(10);
    config.db = Some(url.parse().unwrap());
    config.db_pool = pool;
    router(Arc::new(App::new(config, PAGE.into())))
}

struct Reply {
    status: StatusCode,
    content_type: String,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

async fn call(app: &Router, method: &str, uri: &str, body: impl Into<Body>) -> Reply {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header(CONTENT_TYPE, "application/json")
        .body(body.into())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .map_or("", |v| v.to_str().unwrap())
        .to_owned();
    let status = response.status();
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let reply = Reply {
        status,
        content_type,
        body: body.to_vec(),
    };
    if status.is_client_error() {
        assert!(
            !reply.body.is_empty(),
            "{method} {uri}: {status} without a message"
        );
    }
    reply
}

async fn status(app: &Router, method: &str, uri: &str, body: impl Into<Body>) -> StatusCode {
    call(app, method, uri, body).await.status
}

#[tokio::test]
async fn root_and_long_poll_answer_ok() {
    let app = test_router(10);
    for uri in ["/", "/longPoll"] {
        let reply = call(&app, "GET", uri, Body::empty()).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.body, b"OK");
        assert!(reply.content_type.starts_with("text/plain"));
    }
}

#[tokio::test]
async fn every_kth_hello_waits_and_the_others_do_not() {
    let app = test_router(2);
    let quick = Duration::from_millis(500);
    let first = tokio::time::timeout(quick, call(&app, "GET", "/hello", Body::empty())).await;
    let first = first.expect("the first /hello is answered at once");
    assert_eq!(first.body, PAGE);
    assert!(first.content_type.starts_with("text/html"));

    let second = tokio::spawn({
        let app = app.clone();
        async move { call(&app, "GET", "/hello", Body::empty()).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let third = tokio::time::timeout(quick, call(&app, "GET", "/hello", Body::empty())).await;
    assert!(
        third.is_ok(),
        "the third /hello is answered while the second waits"
    );
    assert!(!second.is_finished(), "the second /hello waits");
    second.abort();
}

#[tokio::test]
async fn passwords_set_and_verify() {
    let app = test_router(10);
    let body = |pw: &str| json!({ "password": pw }).to_string();
    assert_eq!(
        status(&app, "POST", "/password/set/alice", body("secret")).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&app, "POST", "/password/verify/alice", body("secret")).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&app, "POST", "/password/verify/alice", body("other")).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        status(&app, "POST", "/password/verify/nobody", body("secret")).await,
        StatusCode::NOT_FOUND
    );

    // 72 bytes is the limit in UTF-8 bytes: "€" takes 3.
    assert_eq!(
        status(&app, "POST", "/password/set/euro", body(&"€".repeat(24))).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&app, "POST", "/password/set/euro", body(&"€".repeat(25))).await,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn bad_password_requests_are_400() {
    let app = test_router(10);
    for path in ["/password/set/", "/password/verify/"] {
        for body in [
            "",
            "{bad",
            "{}",
            r#"{"password":1}"#,
            r#"{"password":null}"#,
            r#"["password"]"#,
            r#""password""#,
        ] {
            assert_eq!(
                status(&app, "POST", &format!("{path}bob"), body).await,
                StatusCode::BAD_REQUEST,
                "{body}"
            );
        }
        for name in ["bad%20name", "semi%3Bcolon", "a%2Fb", &"x".repeat(65)] {
            let uri = format!("{path}{name}");
            assert_eq!(
                status(&app, "POST", &uri, r#"{"password":"x"}"#).await,
                StatusCode::BAD_REQUEST,
                "{uri}"
            );
        }
    }
}

#[tokio::test]
async fn users_set_and_get() {
    let app = test_router(10);
    let value =
        json!({ "name": "Ada", "tags": ["math", "教育"], "nested": { "n": [1, 2.5, null] } });
    assert_eq!(
        status(&app, "POST", "/user/set/ada", value.to_string()).await,
        StatusCode::OK
    );
    let reply = call(&app, "GET", "/user/get/ada", Body::empty()).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(reply.json(), value);

    assert_eq!(
        status(&app, "GET", "/user/get/nobody", Body::empty()).await,
        StatusCode::NOT_FOUND
    );
    for body in ["[1]", "42", "null", "\"text\"", "{bad", ""] {
        assert_eq!(
            status(&app, "POST", "/user/set/u", body).await,
            StatusCode::BAD_REQUEST,
            "{body}"
        );
    }
}

#[tokio::test]
async fn body_limit_is_65536_bytes() {
    let app = test_router(10);
    let object = |size: usize| format!(r#"{{"p":"{}"}}"#, "x".repeat(size - 8));
    assert_eq!(object(65536).len(), 65536);
    assert_eq!(
        status(&app, "POST", "/user/set/big", object(65536)).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&app, "POST", "/user/set/big", object(65537)).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(
        status(&app, "POST", "/password/set/big", object(70000)).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

#[tokio::test]
async fn long_operation_checksums() {
    let app = test_router(10);
    for (uri, n, checksum) in [
        ("/long-operation?n=1", 1, 0.5682303266439076),
        ("/long-operation?n=0010", 10, 10.676268897597582),
        ("/long-operation", 10, 10.676268897597582),
        ("/long-operation?n=1000", 1000, 169238.799942987),
    ] {
        let reply = call(&app, "GET", uri, Body::empty()).await;
        assert_eq!(reply.content_type, "application/json");
        assert_eq!(
            reply.json(),
            json!({ "message": "done", "n": n, "checksum": checksum }),
            "{uri}"
        );
    }
    for n in [
        "0",
        "200001",
        "-1",
        "abc",
        "1.5",
        "",
        "1e3",
        "%2B5",
        "99999999999999999999999",
    ] {
        let uri = format!("/long-operation?n={n}");
        assert_eq!(
            status(&app, "GET", &uri, Body::empty()).await,
            StatusCode::BAD_REQUEST,
            "{uri}"
        );
    }
}

#[tokio::test]
async fn unknown_paths_404_and_wrong_methods_405() {
    let app = test_router(10);
    for uri in [
        "/nope",
        "/user/get/",
        "/user/get/a/b",
        "/hello/x",
        "/hello/",
        "/longpoll",
    ] {
        assert_eq!(
            status(&app, "GET", uri, Body::empty()).await,
            StatusCode::NOT_FOUND,
            "{uri}"
        );
    }
    for (method, uri) in [
        ("POST", "/"),
        ("DELETE", "/hello"),
        ("GET", "/password/set/u"),
        ("POST", "/user/get/u"),
    ] {
        assert_eq!(
            status(&app, method, uri, "{}").await,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {uri}"
        );
    }
}

fn record(name: &str, value: &str) -> String {
    json!({ "name": name, "value": value }).to_string()
}

fn record_uri(name: &str) -> String {
    format!("/record?name={name}")
}

/// Checked before the database is asked: these answer the same with none.
#[tokio::test]
async fn bad_record_requests_are_refused_before_the_database() {
    let app = test_router(10);
    for uri in [
        "/record",
        "/record?name=",
        "/record?nam=r1",
        "/record?name=bad%20name",
        "/record?name=a&name=b",
        &record_uri(&"y".repeat(65)),
    ] {
        for method in ["GET", "DELETE"] {
            assert_eq!(
                status(&app, method, uri, Body::empty()).await,
                StatusCode::BAD_REQUEST,
                "{method} {uri}"
            );
        }
    }
    let nul = record("n", "nul\0");
    let long = record("n", &format!("{}x", "é".repeat(512)));
    for body in [
        "",
        "{bad",
        "[1]",
        "null",
        r#""text""#,
        r#"{"value":"x"}"#,
        r#"{"name":"n"}"#,
        r#"{"name":"n","value":5}"#,
        r#"{"name":"n","value":null}"#,
        r#"{"name":5,"value":"x"}"#,
        r#"{"name":"bad name","value":"x"}"#,
        &nul,
        &long,
    ] {
        for method in ["PUT", "POST"] {
            assert_eq!(
                status(&app, method, "/record", body.to_owned()).await,
                StatusCode::BAD_REQUEST,
                "{method} {body}"
            );
        }
    }
    let big = record("n", &"v".repeat(70_000));
    assert_eq!(
        status(&app, "PUT", "/record", big).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    assert_eq!(
        status(&app, "PATCH", "/record", record("n", "x")).await,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn records_without_a_database_are_503() {
    let app = test_router(10);
    for (method, uri, body) in [
        ("GET", record_uri("r1"), ""),
        ("DELETE", record_uri("r1"), ""),
        ("PUT", "/record".into(), &record("r1", "x")),
        ("POST", "/record".into(), &record("r1", "x")),
    ] {
        let reply = call(&app, method, &uri, body.to_owned()).await;
        assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{method}");
        assert!(!reply.body.is_empty());
    }
}

/// A database that refuses connections: 503 once the acquire timeout (2 s)
/// is spent, inside the contract's 5 s.
#[tokio::test]
async fn records_on_an_unreachable_database_are_503_within_5_s() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "postgresql://arena:arena@127.0.0.1:{}/arena",
        closed.local_addr().unwrap().port()
    );
    drop(closed);
    let app = record_router(&url, 1);
    let reply = tokio::time::timeout(
        Duration::from_secs(5),
        call(&app, "GET", &record_uri("r1"), Body::empty()),
    )
    .await
    .expect("an answer within 5 s");
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        status(&app, "GET", "/", Body::empty()).await,
        StatusCode::OK
    );
}

fn db_router(pool: u32) -> Router {
    let url = std::env::var("ARENA_DB_URL").expect("ARENA_DB_URL, the database to test on");
    record_router(&url, pool)
}

#[tokio::test]
#[cfg_attr(
    not(arena_db),
    ignore = "ARENA_DB_URL is unset: no PostgreSQL to test /record on"
)]
async fn records_create_read_update_delete() {
    let app = db_router(2);
    let name = "rust-test.crud";
    call(&app, "DELETE", &record_uri(name), Body::empty()).await;
    let first = json!({ "name": name, "value": "first" });
    let second = json!({ "name": name, "value": "ünï cødé ✓" });

    let body = json!({ "name": name, "value": "first", "extra": 1 }).to_string();
    let created = call(&app, "PUT", "/record", body).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.content_type, "application/json");
    assert_eq!(created.json(), first);
    assert_eq!(
        status(&app, "PUT", "/record", second.to_string()).await,
        StatusCode::CONFLICT
    );
    assert_eq!(
        call(&app, "GET", &record_uri(name), Body::empty())
            .await
            .json(),
        first,
        "the conflict left it unchanged"
    );

    let updated = call(&app, "POST", "/record", second.to_string()).await;
    assert_eq!(updated.status, StatusCode::OK);
    assert_eq!(updated.json(), second);
    let read = call(&app, "GET", &record_uri("rust-test%2Ecrud"), Body::empty()).await;
    assert_eq!((read.status, read.json()), (StatusCode::OK, second.clone()));

    let deleted = call(&app, "DELETE", &record_uri(name), Body::empty()).await;
    assert_eq!((deleted.status, deleted.json()), (StatusCode::OK, second));
    for method in ["GET", "DELETE"] {
        assert_eq!(
            status(&app, method, &record_uri(name), Body::empty()).await,
            StatusCode::NOT_FOUND
        );
    }
    assert_eq!(
        status(&app, "POST", "/record", record(name, "x")).await,
        StatusCode::NOT_FOUND,
        "an update creates nothing"
    );
    assert_eq!(
        status(&app, "GET", &record_uri(name), Body::empty()).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
#[cfg_attr(
    not(arena_db),
    ignore = "ARENA_DB_URL is unset: no PostgreSQL to test /record on"
)]
async fn record_values_are_data_never_sql() {
    let app = db_router(2);
    for (i, value) in [
        "",
        "x' OR '1'='1",
        "'; DROP TABLE record; --",
        &"é".repeat(512),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("rust-test.value{i}");
        call(&app, "DELETE", &record_uri(&name), Body::empty()).await;
        let body = json!({ "name": name, "value": value });
        let created = call(&app, "PUT", "/record", body.to_string()).await;
        assert_eq!(
            (created.status, created.json()),
            (StatusCode::CREATED, body.clone())
        );
        let read = call(&app, "GET", &record_uri(&name), Body::empty()).await;
        assert_eq!(read.json(), body);
        let deleted = call(&app, "DELETE", &record_uri(&name), Body::empty()).await;
        assert_eq!(deleted.json(), body);
    }
}

#[tokio::test]
#[cfg_attr(
    not(arena_db),
    ignore = "ARENA_DB_URL is unset: no PostgreSQL to test /record on"
)]
async fn concurrent_creates_of_one_name_give_one_201() {
    let app = db_router(4);
    let name = "rust-test.race";
    call(&app, "DELETE", &record_uri(name), Body::empty()).await;
    let racers: Vec<_> = (0..16)
        .map(|k| {
            let app = app.clone();
            tokio::spawn(async move {
                status(&app, "PUT", "/record", record(name, &format!("from {k}"))).await
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for racer in racers {
        statuses.push(racer.await.unwrap());
    }
    let created = statuses
        .iter()
        .filter(|s| **s == StatusCode::CREATED)
        .count();
    let conflicts = statuses
        .iter()
        .filter(|s| **s == StatusCode::CONFLICT)
        .count();
    assert_eq!((created, conflicts), (1, 15), "{statuses:?}");
    call(&app, "DELETE", &record_uri(name), Body::empty()).await;
}
