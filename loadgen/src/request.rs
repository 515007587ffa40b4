//! Steps compiled for the hot path.
//!
//! Each part of a request (path, headers, body) is either built once for the whole run, when it
//! has no placeholder, or kept as a template filled per iteration. A static step then costs one
//! header-map clone and a few reference-count increments per request.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONNECTION, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, Uri};

use crate::scenario::{InputError, Step, Target};
use crate::template::{Template, Vars};

pub type Body = Full<Bytes>;

enum Part<T> {
    Static(T),
    Dynamic(Template),
}

pub struct PreparedStep {
    pub name: String,
    method: Method,
    path: Part<Uri>,
    /// Every header whose value has no placeholder, plus Host and (without keep-alive)
    /// `Connection: close`.
    static_headers: HeaderMap,
    dynamic_headers: Vec<(HeaderName, Template)>,
    body: Part<Bytes>,
    /// Indexed by status code: does it count as success?
    expect: Box<[bool; 1000]>,
    /// Fields the JSON answer must hold, with their templates (`expect_json`).
    expect_json: Vec<(String, Template)>,
}

/// Why a request could not be built: a template produced an invalid path or header value.
#[derive(Debug)]
pub struct BuildError(pub String);

impl PreparedStep {
    pub fn compile(
        step: &Step,
        columns: &[String],
        target: &Target,
        keep_alive: bool,
    ) -> Result<PreparedStep, InputError> {
        let ctx = |e: String| InputError(format!("step '{}': {e}", step.name));
        let method = Method::from_bytes(step.method.as_bytes())
            .map_err(|_| ctx(format!("method '{}' is not valid", step.method)))?;
        let path_t = Template::parse(&step.path, columns).map_err(|e| ctx(format!("path: {e}")))?;
        let path = match path_t.as_static() {
            Some(p) => Part::Static(
                Uri::try_from(p)
                    .map_err(|_| ctx(format!("path '{p}' is not a valid request target")))?,
            ),
            None => Part::Dynamic(path_t),
        };
        let body = match &step.body {
            None => Part::Static(Bytes::new()),
            Some(b) => {
                let t = Template::parse(b, columns).map_err(|e| ctx(format!("body: {e}")))?;
                match t.as_static() {
                    Some(s) => Part::Static(Bytes::from(s.to_string())),
                    None => Part::Dynamic(t),
                }
            }
        };
        let mut static_headers = HeaderMap::new();
        let host = HeaderValue::from_str(&target.host_header).map_err(|_| {
            InputError(format!(
                "target host '{}' is not a valid Host header",
                target.host_header
            ))
        })?;
        static_headers.insert(HOST, host);
        if !keep_alive {
            static_headers.insert(CONNECTION, HeaderValue::from_static("close"));
        }
        let mut dynamic_headers = Vec::new();
        for (name, value) in &step.headers {
            let hn = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ctx(format!("header name '{name}' is not valid")))?;
            let t = Template::parse(value, columns)
                .map_err(|e| ctx(format!("header '{name}': {e}")))?;
            match t.as_static() {
                Some(v) => {
                    let hv = HeaderValue::from_str(v)
                        .map_err(|_| ctx(format!("header '{name}': value '{v}' is not valid")))?;
                    // A user's Host replaces the target's; other names are appended.
                    if hn == HOST {
                        static_headers.insert(hn, hv);
                    } else {
                        static_headers.append(hn, hv);
                    }
                }
                None => dynamic_headers.push((hn, t)),
            }
        }
        let mut expect = Box::new([false; 1000]);
        for &s in &step.expect {
            expect[usize::from(s)] = true;
        }
        let mut expect_json = Vec::new();
        for (field, value) in &step.expect_json {
            let t = Template::parse(value, columns)
                .map_err(|e| ctx(format!("expect_json '{field}': {e}")))?;
            expect_json.push((field.clone(), t));
        }
        Ok(PreparedStep {
            name: step.name.clone(),
            method,
            path,
            static_headers,
            dynamic_headers,
            body,
            expect,
            expect_json,
        })
    }

    /// Whether building a request needs the iteration's variables.
    #[cfg(test)]
    pub fn is_dynamic(&self) -> bool {
        matches!(self.path, Part::Dynamic(_))
            || matches!(self.body, Part::Dynamic(_))
            || !self.dynamic_headers.is_empty()
    }

    /// Whether answers must be read whole, for `expect_json`.
    pub fn checks_body(&self) -> bool {
        !self.expect_json.is_empty()
    }

    /// Whether the answer's body is a JSON object holding every `expect_json` field as the string
    /// its template gives for this iteration (always, without `expect_json`).
    pub fn body_matches(&self, vars: &Vars<'_>, body: Option<&[u8]>) -> bool {
        if self.expect_json.is_empty() {
            return true;
        }
        let Some(Ok(serde_json::Value::Object(fields))) = body.map(serde_json::from_slice) else {
            return false;
        };
        self.expect_json.iter().all(|(field, t)| {
            fields.get(field).and_then(serde_json::Value::as_str) == Some(t.render(vars).as_str())
        })
    }

    pub fn is_expected(&self, status: u16) -> bool {
        self.expect
            .get(usize::from(status))
            .copied()
            .unwrap_or(false)
    }

    /// Builds the request of one iteration; `scratch` is reused to avoid an allocation per
    /// rendered template where the result is copied anyway.
    pub fn build(
        &self,
        vars: &Vars<'_>,
        scratch: &mut String,
    ) -> Result<Request<Body>, BuildError> {
        let uri = match &self.path {
            Part::Static(u) => u.clone(),
            Part::Dynamic(t) => {
                let p = t.render(vars);
                Uri::try_from(p.as_str()).map_err(|_| {
                    BuildError(format!(
                        "step '{}': path '{p}' is not a valid request target",
                        self.name
                    ))
                })?
            }
        };
        let body = match &self.body {
            Part::Static(b) => b.clone(),
            Part::Dynamic(t) => Bytes::from(t.render(vars)),
        };
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = uri;
        let mut headers = self.static_headers.clone();
        for (name, t) in &self.dynamic_headers {
            scratch.clear();
            t.render_into(scratch, vars);
            let v = HeaderValue::from_str(scratch).map_err(|_| {
                BuildError(format!(
                    "step '{}': header '{name}' value '{scratch}' is not valid",
                    self.name
                ))
            })?;
            headers.append(name.clone(), v);
        }
        *req.headers_mut() = headers;
        Ok(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_target;
    use std::collections::BTreeMap;

    fn step(path: &str, body: Option<&str>, headers: &[(&str, &str)]) -> Step {
        Step {
            name: "s".into(),
            method: "POST".into(),
            path: path.into(),
            body: body.map(Into::into),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            expect: vec![200, 201],
            expect_json: BTreeMap::new(),
        }
    }

    #[test]
    fn expected_json_fields_on_a_table_of_answers() {
        let target = parse_target("http://127.0.0.1:9999").unwrap();
        let mut s = step("/record", None, &[]);
        s.expect_json = [("value".to_string(), "v-{user}-{i}".to_string())].into();
        let s = PreparedStep::compile(&s, &[], &target, true).unwrap();
        let vars = Vars {
            row: &[],
            iteration: 7,
            user: 2,
        };
        let cases: &[(&str, Option<&[u8]>, bool)] = &[
            (
                "the field as filled",
                Some(br#"{"name":"a","value":"v-2-7"}"#),
                true,
            ),
            (
                "spacing and order are JSON's",
                Some(br#"{ "value" : "v-2-7", "name": "a" }"#),
                true,
            ),
            (
                "another value (a lost update)",
                Some(br#"{"name":"a","value":"v-2-6"}"#),
                false,
            ),
            ("the field missing", Some(br#"{"name":"a"}"#), false),
            ("not a string", Some(br#"{"value":7}"#), false),
            ("not an object", Some(br#"["v-2-7"]"#), false),
            ("not JSON", Some(b"v-2-7"), false),
            ("no body kept", None, false),
        ];
        for (why, body, matches) in cases {
            assert_eq!(s.body_matches(&vars, *body), *matches, "{why}");
        }
        assert!(s.checks_body());
        let plain = PreparedStep::compile(&step("/", None, &[]), &[], &target, true).unwrap();
        assert!(!plain.checks_body() && plain.body_matches(&vars, None));
    }

    #[test]
    fn static_and_dynamic_requests() {
        let target = parse_target("http://127.0.0.1:9999").unwrap();
        let cols = vec!["username".to_string(), "password".to_string()];
        let row: Vec<Box<str>> = vec!["bob".into(), "pw".into()];
        let vars = Vars {
            row: &row,
            iteration: 3,
            user: 1,
        };
        let mut scratch = String::new();

        let s = PreparedStep::compile(&step("/", None, &[]), &cols, &target, true).unwrap();
        assert!(!s.is_dynamic());
        let r = s.build(&vars, &mut scratch).unwrap();
        assert_eq!(r.uri(), "/");
        assert_eq!(r.headers()[HOST], "127.0.0.1:9999");
        assert!(r.headers().get(CONNECTION).is_none());
        assert!(s.is_expected(201) && !s.is_expected(404) && !s.is_expected(999));

        let s = PreparedStep::compile(
            &step(
                "/p/{username}",
                Some(r#"{"password":"{password}"}"#),
                &[("X-Iter", "{i}"), ("Content-Type", "application/json")],
            ),
            &cols,
            &target,
            false,
        )
        .unwrap();
        assert!(s.is_dynamic());
        let r = s.build(&vars, &mut scratch).unwrap();
        assert_eq!(r.uri(), "/p/bob");
        assert_eq!(r.headers()["x-iter"], "3");
        assert_eq!(r.headers()[CONNECTION], "close");
        assert_eq!(r.headers()["content-type"], "application/json");

        let bad_row: Vec<Box<str>> = vec!["a b".into(), "pw".into()];
        let bad = Vars {
            row: &bad_row,
            iteration: 0,
            user: 0,
        };
        assert!(
            s.build(&bad, &mut scratch)
                .unwrap_err()
                .0
                .contains("not a valid request target")
        );

        let e = PreparedStep::compile(&step("/p/{nobody}", None, &[]), &cols, &target, true)
            .err()
            .unwrap();
        assert!(e.0.contains("unknown placeholder {nobody}"), "{}", e.0);
    }
}
