//! The optional data file: a header line, then one row per line, split on one delimiter.
//!
//! Plain splitting without quoting is enough for Arena's `users.csv` (`username;password`,
//! alphanumeric values) and keeps the engine free of a CSV dependency; a row whose field count
//! differs from the header's is an input error rather than a silently shifted column.

use crate::scenario::{DataSpec, InputError, RowMode, input_err};

pub const MAX_ROWS: usize = 10_000_000;

#[derive(Debug, Clone)]
pub struct Data {
    pub columns: Vec<String>,
    pub rows: Vec<Box<[Box<str>]>>,
    pub mode: RowMode,
}

impl Data {
    pub fn load(spec: &DataSpec) -> Result<Data, InputError> {
        let text = std::fs::read_to_string(&spec.csv)
            .map_err(|e| InputError(format!("data.csv '{}': {e}", spec.csv)))?;
        Data::parse(
            &text,
            spec.delimiter.chars().next().unwrap_or(';'),
            spec.mode(),
        )
        .map_err(|e| InputError(format!("data.csv '{}': {e}", spec.csv)))
    }

    pub fn parse(text: &str, delim: char, mode: RowMode) -> Result<Data, InputError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((_, header)) = lines.next() else {
            return input_err("the file is empty (a header line is required)");
        };
        let columns: Vec<String> = header.split(delim).map(|c| c.trim().to_string()).collect();
        for c in &columns {
            if c.is_empty() || !c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return input_err(format!(
                    "header column '{c}' must be letters, digits or '_' (it is used as {{{c}}})"
                ));
            }
            if c == "i" || c == "user" {
                return input_err(format!(
                    "header column '{c}' clashes with the built-in placeholder {{{c}}}"
                ));
            }
        }
        let mut rows = Vec::new();
        for (n, line) in lines {
            let fields: Box<[Box<str>]> = line.split(delim).map(Box::from).collect();
            if fields.len() != columns.len() {
                return input_err(format!(
                    "line {}: {} fields, the header has {}",
                    n + 1,
                    fields.len(),
                    columns.len()
                ));
            }
            rows.push(fields);
            if rows.len() > MAX_ROWS {
                return input_err(format!("more than {MAX_ROWS} rows"));
            }
        }
        if rows.is_empty() {
            return input_err("no data rows after the header");
        }
        Ok(Data {
            columns,
            rows,
            mode,
        })
    }

    /// The row for an iteration: by user (`per_user`) or by the global iteration counter.
    pub fn row(&self, user: u64, iteration: u64) -> &[Box<str>] {
        let k = match self.mode {
            RowMode::PerUser => user,
            RowMode::PerIteration => iteration,
        };
        &self.rows[(k % self.rows.len() as u64) as usize]
    }
}

impl DataSpec {
    pub fn mode(&self) -> RowMode {
        self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_users_csv() {
        let d = Data::parse(
            "username;password\r\nuser000000;abc\r\nuser000001;def\r\n\r\n",
            ';',
            RowMode::PerUser,
        )
        .unwrap();
        assert_eq!(d.columns, vec!["username", "password"]);
        assert_eq!(d.rows.len(), 2);
        assert_eq!(&*d.row(3, 0)[0], "user000001");
        let d = Data {
            mode: RowMode::PerIteration,
            ..d
        };
        assert_eq!(&*d.row(3, 4)[1], "abc");
    }

    #[test]
    fn rejects_bad_files() {
        assert!(
            Data::parse("", ';', RowMode::PerUser)
                .unwrap_err()
                .0
                .contains("empty")
        );
        assert!(
            Data::parse("a;b\n", ';', RowMode::PerUser)
                .unwrap_err()
                .0
                .contains("no data rows")
        );
        assert!(
            Data::parse("a;b\n1;2;3\n", ';', RowMode::PerUser)
                .unwrap_err()
                .0
                .contains("line 2")
        );
        assert!(
            Data::parse("a b;c\n1;2\n", ';', RowMode::PerUser)
                .unwrap_err()
                .0
                .contains("header")
        );
        assert!(
            Data::parse("i;c\n1;2\n", ';', RowMode::PerUser)
                .unwrap_err()
                .0
                .contains("built-in")
        );
    }
}
