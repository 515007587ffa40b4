use std::process::ExitCode;

fn main() -> ExitCode {
    let setup = std::env::args_os()
        .skip(1)
        .map(|arg| {
            arg.into_string()
                .map_err(|arg| format!("argument {arg:?} is not UTF-8"))
        })
        .collect::<Result<Vec<_>, _>>()
        .and_then(arena_micro::parse_args)
        .and_then(|config| {
            let workers = arena_micro::workers_from(std::env::var_os("ARENA_CPUS"))?;
            Ok((config, workers))
        });
    let (config, workers) = match setup {
        Ok(setup) => setup,
        Err(err) => {
            eprintln!("micro: {err}");
            return ExitCode::from(2);
        }
    };
    match arena_micro::run(&config, workers) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("micro: {err}");
            ExitCode::FAILURE
        }
    }
}
