//! The `wsitec` command line. All work happens in the `wsitec` library; this
//! binary reads files, hands them over, and prints what comes back.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Deeply nested input recurses deeply in the parser and checker; a large
    // stack keeps that an ordinary diagnostic rather than a crash.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(cli::run);
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!(
                "wsitec: internal error (this is a bug in wsitec; please report it with the input)"
            );
            ExitCode::from(70)
        }
    }
}
