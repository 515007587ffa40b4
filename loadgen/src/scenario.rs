//! The scenario document: parsing, defaults and validation.
//!
//! Everything a user can write is checked here, before any connection is opened, so that a
//! mistake in a scenario ends the program with one clear message (exit status 2) instead of a
//! half-run measurement.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use serde::{Deserialize, Serialize};

/// A mistake in the input: printed on stderr, exit status 2.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

pub fn input_err<T>(msg: impl Into<String>) -> Result<T, InputError> {
    Err(InputError(msg.into()))
}

pub const MAX_USERS: u64 = 100_000;
pub const MAX_IN_FLIGHT: u64 = 100_000;
pub const MAX_DURATION_S: f64 = 86_400.0;
pub const MAX_RATE: f64 = 1_000_000.0;
pub const MAX_ITERATIONS: u64 = 1_000_000_000;
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
pub const MAX_THINK_MS: u64 = 3_600_000;
pub const MAX_STEPS: usize = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub target: String,
    pub model: Model,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub data: Option<DataSpec>,
    #[serde(default = "default_true")]
    pub keep_alive: bool,
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    #[serde(default = "default_max_duration_s")]
    pub max_duration_s: f64,
    #[serde(default)]
    pub warmup: Option<Warmup>,
}

fn default_true() -> bool {
    true
}
fn default_timeout_ms() -> u64 {
    30_000
}
fn default_max_duration_s() -> f64 {
    600.0
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Model {
    Closed(Closed),
    Open(Open),
    Fixed(Fixed),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Closed {
    pub users: u64,
    #[serde(default)]
    pub think_ms: [u64; 2],
    #[serde(default)]
    pub ramp_per_s: Option<f64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub iterations_per_user: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Open {
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub duration_s: Option<f64>,
    #[serde(default)]
    pub iterations: Option<u64>,
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: u64,
    #[serde(default)]
    pub stages: Option<Vec<Stage>>,
    /// Arrivals due within this many microseconds of the engine's last wake-up are sent
    /// together, at most this late; 0 times every arrival on its own (README, "open").
    #[serde(default)]
    pub batch_us: u64,
    /// At most this many connections, each opened when first needed and kept; an arrival that
    /// finds every one busy waits for the first freed (README, "open"). None: a pool that grows
    /// with the work in flight.
    #[serde(default)]
    pub connections: Option<u64>,
    /// The window ends once more than `requests` of its requests were late: answered over `ms`
    /// after their intended start, failed, or never sent (README, "Stopping a failed window").
    #[serde(default)]
    pub stop_when_late: Option<StopWhenLate>,
}

/// How many late requests decide a window: its caller's verdict can no longer pass past them.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopWhenLate {
    pub ms: f64,
    pub requests: u64,
}

fn default_max_in_flight() -> u64 {
    1000
}

/// The most an arrival may be sent late on purpose: 10 ms.
pub const MAX_BATCH_US: u64 = 10_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub rate: f64,
    pub duration_s: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixed {
    pub requests: u64,
    pub concurrency: u64,
}

/// Warm-up until steady (README, "Warm-up until steady"): the model's own load in slices of
/// `slice_s`, until the last `window` slices agree or `max_s` is reached.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Warmup {
    pub slice_s: f64,
    #[serde(default = "default_window")]
    pub window: usize,
    pub max_s: f64,
    #[serde(default = "default_rps_tolerance")]
    pub rps_tolerance: f64,
    #[serde(default = "default_p50_tolerance")]
    pub p50_tolerance: f64,
    #[serde(default = "default_floor_ms")]
    pub floor_ms: f64,
    /// End the run unmeasured once a window of slices is beyond this median (`crate::steady`).
    #[serde(default)]
    pub give_up_p50_ms: Option<f64>,
}

fn default_window() -> usize {
    3
}
fn default_rps_tolerance() -> f64 {
    0.10
}
fn default_p50_tolerance() -> f64 {
    0.25
}
fn default_floor_ms() -> f64 {
    2.0
}

pub const MAX_SLICE_S: f64 = 3600.0;
pub const MAX_WINDOW: usize = 100;
pub const MAX_TOLERANCE: f64 = 10.0;

impl Warmup {
    /// How many whole slices fit in `max_s`: the warm-up never starts a slice that would end
    /// past it. The epsilon keeps 0.3 s of 0.1 s slices at 3 despite rounding.
    pub fn max_slices(&self) -> usize {
        (self.max_s / self.slice_s + 1e-9).floor() as usize
    }

    fn validate(&self, max_duration_s: f64) -> Result<(), InputError> {
        check_range_f64("warmup.slice_s", self.slice_s, 0.0, MAX_SLICE_S, false)?;
        check_range_u64("warmup.window", self.window as u64, 2, MAX_WINDOW as u64)?;
        if !self.max_s.is_finite() || self.max_slices() < self.window {
            return input_err(format!(
                "warmup.max_s must be a number >= slice_s × window ({} s) (got {})",
                self.slice_s * self.window as f64,
                self.max_s
            ));
        }
        if self.max_s >= max_duration_s {
            return input_err(format!(
                "warmup.max_s must be shorter than max_duration_s ({max_duration_s} s): \
                 the warm-up is part of the run (got {})",
                self.max_s
            ));
        }
        check_range_f64(
            "warmup.rps_tolerance",
            self.rps_tolerance,
            0.0,
            MAX_TOLERANCE,
            true,
        )?;
        check_range_f64(
            "warmup.p50_tolerance",
            self.p50_tolerance,
            0.0,
            MAX_TOLERANCE,
            true,
        )?;
        if !self.floor_ms.is_finite() || self.floor_ms < 0.0 {
            return input_err(format!(
                "warmup.floor_ms must be a number >= 0 (got {})",
                self.floor_ms
            ));
        }
        if let Some(bound) = self.give_up_p50_ms {
            check_range_f64(
                "warmup.give_up_p50_ms",
                bound,
                0.0,
                MAX_TIMEOUT_MS as f64,
                false,
            )?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub name: String,
    #[serde(default = "default_method")]
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default = "default_expect")]
    pub expect: Vec<u16>,
    /// Top-level fields of the JSON answer and the strings they must hold (templates, filled as
    /// the request was): an answer with an expected status that differs is a `content` error.
    #[serde(default)]
    pub expect_json: BTreeMap<String, String>,
}

fn default_method() -> String {
    "GET".to_string()
}
fn default_expect() -> Vec<u16> {
    vec![200]
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    pub csv: String,
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    #[serde(default)]
    pub rows: RowMode,
}

fn default_delimiter() -> String {
    ";".to_string()
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowMode {
    #[default]
    PerUser,
    PerIteration,
}

/// Where the load goes: a loopback socket address and the Host header to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub addr: SocketAddr,
    pub host_header: String,
}

impl Scenario {
    /// How long the model is planned to load the server, when that is known before the run:
    /// closed with a duration, or open (its schedule); `None` for a fixed count of requests or
    /// a closed model bounded by iterations only.
    pub fn planned_s(&self) -> Option<f64> {
        match &self.model {
            Model::Closed(c) => c.duration_s,
            Model::Open(o) => Some(o.schedule_s()),
            Model::Fixed(_) => None,
        }
    }

    /// Parses and validates a scenario document. Only the structure and the numbers are
    /// checked here; templates and the data file are checked when the plan is compiled.
    pub fn parse(text: &str) -> Result<Scenario, InputError> {
        let sc: Scenario = serde_json::from_str(text)
            .map_err(|e| InputError(format!("scenario is not valid: {e}")))?;
        sc.validate()?;
        Ok(sc)
    }

    pub fn validate(&self) -> Result<(), InputError> {
        parse_target(&self.target)?;
        check_range_f64(
            "max_duration_s",
            self.max_duration_s,
            0.0,
            MAX_DURATION_S,
            false,
        )?;
        check_range_u64("timeout_ms", self.timeout_ms, 1, MAX_TIMEOUT_MS)?;
        match &self.model {
            Model::Closed(c) => c.validate()?,
            Model::Open(o) => o.validate()?,
            Model::Fixed(f) => f.validate()?,
        }
        if let Some(w) = &self.warmup {
            w.validate(self.max_duration_s)?;
            // A closed model's measurement is duration_s of users that keep going after the
            // warm-up; counting iterations per user would count the warm-up's too.
            if let Model::Closed(c) = &self.model
                && c.duration_s.is_none()
            {
                return input_err("a warm-up needs a closed model with duration_s");
            }
        }
        if self.steps.is_empty() {
            return input_err("steps: at least one step is required");
        }
        if self.steps.len() > MAX_STEPS {
            return input_err(format!("steps: at most {MAX_STEPS} steps"));
        }
        let mut names = std::collections::BTreeSet::new();
        for (i, s) in self.steps.iter().enumerate() {
            s.validate()
                .map_err(|e| InputError(format!("steps[{i}]: {e}")))?;
            if !names.insert(s.name.as_str()) {
                return input_err(format!("steps[{i}]: duplicate step name '{}'", s.name));
            }
        }
        if let Some(d) = &self.data {
            if d.csv.is_empty() {
                return input_err("data.csv: a file path is required");
            }
            let mut chars = d.delimiter.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii() && c != '"' && c != '\n' && c != '\r' => {}
                _ => return input_err("data.delimiter must be one ASCII character"),
            }
        }
        Ok(())
    }

    pub fn target(&self) -> Result<Target, InputError> {
        parse_target(&self.target)
    }
}

