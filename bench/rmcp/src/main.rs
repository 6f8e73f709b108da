//! The rmcp (official Rust MCP SDK) side of the cross-SDK benchmark: one binary with a
//! `serve` subcommand (the benchmark server) and a `drive` subcommand (the client driver),
//! both following bench/suite/PROTOCOL.md.

mod driver;
mod server;

use std::io::Write as _;

/// CLOCK_MONOTONIC in nanoseconds, the clock both sides of the cancellation measurement use.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn usage() -> ! {
    eprintln!(
        "usage:\n  rmcp-bench serve (--stdio | --http PORT) [--cancel-log PATH]\n  \
         rmcp-bench drive --workload seq|conc|large|cancel --n N [--k K] [--payload BYTES] \
         [--warmup W] [--cancel-log PATH] (--url URL | -- SERVER_CMD ARG...)"
    );
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let code = match args.next().as_deref() {
        Some("serve") => match server::Options::parse(args) {
            Ok(opts) => report(server::run(opts)),
            Err(e) => {
                eprintln!("rmcp-bench serve: {e}");
                usage()
            }
        },
        Some("drive") => match driver::Options::parse(args) {
            Ok(opts) => report(driver::run(opts)),
            Err(e) => {
                eprintln!("rmcp-bench drive: {e}");
                usage()
            }
        },
        _ => usage(),
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}

fn report(result: Result<(), String>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rmcp-bench: {e}");
            1
        }
    }
}
