//! `oxmcp-bench`: oxmcp client -> oxmcp server over stdio.
//!
//! Each round spawns `oxmcp everything-server --stdio` as a child process, connects a
//! [`Client`], warms up, then measures
//!
//! 1. sequential `echo` calls (one at a time; per-call latency recorded),
//! 2. concurrent `echo` calls with K requests in flight (K worker tasks share one client
//!    and pull call numbers from a counter until N calls are done),
//! 3. a large-payload round trip (1 MiB by default; median of a few calls),
//!
//! checking every reply, and closes the client. Nothing asserts a time: it reports.
//! See `bench/README.md`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp::client::Client;
use oxmcp::transport::ChildProcess;
use serde_json::{json, Map, Value};

/// Reference figures for the official Rust SDK (rmcp), measured earlier on this 2-core
/// machine with the same workloads. Not measured by this program.
const RMCP_SEQ_CALLS_PER_S: f64 = 11_600.0;
const RMCP_SEQ_P50_US: f64 = 86.0;
const RMCP_CONC_CALLS_PER_S: f64 = 15_300.0;
/// oxmcp's goal relative to rmcp.
const GOAL: f64 = 1.5;

/// Length of the call-number prefix written at the start of each payload (so that every
/// call sends, and must get back, a different text).
const TAG: usize = 10;

const USAGE: &str = "\
usage: oxmcp-bench [options]

  --server PATH        the oxmcp binary (default: `oxmcp` next to this executable)
  --rounds R           rounds, each with a fresh server process (default 5)
  --seq N              sequential calls per round (default 2000)
  --concurrent N       concurrent calls per round (default 5000)
  --in-flight K        requests kept in flight in the concurrent workload (default 64)
  --payload BYTES      echo payload size (default 100)
  --warmup N           warm-up calls per round, not measured (default 200)
  --large-calls N      large-payload calls per round, 0 to skip (default 20)
  --large-bytes BYTES  large payload size (default 1048576)
  --current-thread     run the client on a current-thread tokio runtime
                       (default: multi-thread, one worker per core)
  --json               print one JSON document on stdout instead of text
  -h, --help           this help";

#[derive(Debug, Clone)]
struct Args {
    server: PathBuf,
    rounds: usize,
    seq: usize,
    concurrent: usize,
    in_flight: usize,
    payload: usize,
    warmup: usize,
    large_calls: usize,
    large_bytes: usize,
    current_thread: bool,
    json: bool,
}

fn default_server() -> PathBuf {
    let name = format!("oxmcp{}", std::env::consts::EXE_SUFFIX);
    match std::env::current_exe() {
        Ok(exe) => exe.parent().map(|d| d.join(&name)).unwrap_or_else(|| PathBuf::from(&name)),
        Err(_) => PathBuf::from(name),
    }
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        server: default_server(),
        rounds: 5,
        seq: 2000,
        concurrent: 5000,
        in_flight: 64,
        payload: 100,
        warmup: 200,
        large_calls: 20,
        large_bytes: 1024 * 1024,
        current_thread: false,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let mut number = |name: &str| -> Result<usize, String> {
            let v = value(name)?;
            v.replace('_', "").parse().map_err(|_| format!("{name}: not a number: {v:?}"))
        };
        match flag.as_str() {
            "--server" => a.server = PathBuf::from(value("--server")?),
            "--rounds" => a.rounds = number("--rounds")?,
            "--seq" => a.seq = number("--seq")?,
            "--concurrent" => a.concurrent = number("--concurrent")?,
            "--in-flight" => a.in_flight = number("--in-flight")?,
            "--payload" => a.payload = number("--payload")?,
            "--warmup" => a.warmup = number("--warmup")?,
            "--large-calls" => a.large_calls = number("--large-calls")?,
            "--large-bytes" => a.large_bytes = number("--large-bytes")?,
            "--current-thread" => a.current_thread = true,
            "--json" => a.json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n\n{USAGE}")),
        }
    }
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    if a.in_flight == 0 {
        return Err("--in-flight must be at least 1".into());
    }
    Ok(a)
}