impl Closed {
    fn validate(&self) -> Result<(), InputError> {
        check_range_u64("model.users", self.users, 1, MAX_USERS)?;
        let [lo, hi] = self.think_ms;
        if lo > hi {
            return input_err("model.think_ms must be [min, max] with min <= max");
        }
        check_range_u64("model.think_ms", hi, 0, MAX_THINK_MS)?;
        if let Some(r) = self.ramp_per_s {
            check_range_f64("model.ramp_per_s", r, 0.0, MAX_RATE, true)?;
        }
        if let Some(d) = self.duration_s {
            check_range_f64("model.duration_s", d, 0.0, MAX_DURATION_S, false)?;
        }
        if let Some(n) = self.iterations_per_user {
            check_range_u64("model.iterations_per_user", n, 1, MAX_ITERATIONS)?;
        }
        if self.duration_s.is_none() && self.iterations_per_user.is_none() {
            return input_err(
                "closed model: give duration_s, iterations_per_user, or both (the run must end)",
            );
        }
        Ok(())
    }
}

impl Open {
    /// The arrival schedule as stages of (rate, seconds): the given stages, or one stage of
    /// `rate` lasting `duration_s`, or `iterations / rate` when no duration is given. The one
    /// place that knows how long an open run's schedule is.
    pub fn stages(&self) -> Vec<(f64, f64)> {
        match &self.stages {
            Some(stages) => stages.iter().map(|s| (s.rate, s.duration_s)).collect(),
            None => {
                let rate = self.rate.unwrap_or(1.0);
                let seconds = self
                    .duration_s
                    .unwrap_or_else(|| self.iterations.unwrap_or(1) as f64 / rate);
                vec![(rate, seconds)]
            }
        }
    }

