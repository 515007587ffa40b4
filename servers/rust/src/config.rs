//! The `ARENA_*` settings of `spec/README.md`.

use std::ffi::OsString;
use std::fmt::Debug;
use std::ops::RangeBounds;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;

/// Largest `n` of `/long-operation`: the bubble sort is O(n²), so a larger n
/// would let one request occupy a core for minutes.
pub const MAX_SORT_N: usize = 200_000;

#[derive(Clone, Debug)]
pub struct Config {
    pub host: String,
    pub port: u16,
    pub cpus: usize,
    pub bcrypt_cost: u32,
    pub long_poll: Duration,
    pub hello_delay: Duration,
    pub hello_every: u64,
    pub sort_n: usize,
    pub data_dir: PathBuf,
    /// `/record`'s database; `None` when `ARENA_DB_URL` is unset, and
    /// `/record` answers 503.
    pub db: Option<PgConnectOptions>,
    /// The most database connections. This server is one process, so its
    /// one pool gets them all.
    pub db_pool: u32,
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var_os(name))
    }

    /// Reads the settings through `lookup`. A variable that is set but
    /// malformed is an error: the server must never run with a silently
    /// different setting than the harness asked for.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Result<Self, String> {
        let env = Env(lookup);
        Ok(Self {
            host: env.text("ARENA_HOST", "127.0.0.1")?,
            port: env.int("ARENA_PORT", 8080, 1..=u16::MAX)?,
            cpus: env.int("ARENA_CPUS", 1, 1..)?,
            bcrypt_cost: env.int("ARENA_BCRYPT_COST", 10, 4..=31)?,
            long_poll: env.millis("ARENA_LONGPOLL_MS", 5000)?,
            hello_delay: env.millis("ARENA_HELLO_DELAY_MS", 2000)?,
            hello_every: env.int("ARENA_HELLO_DELAY_EVERY", 10, 1..)?,
            sort_n: env.int("ARENA_SORT_N", 50_000, 1..=MAX_SORT_N)?,
            data_dir: env.text("ARENA_DATA_DIR", "../../spec/data")?.into(),
            db: env.db_url("ARENA_DB_URL")?,
            db_pool: env.int("ARENA_DB_POOL", 8, 1..=1000)?,
        })
    }
}

struct Env<F>(F);

impl<F: Fn(&str) -> Option<OsString>> Env<F> {
    fn raw(&self, name: &str) -> Result<Option<String>, String> {
        match (self.0)(name) {
            None => Ok(None),
            Some(value) => match value.into_string() {
                Ok(value) if !value.is_empty() => Ok(Some(value)),
                Ok(_) => Err(format!("{name} is set but empty")),
                Err(value) => Err(format!("{name}={value:?} is not valid UTF-8")),
            },
        }
    }

    fn text(&self, name: &str, default: &str) -> Result<String, String> {
        Ok(self.raw(name)?.unwrap_or_else(|| default.to_owned()))
    }

    fn int<T, R>(&self, name: &str, default: T, range: R) -> Result<T, String>
    where
        T: FromStr + PartialOrd,
        R: RangeBounds<T> + Debug,
    {
        let Some(text) = self.raw(name)? else {
            return Ok(default);
        };
        match text.parse() {
            Ok(value) if range.contains(&value) => Ok(value),
            _ => Err(format!("{name}={text:?}: want an integer in {range:?}")),
        }
    }

    /// The message leaves the URL out: it holds the password.
    fn db_url(&self, name: &str) -> Result<Option<PgConnectOptions>, String> {
        self.raw(name)?
            .map(|url| {
                url.parse()
                    .map_err(|err| format!("{name} is not a PostgreSQL URL: {err}"))
            })
            .transpose()
    }

    fn millis(&self, name: &str, default: u64) -> Result<Duration, String> {
        self.int(name, default, 0..).map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
        Config::from_lookup(|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.into())
        })
    }

    #[test]
    fn defaults_when_unset() {
        let c = config(&[]).unwrap();
        assert_eq!((c.host.as_str(), c.port, c.cpus), ("127.0.0.1", 8080, 1));
        assert_eq!((c.bcrypt_cost, c.hello_every, c.sort_n), (10, 10, 50_000));
        assert_eq!(c.long_poll, Duration::from_millis(5000));
        assert_eq!(c.hello_delay, Duration::from_millis(2000));
        assert_eq!(c.data_dir, PathBuf::from("../../spec/data"));
        assert!(c.db.is_none());
        assert_eq!(c.db_pool, 8);
    }

    #[test]
    fn reads_set_values() {
        let c = config(&[
            ("ARENA_PORT", "9000"),
            ("ARENA_CPUS", "2"),
            ("ARENA_BCRYPT_COST", "4"),
            ("ARENA_LONGPOLL_MS", "0"),
            ("ARENA_SORT_N", "200000"),
            ("ARENA_DB_URL", "postgresql://u:p@127.0.0.1:5433/arena"),
            ("ARENA_DB_POOL", "1000"),
        ])
        .unwrap();
        assert_eq!(
            (c.port, c.cpus, c.bcrypt_cost, c.sort_n),
            (9000, 2, 4, 200_000)
        );
        assert_eq!(c.long_poll, Duration::ZERO);
        let db = c.db.unwrap();
        assert_eq!((db.get_host(), db.get_port()), ("127.0.0.1", 5433));
        assert_eq!((db.get_username(), db.get_database()), ("u", Some("arena")));
        assert_eq!(c.db_pool, 1000);
    }

    #[test]
    fn malformed_values_are_errors() {
        for (name, value) in [
            ("ARENA_PORT", "0"),
            ("ARENA_PORT", "65536"),
            ("ARENA_PORT", "http"),
            ("ARENA_CPUS", "0"),
            ("ARENA_CPUS", "-1"),
            ("ARENA_BCRYPT_COST", "3"),
            ("ARENA_BCRYPT_COST", "32"),
            ("ARENA_LONGPOLL_MS", "1.5"),
            ("ARENA_HELLO_DELAY_EVERY", "0"),
            ("ARENA_SORT_N", "200001"),
            ("ARENA_HOST", ""),
            ("ARENA_DB_POOL", "0"),
            ("ARENA_DB_POOL", "1001"),
            ("ARENA_DB_POOL", "eight"),
            ("ARENA_DB_URL", "not a url"),
            ("ARENA_DB_URL", "postgresql://u:secret@127.0.0.1:port/arena"),
        ] {
            let err = config(&[(name, value)]).unwrap_err();
            assert!(err.starts_with(name), "{name}={value}: {err}");
            assert!(!err.contains("secret"), "{err}");
        }
    }
}
