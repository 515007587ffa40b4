//! Arena's Rust implementation of the REST workload contract (`spec/README.md`):
//! axum on a tokio multi-thread runtime, the `bcrypt` crate on tokio's
//! blocking pool, `RwLock<HashMap>` stores, and `/record` on PostgreSQL
//! through an sqlx pool.

pub mod app;
pub mod config;
pub mod input;
pub mod password;
pub mod record;
pub mod server;
pub mod sort;
pub mod store;
pub mod user;
