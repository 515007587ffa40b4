//! The result document, histogram serialization, and merging the documents of repetitions.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

use crate::http::{ERROR_KINDS, ErrorKind};
use crate::record::{SIGFIG, StepRec, new_hist};
use crate::steady::Slice;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub min: u64,
    pub mean: f64,
    pub stdev: f64,
    pub p50: u64,
    pub p66: u64,
    pub p75: u64,
    pub p80: u64,
    pub p90: u64,
    pub p95: u64,
    pub p98: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

impl Latency {
    /// ab's percentile table (50…99, 100 = max) plus p99.9; all zero for an empty histogram.
    pub fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        let q = |x: f64| h.value_at_quantile(x);
        Latency {
            min: h.min(),
            mean: round3(h.mean()),
            stdev: round3(h.stdev()),
            p50: q(0.50),
            p66: q(0.66),
            p75: q(0.75),
            p80: q(0.80),
            p90: q(0.90),
            p95: q(0.95),
            p98: q(0.98),
            p99: q(0.99),
            p999: q(0.999),
            max: h.max(),
        }
    }
}

pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    pub connect: u64,
    pub timeout: u64,
    pub reset: u64,
    pub status: u64,
    pub content: u64,
    pub other: u64,
}

impl Errors {
    /// From counts indexed by `ErrorKind as usize`.
    fn of(e: &[u64; ERROR_KINDS]) -> Errors {
        use ErrorKind as K;
        Errors {
            connect: e[K::Connect as usize],
            timeout: e[K::Timeout as usize],
            reset: e[K::Reset as usize],
            status: e[K::Status as usize],
            content: e[K::Content as usize],
            other: e[K::Other as usize],
        }
    }