/// A payload of `len` printable bytes (a-z repeated).
fn base_payload(len: usize) -> String {
    (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect()
}

/// The text sent by call `i`: the base payload with `i` written over its first bytes.
fn payload_for(base: &str, i: usize) -> String {
    let mut s = String::with_capacity(base.len());
    if base.len() >= TAG {
        let _ = write!(s, "{:0width$}", i % 10usize.pow(TAG as u32), width = TAG);
        s.push_str(&base[TAG..]);
    } else {
        s.push_str(base);
    }
    s
}

/// Whether `got` is exactly what call `i` sent (checked without rebuilding the text).
fn is_payload_for(got: &str, base: &str, i: usize) -> bool {
    if base.len() < TAG {
        return got == base;
    }
    got.len() == base.len()
        && got.is_char_boundary(TAG)
        && got[TAG..] == base[TAG..]
        && got[..TAG].parse::<usize>().ok() == Some(i % 10usize.pow(TAG as u32))
}

/// One `echo` call whose reply is checked.
async fn echo(client: &Client, base: &str, i: usize) -> Result<(), String> {
    let mut args = Map::with_capacity(1);
    args.insert("text".to_owned(), Value::String(payload_for(base, i)));
    let result = client.call_tool("echo", Value::Object(args)).await.map_err(|e| format!("echo call {i} failed: {e}"))?;
    if result.is_error == Some(true) {
        return Err(format!("echo call {i} returned an error result: {:?}", result.content));
    }
    match result.content.as_slice() {
        [block] => match block.as_text() {
            Some(text) if is_payload_for(text, base, i) => Ok(()),
            Some(text) => Err(format!(
                "echo call {i}: reply text differs from what was sent ({} bytes sent, {} received)",
                base.len(),
                text.len()
            )),
            None => Err(format!("echo call {i}: reply is not a text block")),
        },
        other => Err(format!("echo call {i}: expected one content block, got {}", other.len())),
    }
}

#[derive(Debug, Clone, Default)]
struct Round {
    connect: Duration,
    seq_elapsed: Duration,
    seq_lat_ns: Vec<u64>,
    conc_elapsed: Duration,
    conc_lat_ns: Vec<u64>,
    large_lat_ns: Vec<u64>,
}

impl Round {
    fn seq_rate(&self, n: usize) -> f64 {
        n as f64 / self.seq_elapsed.as_secs_f64()
    }
    fn conc_rate(&self, n: usize) -> f64 {
        n as f64 / self.conc_elapsed.as_secs_f64()
    }
}

/// The `q`-quantile (0..=1) of sorted samples, nearest rank.
fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

async fn run_round(args: &Args, base: &str, large: &str) -> Result<Round, String> {
    let mut round = Round::default();

    let started = Instant::now();
    let transport = ChildProcess::new(&args.server)
        .args(["everything-server", "--stdio"])
        .spawn()
        .map_err(|e| format!("cannot start the server {}: {e}", args.server.display()))?;
    let client = Client::builder("oxmcp-bench", env!("CARGO_PKG_VERSION"))
        .connect(transport)
        .await
        .map_err(|e| format!("connect failed: {e}"))?;
    round.connect = started.elapsed();
    let client = Arc::new(client);

    for i in 0..args.warmup {
        echo(&client, base, i).await?;
    }

    // (1) sequential
    round.seq_lat_ns.reserve_exact(args.seq);
    let started = Instant::now();
    for i in 0..args.seq {
        let t = Instant::now();
        echo(&client, base, i).await?;
        round.seq_lat_ns.push(t.elapsed().as_nanos() as u64);
    }
    round.seq_elapsed = started.elapsed();

    // (2) K in flight: K workers, each issues its next call as soon as the previous ends.
    let next = Arc::new(AtomicUsize::new(0));
    let workers = args.in_flight.min(args.concurrent.max(1));
    let total = args.concurrent;
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(workers);
    for _ in 0..workers {
        let client = client.clone();
        let next = next.clone();
        let base = base.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(total / workers + 1);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return Ok::<_, String>(lat);
                }
                let t = Instant::now();
                echo(&client, &base, i).await?;
                lat.push(t.elapsed().as_nanos() as u64);
            }
        }));
    }
    for task in tasks {
        let lat = task.await.map_err(|e| format!("a concurrent worker failed: {e}"))??;
        round.conc_lat_ns.extend(lat);
    }
    round.conc_elapsed = started.elapsed();

    // (3) large payload
    for i in 0..args.large_calls {
        let t = Instant::now();
        echo(&client, large, i).await?;
        round.large_lat_ns.push(t.elapsed().as_nanos() as u64);
    }

    match Arc::try_unwrap(client) {
        Ok(client) => client.close().await,
        Err(_) => return Err("the client is still shared after the workloads".into()),
    }

    round.seq_lat_ns.sort_unstable();
    round.conc_lat_ns.sort_unstable();
    round.large_lat_ns.sort_unstable();
    Ok(round)
}