    /// How long the arrival schedule lasts, in seconds.
    pub fn schedule_s(&self) -> f64 {
        self.stages().iter().map(|(_, seconds)| seconds).sum()
    }

    fn validate(&self) -> Result<(), InputError> {
        check_range_u64("model.max_in_flight", self.max_in_flight, 1, MAX_IN_FLIGHT)?;
        check_range_u64("model.batch_us", self.batch_us, 0, MAX_BATCH_US)?;
        if let Some(n) = self.connections {
            check_range_u64("model.connections", n, 1, MAX_IN_FLIGHT)?;
        }
        if let Some(n) = self.iterations {
            check_range_u64("model.iterations", n, 1, MAX_ITERATIONS)?;
        }
        if let Some(late) = self.stop_when_late {
            let most_ms = MAX_DURATION_S * 1000.0;
            check_range_f64("model.stop_when_late.ms", late.ms, 0.0, most_ms, false)?;
        }
        match &self.stages {
            Some(stages) => {
                if self.rate.is_some() || self.duration_s.is_some() {
                    return input_err(
                        "open model: give either stages or rate/duration_s, not both",
                    );
                }
                if stages.is_empty() {
                    return input_err("model.stages: at least one stage is required");
                }
                for (i, s) in stages.iter().enumerate() {
                    check_range_f64(
                        &format!("model.stages[{i}].rate"),
                        s.rate,
                        0.0,
                        MAX_RATE,
                        false,
                    )?;
                    check_range_f64(
                        &format!("model.stages[{i}].duration_s"),
                        s.duration_s,
                        0.0,
                        MAX_DURATION_S,
                        false,
                    )?;
                }
            }
            None => {
                let Some(rate) = self.rate else {
                    return input_err(
                        "open model: rate (arrivals per second) or stages is required",
                    );
                };
                check_range_f64("model.rate", rate, 0.0, MAX_RATE, false)?;
                match (self.duration_s, self.iterations) {
                    (Some(d), _) => {
                        check_range_f64("model.duration_s", d, 0.0, MAX_DURATION_S, false)?
                    }
                    (None, Some(_)) => {}
                    (None, None) => {
                        return input_err(
                            "open model: give duration_s, iterations, or both (the run must end)",
                        );
                    }
                }
            }
        }
        let total_s = self.schedule_s();
        if total_s > MAX_DURATION_S {
            return input_err(format!(
                "open model: the schedule lasts longer than {MAX_DURATION_S} s"
            ));
        }
        Ok(())
    }
}

