use std::process::ExitCode;

use arena_rust::config::Config;

fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("config: {err}");
            return ExitCode::from(2);
        }
    };
    // The core budget is the number of async worker threads. bcrypt and the
    // sort run on tokio's separate blocking pool (see README.md).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.cpus)
        .enable_all()
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("server: cannot start the tokio runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(arena_rust::server::serve(config));
    // A sort or hash still running on the blocking pool cannot be interrupted;
    // exit without waiting for it.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("server: {err}");
            ExitCode::FAILURE
        }
    }
}