/// Median and min-max of one figure over rounds.
#[derive(Debug, Clone, Copy)]
struct Summary {
    median: f64,
    min: f64,
    max: f64,
}

impl Summary {
    fn of(values: &[f64]) -> Self {
        let (min, max) = min_max(values);
        Summary { median: median(values), min, max }
    }
    fn json(&self) -> Value {
        json!({ "median": self.median, "min": self.min, "max": self.max })
    }
}

struct Report {
    seq_rate: Summary,
    seq_p50_us: Summary,
    seq_p99_us: Summary,
    conc_rate: Summary,
    conc_p50_us: Summary,
    conc_p99_us: Summary,
    large_ms: Summary,
    connect_ms: Summary,
}

fn summarize(args: &Args, rounds: &[Round]) -> Report {
    let f = |g: &dyn Fn(&Round) -> f64| Summary::of(&rounds.iter().map(g).collect::<Vec<_>>());
    Report {
        seq_rate: f(&|r| r.seq_rate(args.seq)),
        seq_p50_us: f(&|r| quantile(&r.seq_lat_ns, 0.50) / 1e3),
        seq_p99_us: f(&|r| quantile(&r.seq_lat_ns, 0.99) / 1e3),
        conc_rate: f(&|r| r.conc_rate(args.concurrent)),
        conc_p50_us: f(&|r| quantile(&r.conc_lat_ns, 0.50) / 1e3),
        conc_p99_us: f(&|r| quantile(&r.conc_lat_ns, 0.99) / 1e3),
        large_ms: f(&|r| quantile(&r.large_lat_ns, 0.50) / 1e6),
        connect_ms: f(&|r| r.connect.as_secs_f64() * 1e3),
    }
}

fn runtime_name(args: &Args) -> String {
    if args.current_thread {
        "tokio current-thread".into()
    } else {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!("tokio multi-thread ({workers} workers)")
    }
}