impl Fixed {
    fn validate(&self) -> Result<(), InputError> {
        check_range_u64("model.requests", self.requests, 1, MAX_ITERATIONS)?;
        check_range_u64("model.concurrency", self.concurrency, 1, MAX_USERS)?;
        Ok(())
    }
}

impl Step {
    fn validate(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.len() > 100 {
            return Err("name must be 1..100 characters".into());
        }
        if self.name == "all" {
            return Err("the step name 'all' is reserved for the total".into());
        }
        if hyper::Method::from_bytes(self.method.as_bytes()).is_err()
            || self.method.is_empty()
            || self.method.bytes().any(|b| !b.is_ascii_uppercase())
        {
            return Err(format!(
                "method '{}' is not an HTTP method (uppercase letters, e.g. GET)",
                self.method
            ));
        }
        if !self.path.starts_with('/') {
            return Err(format!("path '{}' must start with '/'", self.path));
        }
        if self.expect.is_empty() {
            return Err("expect: at least one status".into());
        }
        for &s in &self.expect {
            if !(100..=599).contains(&s) {
                return Err(format!("expect: status {s} is not in 100..599"));
            }
        }
        for name in self.headers.keys() {
            let lower = name.to_ascii_lowercase();
            if hyper::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(format!("header name '{name}' is not valid"));
            }
            if matches!(
                lower.as_str(),
                "content-length" | "transfer-encoding" | "connection" | "upgrade" | "te"
            ) {
                return Err(format!(
                    "header '{name}' is managed by the engine (framing and keep_alive)"
                ));
            }
        }
        Ok(())
    }
}

fn check_range_u64(name: &str, v: u64, lo: u64, hi: u64) -> Result<(), InputError> {
    if v < lo || v > hi {
        return input_err(format!("{name} must be in {lo}..={hi} (got {v})"));
    }
    Ok(())
}

/// `lo` is exclusive unless `lo_inclusive`; `hi` is inclusive.
fn check_range_f64(
    name: &str,
    v: f64,
    lo: f64,
    hi: f64,
    lo_inclusive: bool,
) -> Result<(), InputError> {
    let lo_ok = if lo_inclusive { v >= lo } else { v > lo };
    if !v.is_finite() || !lo_ok || v > hi {
        let op = if lo_inclusive { ">=" } else { ">" };
        return input_err(format!(
            "{name} must be a number {op} {lo} and <= {hi} (got {v})"
        ));
    }
    Ok(())
}

pub const LOOPBACK_ONLY: &str = "loadgen only sends load to loopback addresses";

