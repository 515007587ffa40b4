//! `{name}` templates in paths, bodies and header values.
//!
//! A placeholder is `{` + one or more ASCII letters, digits or `_` + `}`; every other brace is
//! literal text, so JSON bodies such as `{"password":"{password}"}` need no escaping. Names are
//! resolved once, when the scenario is loaded, so filling a template is a copy loop with no
//! lookups and an unknown name is an input error, never a failure mid-run.

use std::fmt::Write as _;

/// What a placeholder stands for, resolved at load time.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Lit(String),
    /// A column of the data row.
    Col(usize),
    /// `{i}`: the global iteration number.
    Iter,
    /// `{user}`: the virtual user or worker index.
    User,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

/// The values a template is filled with for one iteration.
pub struct Vars<'a> {
    pub row: &'a [Box<str>],
    pub iteration: u64,
    pub user: u64,
}

impl Template {
    /// Parses `text`; `columns` are the data file's header names.
    pub fn parse(text: &str, columns: &[String]) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let name_len = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if name_len > 0 && after.as_bytes().get(name_len) == Some(&b'}') {
                lit.push_str(&rest[..open]);
                if !lit.is_empty() {
                    parts.push(Part::Lit(std::mem::take(&mut lit)));
                }
                let name = &after[..name_len];
                parts.push(resolve(name, columns)?);
                rest = &after[name_len + 1..];
            } else {
                lit.push_str(&rest[..=open]);
                rest = after;
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template { parts })
    }

    /// The text if the template has no placeholder (it can then be built once for the run).
    pub fn as_static(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [Part::Lit(s)] => Some(s),
            _ => None,
        }
    }

    pub fn render_into(&self, out: &mut String, vars: &Vars<'_>) {
        for p in &self.parts {
            match p {
                Part::Lit(s) => out.push_str(s),
                Part::Col(c) => out.push_str(vars.row.get(*c).map(|s| &**s).unwrap_or("")),
                Part::Iter => {
                    let _ = write!(out, "{}", vars.iteration);
                }
                Part::User => {
                    let _ = write!(out, "{}", vars.user);
                }
            }
        }
    }

    pub fn render(&self, vars: &Vars<'_>) -> String {
        let mut s = String::new();
        self.render_into(&mut s, vars);
        s
    }
}

fn resolve(name: &str, columns: &[String]) -> Result<Part, String> {
    match name {
        "i" => Ok(Part::Iter),
        "user" => Ok(Part::User),
        _ => match columns.iter().position(|c| c == name) {
            Some(i) => Ok(Part::Col(i)),
            None if columns.is_empty() => Err(format!(
                "unknown placeholder {{{name}}}: there is no data file; known: {{i}}, {{user}}"
            )),
            None => Err(format!(
                "unknown placeholder {{{name}}}: known: {{i}}, {{user}}, {}",
                columns
                    .iter()
                    .map(|c| format!("{{{c}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<String> {
        vec!["username".into(), "password".into()]
    }

    fn row() -> Vec<Box<str>> {
        vec!["user000001".into(), "s3cret".into()]
    }

    #[test]
    fn fills_columns_iteration_and_user() {
        let r = row();
        let vars = Vars {
            row: &r,
            iteration: 42,
            user: 7,
        };
        let t = Template::parse("/password/set/{username}", &cols()).unwrap();
        assert_eq!(t.render(&vars), "/password/set/user000001");
        let t = Template::parse(r#"{"password":"{password}"}"#, &cols()).unwrap();
        assert_eq!(t.render(&vars), r#"{"password":"s3cret"}"#);
        let t = Template::parse("/x/{i}/{user}/{i}", &[]).unwrap();
        assert_eq!(t.render(&vars), "/x/42/7/42");
    }

    #[test]
    fn braces_that_are_not_placeholders_stay_literal() {
        let r = row();
        let vars = Vars {
            row: &r,
            iteration: 0,
            user: 0,
        };
        for text in [
            "{}",
            "{ }",
            "{a-b}",
            "{{",
            "}",
            "{\"a\":{\"b\":1}}",
            "{unterminated",
            "x{",
        ] {
            let t = Template::parse(text, &cols()).unwrap();
            assert_eq!(t.as_static(), Some(text), "{text}");
            assert_eq!(t.render(&vars), text);
        }
        assert_eq!(Template::parse("", &[]).unwrap().as_static(), Some(""));
        assert!(Template::parse("/{i}", &[]).unwrap().as_static().is_none());
    }

    #[test]
    fn unknown_placeholders_are_errors() {
        let e = Template::parse("/u/{usernme}", &cols()).unwrap_err();
        assert!(e.contains("{usernme}") && e.contains("{username}"), "{e}");
        let e = Template::parse("/u/{username}", &[]).unwrap_err();
        assert!(e.contains("no data file"), "{e}");
    }
}