fn print_text(args: &Args, rounds: &[Round], r: &Report) {
    println!("oxmcp-bench: oxmcp client -> oxmcp everything-server over stdio (child process)");
    println!("server:   {}", args.server.display());
    println!("client:   {}", runtime_name(args));
    println!(
        "workload: {} rounds; echo payload {} B; warm-up {}; sequential {} calls; concurrent {} calls, {} in flight; large {} x {} B",
        args.rounds, args.payload, args.warmup, args.seq, args.concurrent, args.in_flight, args.large_calls, args.large_bytes
    );
    println!();
    println!(
        "{:>5} {:>10} {:>12} {:>9} {:>9} {:>12} {:>9} {:>9} {:>10}",
        "round", "connect_ms", "seq_calls/s", "seq_p50", "seq_p99", "conc_calls/s", "conc_p50", "conc_p99", "large_ms"
    );
    for (i, round) in rounds.iter().enumerate() {
        println!(
            "{:>5} {:>10.1} {:>12.0} {:>7.1}us {:>7.1}us {:>12.0} {:>7.1}us {:>7.1}us {:>10.2}",
            i + 1,
            round.connect.as_secs_f64() * 1e3,
            round.seq_rate(args.seq),
            quantile(&round.seq_lat_ns, 0.50) / 1e3,
            quantile(&round.seq_lat_ns, 0.99) / 1e3,
            round.conc_rate(args.concurrent),
            quantile(&round.conc_lat_ns, 0.50) / 1e3,
            quantile(&round.conc_lat_ns, 0.99) / 1e3,
            quantile(&round.large_lat_ns, 0.50) / 1e6,
        );
    }
    let s = |x: &Summary, prec: usize| format!("{:.p$} [{:.p$} - {:.p$}]", x.median, x.min, x.max, p = prec);
    println!();
    println!("summary: median [min - max] over {} rounds", rounds.len());
    println!("  sequential         {} calls/s", s(&r.seq_rate, 0));
    println!("                     p50 {} us   p99 {} us", s(&r.seq_p50_us, 1), s(&r.seq_p99_us, 1));
    println!("  {:<18} {} calls/s", format!("{} in flight", args.in_flight), s(&r.conc_rate, 0));
    println!("                     p50 {} us   p99 {} us", s(&r.conc_p50_us, 1), s(&r.conc_p99_us, 1));
    if args.large_calls > 0 {
        let mib = args.large_bytes as f64 / (1024.0 * 1024.0);
        println!("  {:<18} {} ms per round trip", format!("{mib:.2} MiB echo"), s(&r.large_ms, 2));
        println!("                     (median of {} calls per round)", args.large_calls);
    }
    println!("  spawn + initialize {} ms", s(&r.connect_ms, 1));
    println!();
    println!("reference figures measured earlier, not this run (rmcp, the official Rust SDK, same 2-core machine):");
    let std_workload = args.payload == 100 && args.in_flight == 64;
    if !std_workload {
        println!("  (this run's payload / in-flight differ from the reference workload: 100 B, 64 in flight; ratios are indicative only)");
    }
    println!(
        "  sequential     rmcp {:>6.0} calls/s, p50 {:.0} us   oxmcp/rmcp {:.2}x (p50 rmcp/oxmcp {:.2}x)   goal {:.1}x = {:.0} calls/s",
        RMCP_SEQ_CALLS_PER_S,
        RMCP_SEQ_P50_US,
        r.seq_rate.median / RMCP_SEQ_CALLS_PER_S,
        RMCP_SEQ_P50_US / r.seq_p50_us.median,
        GOAL,
        GOAL * RMCP_SEQ_CALLS_PER_S
    );
    println!(
        "  64 in flight   rmcp {:>6.0} calls/s                oxmcp/rmcp {:.2}x                           goal {:.1}x = {:.0} calls/s",
        RMCP_CONC_CALLS_PER_S,
        r.conc_rate.median / RMCP_CONC_CALLS_PER_S,
        GOAL,
        GOAL * RMCP_CONC_CALLS_PER_S
    );
}