    pub fn kinds(&self) -> [(&'static str, u64); ERROR_KINDS] {
        [
            ("connect", self.connect),
            ("timeout", self.timeout),
            ("reset", self.reset),
            ("status", self.status),
            ("content", self.content),
            ("other", self.other),
        ]
    }

    fn add(&mut self, o: &Errors) {
        self.connect += o.connect;
        self.timeout += o.timeout;
        self.reset += o.reset;
        self.status += o.status;
        self.content += o.content;
        self.other += o.other;
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepOut {
    pub name: String,
    pub count: u64,
    pub ok: u64,
    pub statuses: BTreeMap<String, u64>,
    pub errors: Errors,
    pub latency_us: Latency,
    pub histogram: String,
}

impl StepOut {
    pub fn of(name: &str, s: &StepRec) -> StepOut {
        let statuses = s
            .statuses
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(code, n)| (code.to_string(), *n))
            .collect();
        StepOut {
            name: name.to_string(),
            count: s.count,
            ok: s.ok,
            statuses,
            errors: Errors::of(&s.errors),
            latency_us: Latency::of(&s.hist),
            histogram: encode(&s.hist),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Engine {
    pub name: String,
    pub version: String,
    pub threads: usize,
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    pub wall_s: f64,
    pub max_rss_kb: u64,
}

/// The run's connections, warm-up included: how many it opened and the most open at once.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Connections {
    pub opened: u64,
    pub peak_open: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Iterations {
    pub started: u64,
    pub completed: u64,
    pub dropped: u64,
    pub cancelled: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Requests {
    pub total: u64,
    pub ok: u64,
    pub errors: Errors,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SecondOut {
    pub t: u64,
    pub completed: u64,
    pub ok: u64,
    pub errors: u64,
    pub p50_us: u64,
    pub p99_us: u64,
}

/// What the warm-up did (README, "Warm-up until steady"); times in seconds from the run's start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WarmupOut {
    pub slice_s: f64,
    /// Until the watcher decided: the switch.
    pub seconds: f64,
    /// When the measurement window opened: `seconds` for a closed model (no pause) and a fixed
    /// count (its last batch has drained when the rule decides), later by the drain of the
    /// warm-up's arrivals for an open one.
    pub measured_from_s: f64,
    /// The first slice of the agreeing window; null when `max_s` ended the warm-up, or it gave up.
    pub steady_at: Option<usize>,
    /// The slices were beyond `give_up_p50_ms`: the run ended there, and measured nothing.
    pub gave_up: bool,
    pub slices: Vec<Slice>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultDoc {
    pub engine: Engine,
    pub scenario: serde_json::Value,
    pub started_unix_ms: u64,
    pub elapsed_s: f64,
    pub iterations: Iterations,
    pub requests: Requests,
    #[serde(default)]
    pub connections: Connections,
    pub throughput_rps: f64,
    pub ok_rps: f64,
    pub achieved_arrival_rate: Option<f64>,
    pub steps: Vec<StepOut>,
    pub all: StepOut,
    pub iteration_latency_us: Latency,
    /// Serialized histogram of whole iterations, so repetitions can be merged.
    pub iteration_histogram: String,
    /// Open model: how late arrivals started against their schedule (generator health).
    pub arrival_lag_us: Option<Latency>,
    /// Latency of the first and of the last iteration, by iteration (arrival) number.
    #[serde(default)]
    pub first_last_us: Option<[u64; 2]>,
    pub series: Vec<SecondOut>,
    /// Null without a warm-up; `merge` ignores it (each repetition warms up on its own).
    #[serde(default)]
    pub warmup: Option<WarmupOut>,
    /// Open model with `stop_when_late`: seconds into the window when its late requests ended
    /// it, `elapsed_s` too; null when it ran its schedule.
    #[serde(default)]
    pub stopped_at_s: Option<f64>,
}

/// Base64 of the HdrHistogram V2 + deflate encoding (what HdrHistogram's other ports read).
pub fn encode(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut buf) {
        Ok(_) => B64.encode(buf),
        // Serializing into a Vec cannot fail on I/O; an empty string marks the impossible case.
        Err(_) => String::new(),
    }
}

pub fn decode(s: &str) -> Result<Histogram<u64>, String> {
    let bytes = B64
        .decode(s.trim())
        .map_err(|e| format!("histogram is not base64: {e}"))?;
    let h: Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|e| format!("histogram cannot be decoded: {e:?}"))?;
    // Re-home into an auto-resizing histogram so any other can be added to it.
    let mut out = new_hist(SIGFIG);
    out.add(&h)
        .map_err(|e| format!("histogram cannot be merged: {e:?}"))?;
    Ok(out)
}

/// Sum of the per-step records: the `all` entry.
pub fn all_of(steps: &[StepRec]) -> StepRec {
    let mut all = StepRec::new();
    for s in steps {
        all.add(s);
    }
    all
}

/// The merged statistics of several result documents of the same scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MergedDoc {
    pub repetitions: usize,
    pub scenario: serde_json::Value,
    pub elapsed_s: f64,
    pub iterations: Iterations,
    pub requests: Requests,
    pub steps: Vec<StepOut>,
    pub all: StepOut,
    pub iteration_latency_us: Latency,
    pub iteration_histogram: String,
}

struct Acc {
    name: String,
    count: u64,
    ok: u64,
    statuses: BTreeMap<String, u64>,
    errors: Errors,
    hist: Histogram<u64>,
}

impl Acc {
    fn new(name: &str) -> Acc {
        Acc {
            name: name.to_string(),
            count: 0,
            ok: 0,
            statuses: BTreeMap::new(),
            errors: Errors::default(),
            hist: new_hist(SIGFIG),
        }
    }

    fn add(&mut self, s: &StepOut, which: &str) -> Result<(), String> {
        self.count += s.count;
        self.ok += s.ok;
        for (k, v) in &s.statuses {
            *self.statuses.entry(k.clone()).or_insert(0) += v;
        }
        self.errors.add(&s.errors);
        let h = decode(&s.histogram).map_err(|e| format!("{which}: step '{}': {e}", s.name))?;
        self.hist.add(&h).map_err(|e| format!("{which}: {e:?}"))?;
        Ok(())
    }

    fn out(self) -> StepOut {
        StepOut {
            latency_us: Latency::of(&self.hist),
            histogram: encode(&self.hist),
            name: self.name,
            count: self.count,
            ok: self.ok,
            statuses: self.statuses,
            errors: self.errors,
        }
    }
}

/// Merges result documents given as (name for messages, JSON text).
pub fn merge(docs: &[(String, String)]) -> Result<MergedDoc, String> {
    let mut parsed = Vec::new();
    for (name, text) in docs {
        let d: ResultDoc = serde_json::from_str(text)
            .map_err(|e| format!("{name}: not a loadgen result document: {e}"))?;
        parsed.push((name, d));
    }
    let Some((_, first)) = parsed.first() else {
        return Err("merge needs at least one result document".into());
    };
    let scenario = first.scenario.clone();
    let names: Vec<String> = first.steps.iter().map(|s| s.name.clone()).collect();
    let mut steps: Vec<Acc> = names.iter().map(|n| Acc::new(n)).collect();
    let mut all = Acc::new("all");
    let mut iter_hist = new_hist(SIGFIG);
    let mut iterations = Iterations {
        started: 0,
        completed: 0,
        dropped: 0,
        cancelled: 0,
    };
    let mut requests = Requests {
        total: 0,
        ok: 0,
        errors: Errors::default(),
    };
    let mut elapsed = 0.0;
    for (name, d) in &parsed {
        if d.scenario != scenario {
            return Err(format!(
                "{name}: its scenario differs from the first document's"
            ));
        }
        let these: Vec<&str> = d.steps.iter().map(|s| s.name.as_str()).collect();
        if these != names.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(format!(
                "{name}: its steps differ from the first document's"
            ));
        }
        for (acc, s) in steps.iter_mut().zip(&d.steps) {
            acc.add(s, name)?;
        }
        all.add(&d.all, name)?;
        let h = decode(&d.iteration_histogram).map_err(|e| format!("{name}: iterations: {e}"))?;
        iter_hist.add(&h).map_err(|e| format!("{name}: {e:?}"))?;
        iterations.started += d.iterations.started;
        iterations.completed += d.iterations.completed;
        iterations.dropped += d.iterations.dropped;
        iterations.cancelled += d.iterations.cancelled;
        requests.total += d.requests.total;
        requests.ok += d.requests.ok;
        requests.errors.add(&d.requests.errors);
        elapsed += d.elapsed_s;
    }
    Ok(MergedDoc {
        repetitions: parsed.len(),
        scenario,
        elapsed_s: elapsed,
        iterations,
        requests,
        steps: steps.into_iter().map(Acc::out).collect(),
        all: all.out(),
        iteration_latency_us: Latency::of(&iter_hist),
        iteration_histogram: encode(&iter_hist),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::record_hist;

    fn samples(seed: u64, n: usize) -> Vec<u64> {
        let mut rng = crate::model::SplitMix64::new(seed);
        // A long-tailed mix: mostly sub-millisecond, some seconds.
        (0..n)
            .map(|_| {
                let r = rng.next_u64();
                if r.is_multiple_of(100) {
                    1_000_000 + r % 5_000_000
                } else {
                    50 + r % 2_000
                }
            })
            .collect()
    }

    #[test]
    fn serialization_round_trips() {
        let mut h = new_hist(SIGFIG);
        for v in samples(1, 10_000) {
            record_hist(&mut h, v);
        }
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back.len(), h.len());
        assert_eq!(Latency::of(&back), Latency::of(&h));
        assert!(decode("not base64!").is_err());
        assert!(decode("AAAA").is_err());
    }

    fn doc_with(parts: &[Vec<u64>]) -> String {
        let mut step = StepRec::new();
        for v in parts.iter().flatten() {
            record_hist(&mut step.hist, *v);
            step.count += 1;
            step.ok += 1;
            step.statuses[200] += 1;
        }
        let out = StepOut::of("get", &step);
        let doc = ResultDoc {
            engine: Engine {
                name: "arena-loadgen".into(),
                version: "0".into(),
                threads: 1,
                cpu_user_s: 0.0,
                cpu_system_s: 0.0,
                wall_s: 0.0,
                max_rss_kb: 0,
            },
            scenario: serde_json::json!({"target": "http://127.0.0.1:1"}),
            started_unix_ms: 0,
            elapsed_s: 1.0,
            iterations: Iterations {
                started: step.count,
                completed: step.count,
                dropped: 0,
                cancelled: 0,
            },
            requests: Requests {
                total: step.count,
                ok: step.count,
                errors: Errors::default(),
            },
            connections: Connections::default(),
            throughput_rps: 0.0,
            ok_rps: 0.0,
            achieved_arrival_rate: None,
            all: StepOut {
                name: "all".into(),
                ..out.clone()
            },
            steps: vec![out],
            iteration_latency_us: Latency::of(&step.hist),
            iteration_histogram: encode(&step.hist),
            arrival_lag_us: None,
            first_last_us: None,
            series: vec![],
            warmup: None,
            stopped_at_s: None,
        };
        serde_json::to_string(&doc).unwrap()
    }

    #[test]
    fn merging_equals_one_histogram_fed_all_samples() {
        let a = samples(2, 5_000);
        let b = samples(3, 7_000);
        let c = samples(4, 1);
        let docs = vec![
            ("a".to_string(), doc_with(std::slice::from_ref(&a))),
            ("b".to_string(), doc_with(std::slice::from_ref(&b))),
            ("c".to_string(), doc_with(std::slice::from_ref(&c))),
        ];
        let merged = merge(&docs).unwrap();
        let mut one = new_hist(SIGFIG);
        for v in a.iter().chain(&b).chain(&c) {
            record_hist(&mut one, *v);
        }
        assert_eq!(merged.repetitions, 3);
        assert_eq!(merged.steps[0].count, 12_001);
        assert_eq!(merged.steps[0].statuses["200"], 12_001);
        assert_eq!(merged.steps[0].latency_us, Latency::of(&one));
        assert_eq!(merged.all.latency_us, Latency::of(&one));
        assert_eq!(merged.iteration_latency_us, Latency::of(&one));
        assert_eq!(decode(&merged.steps[0].histogram).unwrap().len(), 12_001);
        assert_eq!(merged.requests.total, 12_001);
    }

    #[test]
    fn merging_different_scenarios_fails() {
        let a = doc_with(&[vec![1, 2, 3]]);
        let b = a.replace("127.0.0.1:1", "127.0.0.1:2");
        let e = merge(&[("a".into(), a), ("b".into(), b)]).unwrap_err();
        assert!(e.contains("scenario differs"), "{e}");
        assert!(
            merge(&[("x".into(), "{}".into())])
                .unwrap_err()
                .contains("not a loadgen result")
        );
    }
}