/// Accepts `http://HOST[:PORT][/]` where HOST is in 127.0.0.0/8, `[::1]` or `localhost`.
/// Names other than `localhost` are refused rather than resolved: a resolver could map any
/// name anywhere, and this engine must never send load off the machine.
pub fn parse_target(target: &str) -> Result<Target, InputError> {
    let uri: hyper::Uri = target
        .parse()
        .map_err(|_| InputError(format!("target '{target}' is not a URL")))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(_) => return input_err(format!("target '{target}': only http:// is supported")),
        None => return input_err(format!("target '{target}' must start with http://")),
    }
    let Some(auth) = uri.authority() else {
        return input_err(format!("target '{target}' has no host"));
    };
    if auth.as_str().contains('@') {
        return input_err(format!("target '{target}': user info is not supported"));
    }
    if let Some(pq) = uri.path_and_query()
        && pq.as_str() != "/"
        && !pq.as_str().is_empty()
    {
        return input_err(format!(
            "target '{target}' must not have a path; put paths in the steps"
        ));
    }
    let host = auth.host();
    let port = auth.port_u16().unwrap_or(80);
    if port == 0 {
        return input_err(format!("target '{target}': port 0 is not valid"));
    }
    let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => ip,
            Err(_) => return input_err(format!("{LOOPBACK_ONLY} (target host '{host}')")),
        }
    };
    if !ip.is_loopback() {
        return input_err(format!("{LOOPBACK_ONLY} (target host '{host}')"));
    }
    Ok(Target {
        addr: SocketAddr::new(ip, port),
        host_header: auth.as_str().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
      "target": "http://127.0.0.1:8080",
      "model": { "kind": "closed", "users": 100, "think_ms": [1000, 1000], "ramp_per_s": 100,
                 "duration_s": 10, "iterations_per_user": null },
      "steps": [
        { "name": "set", "method": "POST", "path": "/password/set/{username}",
          "body": "{\"password\":\"{password}\"}", "headers": {"Content-Type": "application/json"},
          "expect": [200] }
      ],
      "keep_alive": true, "timeout_ms": 30000, "max_duration_s": 600
    }"#;

    fn with(f: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        f(&mut v);
        v.to_string()
    }

    fn err_of(text: &str) -> String {
        Scenario::parse(text).unwrap_err().0
    }

    #[test]
    fn example_parses_with_defaults() {
        let sc = Scenario::parse(GOOD).unwrap();
        assert!(sc.keep_alive);
        assert!(sc.data.is_none());
        let Model::Closed(c) = &sc.model else {
            panic!("closed")
        };
        assert_eq!(c.users, 100);
        let t = sc.target().unwrap();
        assert_eq!(t.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(t.host_header, "127.0.0.1:8080");
    }

    #[test]
    fn non_loopback_targets_are_rejected() {
        for t in [
            "http://10.0.0.1:80",
            "http://192.168.1.1",
            "http://8.8.8.8",
            "http://example.com",
            "http://[::2]:80",
            "http://0.0.0.0:8080",
        ] {
            let e = err_of(&with(|v| v["target"] = t.into()));
            assert!(e.contains(LOOPBACK_ONLY), "{t}: {e}");
        }
        for t in [
            "http://127.0.0.1:1",
            "http://127.9.9.9",
            "http://localhost:80",
            "http://[::1]:8080",
        ] {
            assert!(parse_target(t).is_ok(), "{t}");
        }
        assert!(err_of(&with(|v| v["target"] = "https://127.0.0.1".into())).contains("http://"));
        assert!(err_of(&with(|v| v["target"] = "127.0.0.1:80".into())).contains("target"));
        assert!(err_of(&with(|v| v["target"] = "http://127.0.0.1/x".into())).contains("path"));
    }

    #[test]
    fn unknown_fields_and_bad_numbers_are_rejected() {
        assert!(err_of(&with(|v| v["extra"] = 1.into())).contains("unknown field"));
        assert!(err_of(&with(|v| v["model"]["userz"] = 1.into())).contains("unknown field"));
        assert!(err_of(&with(|v| v["steps"][0]["bogus"] = 1.into())).contains("unknown field"));
        assert!(err_of(&with(|v| v["model"]["users"] = 0.into())).contains("model.users"));
        assert!(err_of(&with(|v| v["model"]["users"] = 100_001.into())).contains("model.users"));
        assert!(err_of(&with(|v| v["model"]["users"] = (-1).into())).contains("not valid"));
        assert!(
            err_of(&with(|v| v["model"]["think_ms"] = serde_json::json!([5, 1])))
                .contains("min <= max")
        );
        assert!(err_of(&with(|v| v["timeout_ms"] = 0.into())).contains("timeout_ms"));
        assert!(err_of(&with(|v| v["max_duration_s"] = 0.into())).contains("max_duration_s"));
        assert!(err_of(&with(|v| v["model"]["kind"] = "weird".into())).contains("unknown variant"));
        assert!(
            err_of(&with(|v| v["steps"] = serde_json::json!([]))).contains("at least one step")
        );
        assert!(err_of(&with(|v| v["steps"][0]["method"] = "get".into())).contains("method"));
        assert!(err_of(&with(|v| v["steps"][0]["path"] = "x".into())).contains("start with '/'"));
        assert!(
            err_of(&with(|v| v["steps"][0]["expect"] = serde_json::json!([99]))).contains("expect")
        );
        assert!(
            err_of(&with(
                |v| v["steps"][0]["headers"] = serde_json::json!({"Content-Length": "1"})
            ))
            .contains("managed by the engine")
        );
        assert!(
            err_of(&with(|v| {
                v["model"]["duration_s"] = serde_json::Value::Null;
            }))
            .contains("the run must end")
        );
    }

    #[test]
    fn open_and_fixed_models_validate() {
        let open = with(|v| {
            v["model"] = serde_json::json!({"kind": "open", "rate": 10.0, "duration_s": 5})
        });
        let sc = Scenario::parse(&open).unwrap();
        let Model::Open(o) = sc.model else { panic!() };
        assert_eq!(o.max_in_flight, 1000);
        assert!(
            err_of(&with(
                |v| v["model"] = serde_json::json!({"kind": "open", "rate": 0, "duration_s": 5})
            ))
            .contains("model.rate")
        );
        assert!(
            err_of(&with(
                |v| v["model"] = serde_json::json!({"kind": "open", "duration_s": 5})
            ))
            .contains("rate")
        );
        assert!(
            err_of(&with(|v| v["model"] = serde_json::json!(
            {"kind": "open", "rate": 1, "stages": [{"rate": 1, "duration_s": 1}]})))
            .contains("not both")
        );
        assert!(Scenario::parse(&with(|v| v["model"] = serde_json::json!(
            {"kind": "open", "stages": [{"rate": 2, "duration_s": 25}, {"rate": 10, "duration_s": 5}]}))).is_ok());
        let late = |bound: serde_json::Value| {
            with(|v| {
                v["model"] = serde_json::json!(
                {"kind": "open", "rate": 10, "duration_s": 5, "stop_when_late": bound})
            })
        };
        assert!(Scenario::parse(&late(serde_json::json!({"ms": 10, "requests": 20}))).is_ok());
        let zero = late(serde_json::json!({"ms": 0, "requests": 20}));
        assert!(err_of(&zero).contains("model.stop_when_late.ms"));
        let missing = late(serde_json::json!({"ms": 10}));
        assert!(err_of(&missing).contains("requests"));
        assert!(
            Scenario::parse(&with(|v| v["model"] = serde_json::json!(
            {"kind": "fixed", "requests": 10000, "concurrency": 100})))
            .is_ok()
        );
        assert!(
            err_of(&with(|v| v["model"] = serde_json::json!(
            {"kind": "fixed", "requests": 0, "concurrency": 100})))
            .contains("model.requests")
        );
    }

    #[test]
    fn warmup_defaults_and_validation() {
        let sc = Scenario::parse(&with(|v| {
            v["warmup"] = serde_json::json!({"slice_s": 1, "max_s": 30})
        }))
        .unwrap();
        let w = sc.warmup.as_ref().unwrap();
        assert_eq!(
            (w.window, w.rps_tolerance, w.p50_tolerance, w.floor_ms),
            (3, 0.10, 0.25, 2.0)
        );
        // The warm-up is not part of the planned (measured) length.
        assert_eq!(sc.planned_s(), Some(10.0));
        assert!(Scenario::parse(GOOD).unwrap().warmup.is_none());
        // 0.3 s holds three slices of 0.1 s, although 0.1 × 3 > 0.3 in floating point.
        assert!(
            Scenario::parse(&with(
                |v| v["warmup"] = serde_json::json!({"slice_s": 0.1, "max_s": 0.3})
            ))
            .is_ok()
        );
        let cases = [
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "windw": 3}),
                "unknown field",
            ),
            (serde_json::json!({"max_s": 30}), "missing field `slice_s`"),
            (serde_json::json!({"slice_s": 1}), "missing field `max_s`"),
            (
                serde_json::json!({"slice_s": 0, "max_s": 30}),
                "warmup.slice_s",
            ),
            (
                serde_json::json!({"slice_s": -1, "max_s": 30}),
                "warmup.slice_s",
            ),
            (
                serde_json::json!({"slice_s": 3601, "max_s": 30}),
                "warmup.slice_s",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "window": 1}),
                "warmup.window",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 300, "window": 101}),
                "warmup.window",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 2.9}),
                "warmup.max_s",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 4, "window": 5}),
                "warmup.max_s",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 600}),
                "shorter than max_duration_s",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "rps_tolerance": -0.1}),
                "warmup.rps_tolerance",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "rps_tolerance": 10.5}),
                "warmup.rps_tolerance",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "p50_tolerance": 11}),
                "warmup.p50_tolerance",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "floor_ms": -1}),
                "warmup.floor_ms",
            ),
            (
                serde_json::json!({"slice_s": 1, "max_s": 30, "give_up_p50_ms": 0}),
                "warmup.give_up_p50_ms",
            ),
        ];
        for (warmup, want) in cases {
            let e = err_of(&with(|v| v["warmup"] = warmup.clone()));
            assert!(e.contains(want), "{warmup}: {e}");
        }
        // Zero tolerances and floor are allowed (a rule that demands identical slices).
        assert!(
            Scenario::parse(&with(|v| v["warmup"] = serde_json::json!(
            {"slice_s": 1, "max_s": 30, "rps_tolerance": 0, "p50_tolerance": 0, "floor_ms": 0})))
            .is_ok()
        );
        // A closed model's measurement is its duration after the warm-up.
        let e = err_of(&with(|v| {
            v["model"] =
                serde_json::json!({"kind": "closed", "users": 2, "iterations_per_user": 3});
            v["warmup"] = serde_json::json!({"slice_s": 1, "max_s": 30});
        }));
        assert!(
            e.contains("a warm-up needs a closed model with duration_s"),
            "{e}"
        );
        for model in [
            serde_json::json!({"kind": "open", "rate": 2, "iterations": 50}),
            serde_json::json!({"kind": "fixed", "requests": 10, "concurrency": 2}),
        ] {
            assert!(
                Scenario::parse(&with(|v| {
                    v["model"] = model.clone();
                    v["warmup"] = serde_json::json!({"slice_s": 1, "max_s": 30});
                }))
                .is_ok(),
                "{model}"
            );
        }
    }

    #[test]
    fn planned_length_of_each_model() {
        let cases = [
            (
                serde_json::json!({"kind": "closed", "users": 2, "duration_s": 7}),
                Some(7.0),
            ),
            (
                serde_json::json!({"kind": "closed", "users": 2, "iterations_per_user": 3}),
                None,
            ),
            (
                serde_json::json!({"kind": "open", "rate": 2, "iterations": 50}),
                Some(25.0),
            ),
            (
                serde_json::json!({"kind": "open", "rate": 2, "iterations": 50, "duration_s": 4}),
                Some(4.0),
            ),
            (
                serde_json::json!({"kind": "open", "stages": [
                    {"rate": 2, "duration_s": 25}, {"rate": 10, "duration_s": 5}]}),
                Some(30.0),
            ),
            (
                serde_json::json!({"kind": "fixed", "requests": 10, "concurrency": 2}),
                None,
            ),
        ];
        for (model, planned) in cases {
            let sc = Scenario::parse(&with(|v| v["model"] = model.clone())).unwrap();
            assert_eq!(sc.planned_s(), planned, "{model}");
        }
    }
}