fn print_json(args: &Args, rounds: &[Round], r: &Report) {
    let per_round: Vec<Value> = rounds
        .iter()
        .map(|round| {
            json!({
                "connect_ms": round.connect.as_secs_f64() * 1e3,
                "sequential": {
                    "calls_per_s": round.seq_rate(args.seq),
                    "p50_us": quantile(&round.seq_lat_ns, 0.50) / 1e3,
                    "p99_us": quantile(&round.seq_lat_ns, 0.99) / 1e3,
                },
                "concurrent": {
                    "calls_per_s": round.conc_rate(args.concurrent),
                    "p50_us": quantile(&round.conc_lat_ns, 0.50) / 1e3,
                    "p99_us": quantile(&round.conc_lat_ns, 0.99) / 1e3,
                },
                "large_p50_ms": quantile(&round.large_lat_ns, 0.50) / 1e6,
            })
        })
        .collect();
    let doc = json!({
        "benchmark": "oxmcp client -> oxmcp everything-server over stdio",
        "config": {
            "server": args.server.display().to_string(),
            "client_runtime": runtime_name(args),
            "rounds": args.rounds,
            "payload_bytes": args.payload,
            "warmup_calls": args.warmup,
            "sequential_calls": args.seq,
            "concurrent_calls": args.concurrent,
            "in_flight": args.in_flight,
            "large_calls": args.large_calls,
            "large_bytes": args.large_bytes,
        },
        "summary": {
            "sequential": {
                "calls_per_s": r.seq_rate.json(),
                "p50_us": r.seq_p50_us.json(),
                "p99_us": r.seq_p99_us.json(),
            },
            "concurrent": {
                "calls_per_s": r.conc_rate.json(),
                "p50_us": r.conc_p50_us.json(),
                "p99_us": r.conc_p99_us.json(),
            },
            "large_round_trip_ms": if args.large_calls > 0 { r.large_ms.json() } else { Value::Null },
            "connect_ms": r.connect_ms.json(),
        },
        "rounds": per_round,
        "reference": {
            "note": "reference figures measured earlier, not this run: rmcp (official Rust SDK), same 2-core machine, 100 B payload, 64 in flight",
            "rmcp_sequential_calls_per_s": RMCP_SEQ_CALLS_PER_S,
            "rmcp_sequential_p50_us": RMCP_SEQ_P50_US,
            "rmcp_concurrent_calls_per_s": RMCP_CONC_CALLS_PER_S,
            "goal_ratio": GOAL,
            "sequential_ratio": r.seq_rate.median / RMCP_SEQ_CALLS_PER_S,
            "sequential_p50_speedup": RMCP_SEQ_P50_US / r.seq_p50_us.median,
            "concurrent_ratio": r.conc_rate.median / RMCP_CONC_CALLS_PER_S,
        },
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("a JSON value serializes"));
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("oxmcp-bench: {e}");
            return ExitCode::from(2);
        }
    };
    if !args.server.exists() {
        eprintln!(
            "oxmcp-bench: server binary {} not found (build it: cargo build --release -p oxmcp-cli, or pass --server)",
            args.server.display()
        );
        return ExitCode::from(2);
    }
    let runtime = if args.current_thread {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    }
    .expect("a tokio runtime");

    let base = base_payload(args.payload);
    let large = base_payload(args.large_bytes);
    let mut rounds = Vec::with_capacity(args.rounds);
    for i in 0..args.rounds {
        match runtime.block_on(run_round(&args, &base, &large)) {
            Ok(round) => {
                eprintln!(
                    "round {}/{}: sequential {:.0} calls/s, {} in flight {:.0} calls/s",
                    i + 1,
                    args.rounds,
                    round.seq_rate(args.seq),
                    args.in_flight,
                    round.conc_rate(args.concurrent)
                );
                rounds.push(round);
            }
            Err(e) => {
                eprintln!("oxmcp-bench: round {} failed: {e}", i + 1);
                return ExitCode::FAILURE;
            }
        }
    }
    let report = summarize(&args, &rounds);
    if args.json {
        print_json(&args, &rounds, &report);
    } else {
        print_text(&args, &rounds, &report);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_differ_per_call_and_check_back() {
        let base = base_payload(100);
        let p7 = payload_for(&base, 7);
        assert_eq!(p7.len(), 100);
        assert!(is_payload_for(&p7, &base, 7));
        assert!(!is_payload_for(&p7, &base, 8));
        assert!(!is_payload_for(&payload_for(&base, 8), &base, 7));
        let short = base_payload(3);
        assert!(is_payload_for(&payload_for(&short, 5), &short, 5));
    }

    #[test]
    fn quantiles_and_medians() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
