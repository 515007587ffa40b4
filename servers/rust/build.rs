//! libtest cannot skip a test at run time, so the tests that need PostgreSQL
//! are `ignore`d (with the reason in the test output) unless `ARENA_DB_URL`
//! is set when they are built: `cfg(arena_db)`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(arena_db)");
    println!("cargo::rerun-if-env-changed=ARENA_DB_URL");
    if std::env::var_os("ARENA_DB_URL").is_some() {
        println!("cargo::rustc-cfg=arena_db");
    }
}
