//! `oxmcp-bench`: oxmcp client -> oxmcp everything-server, over stdio and Streamable HTTP.
//!
//! - **stdio**: each round spawns `oxmcp everything-server --stdio`, connects a
//!   [`Client`](oxmcp::client::Client), warms up, then measures sequential `echo` calls
//!   (per-call latency recorded), `echo` calls with K in flight (K worker tasks share one
//!   client) and a large-payload round trip (1 MiB by default).
//! - **http**: each round starts `oxmcp everything-server --http 127.0.0.1:PORT` on a free
//!   port, connects over `HttpClientTransport`, warms up, then the same sequential and K in
//!   flight workloads; the server is stopped with SIGTERM at the end of the round.
//! - **memory**: a fresh HTTP server's RSS at start, with 1 and with N (100) initialized
//!   sessions kept open (each made one `echo` call); KB per extra session.
//!
//! Every reply is checked. Nothing asserts a time: it reports. See `bench/README.md`.

mod http;
mod soak;
mod stats;
mod stdio;
mod suite;
mod workload;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{json, Value};

use http::{HttpParams, HttpRound, MemoryRound};
use stats::{quantile, Summary};
use stdio::{StdioParams, StdioRound};

/// Reference figures for the official Rust SDK (rmcp), measured earlier on this 2-core
/// machine with the same workloads. Not measured by this program.
const RMCP_SEQ_CALLS_PER_S: f64 = 11_600.0;
const RMCP_SEQ_P50_US: f64 = 86.0;
const RMCP_CONC_CALLS_PER_S: f64 = 15_300.0;
/// rmcp 3.9 over Streamable HTTP, same machine (reference, not measured here).
const RMCP_HTTP_SEQ_CALLS_PER_S: f64 = 2_800.0;
const RMCP_HTTP_SEQ_P50_US: f64 = 344.0;
const RMCP_HTTP_CONC_CALLS_PER_S: f64 = 6_800.0;
const RMCP_HTTP_KB_PER_SESSION: f64 = 97.0;
/// oxmcp's goal relative to rmcp's throughput.
const GOAL: f64 = 1.5;
/// oxmcp's goal for the server memory of one idle HTTP session (KB).
const GOAL_KB_PER_SESSION: f64 = 50.0;

const USAGE: &str = "\
usage: oxmcp-bench [options]

  --server PATH        the oxmcp binary (default: `oxmcp` next to this executable)
  --only LIST          workloads to run, comma-separated: stdio, http, memory
                       (default: all three; the flag may be repeated)
  --rounds R           stdio and http rounds, each with a fresh server process (default 5)
  --seq N              stdio sequential calls per round (default 2000)
  --concurrent N       stdio concurrent calls per round (default 5000)
  --http-seq N         http sequential calls per round (default 1000)
  --http-concurrent N  http concurrent calls per round (default 5000)
  --in-flight K        requests kept in flight in the concurrent workloads (default 64)
  --payload BYTES      echo payload size (default 100)
  --warmup N           warm-up calls per round, not measured (default 200)
  --large-calls N      stdio large-payload calls per round, 0 to skip (default 20)
  --large-bytes BYTES  large payload size (default 1048576)
  --sessions N         memory: sessions opened on the HTTP server (default 100, at least 2)
  --memory-rounds M    memory rounds, each with a fresh server process (default 3)
  --settle-ms MS       memory: wait before each RSS reading (default 300)
  --url URL            http: measure the server already serving URL (e.g. a load balancer
                       in front of several nodes) instead of starting one per round
  --no-get-stream      http, memory: clients do not open the standalone GET stream
                       (default: they do, as HttpClientTransport does by default)
  --current-thread     run the client on a current-thread tokio runtime
                       (default: multi-thread, one worker per core)
  --json               print one JSON document on stdout instead of text
  -h, --help           this help";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Workloads {
    stdio: bool,
    http: bool,
    memory: bool,
}

impl Workloads {
    fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.stdio {
            v.push("stdio");
        }
        if self.http {
            v.push("http");
        }
        if self.memory {
            v.push("memory");
        }
        v
    }
}

/// Adds the workloads named in `list` ("stdio,http") to `w`.
fn parse_only(list: &str, w: &mut Workloads) -> Result<(), String> {
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name {
            "stdio" => w.stdio = true,
            "http" => w.http = true,
            "memory" | "mem" => w.memory = true,
            "all" => *w = Workloads { stdio: true, http: true, memory: true },
            other => return Err(format!("--only: unknown workload {other:?} (stdio, http, memory)")),
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
struct Args {
    server: PathBuf,
    workloads: Workloads,
    rounds: usize,
    seq: usize,
    concurrent: usize,
    http_seq: usize,
    http_concurrent: usize,
    in_flight: usize,
    payload: usize,
    warmup: usize,
    large_calls: usize,
    large_bytes: usize,
    sessions: usize,
    memory_rounds: usize,
    settle_ms: u64,
    get_stream: bool,
    /// http: measure this running server instead of starting one per round.
    url: Option<String>,
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

fn parse_args_from(argv: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        server: default_server(),
        workloads: Workloads { stdio: true, http: true, memory: true },
        rounds: 5,
        seq: 2000,
        concurrent: 5000,
        http_seq: 1000,
        http_concurrent: 5000,
        in_flight: 64,
        payload: 100,
        warmup: 200,
        large_calls: 20,
        large_bytes: 1024 * 1024,
        sessions: 100,
        memory_rounds: 3,
        settle_ms: 300,
        get_stream: true,
        url: None,
        current_thread: false,
        json: false,
    };
    let mut only: Option<Workloads> = None;
    let mut it = argv.into_iter();
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let mut number = |name: &str| -> Result<usize, String> {
            let v = value(name)?;
            v.replace('_', "").parse().map_err(|_| format!("{name}: not a number: {v:?}"))
        };
        match flag.as_str() {
            "--server" => a.server = PathBuf::from(value("--server")?),
            "--only" => {
                let list = value("--only")?;
                parse_only(&list, only.get_or_insert(Workloads { stdio: false, http: false, memory: false }))?;
            }
            "--rounds" => a.rounds = number("--rounds")?,
            "--seq" => a.seq = number("--seq")?,
            "--concurrent" => a.concurrent = number("--concurrent")?,
            "--http-seq" => a.http_seq = number("--http-seq")?,
            "--http-concurrent" => a.http_concurrent = number("--http-concurrent")?,
            "--in-flight" => a.in_flight = number("--in-flight")?,
            "--payload" => a.payload = number("--payload")?,
            "--warmup" => a.warmup = number("--warmup")?,
            "--large-calls" => a.large_calls = number("--large-calls")?,
            "--large-bytes" => a.large_bytes = number("--large-bytes")?,
            "--sessions" => a.sessions = number("--sessions")?,
            "--memory-rounds" => a.memory_rounds = number("--memory-rounds")?,
            "--settle-ms" => a.settle_ms = number("--settle-ms")? as u64,
            "--no-get-stream" => a.get_stream = false,
            "--url" => a.url = Some(value("--url")?),
            "--current-thread" => a.current_thread = true,
            "--json" => a.json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}\n\n{USAGE}")),
        }
    }
    if let Some(w) = only {
        if w.names().is_empty() {
            return Err("--only: name at least one workload (stdio, http, memory)".into());
        }
        a.workloads = w;
    }
    if a.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    if a.in_flight == 0 {
        return Err("--in-flight must be at least 1".into());
    }
    if a.workloads.memory && (a.sessions < 2 || a.memory_rounds == 0) {
        return Err("--sessions must be at least 2 and --memory-rounds at least 1".into());
    }
    Ok(a)
}

struct StdioReport {
    seq_rate: Summary,
    seq_p50_us: Summary,
    seq_p99_us: Summary,
    conc_rate: Summary,
    conc_p50_us: Summary,
    conc_p99_us: Summary,
    large_ms: Summary,
    connect_ms: Summary,
}

fn summarize_stdio(rounds: &[StdioRound]) -> StdioReport {
    StdioReport {
        seq_rate: Summary::over(rounds, |r| r.seq.rate()),
        seq_p50_us: Summary::over(rounds, |r| r.seq.us(0.50)),
        seq_p99_us: Summary::over(rounds, |r| r.seq.us(0.99)),
        conc_rate: Summary::over(rounds, |r| r.conc.rate()),
        conc_p50_us: Summary::over(rounds, |r| r.conc.us(0.50)),
        conc_p99_us: Summary::over(rounds, |r| r.conc.us(0.99)),
        large_ms: Summary::over(rounds, |r| quantile(&r.large_lat_ns, 0.50) / 1e6),
        connect_ms: Summary::over(rounds, |r| r.connect.as_secs_f64() * 1e3),
    }
}

struct HttpReport {
    seq_rate: Summary,
    seq_p50_us: Summary,
    seq_p99_us: Summary,
    conc_rate: Summary,
    conc_p50_us: Summary,
    conc_p99_us: Summary,
    start_ms: Summary,
    connect_ms: Summary,
    rss_after_mb: Summary,
    stop_ms: Summary,
}

fn summarize_http(rounds: &[HttpRound]) -> HttpReport {
    HttpReport {
        seq_rate: Summary::over(rounds, |r| r.seq.rate()),
        seq_p50_us: Summary::over(rounds, |r| r.seq.us(0.50)),
        seq_p99_us: Summary::over(rounds, |r| r.seq.us(0.99)),
        conc_rate: Summary::over(rounds, |r| r.conc.rate()),
        conc_p50_us: Summary::over(rounds, |r| r.conc.us(0.50)),
        conc_p99_us: Summary::over(rounds, |r| r.conc.us(0.99)),
        start_ms: Summary::over(rounds, |r| r.start.as_secs_f64() * 1e3),
        connect_ms: Summary::over(rounds, |r| r.connect.as_secs_f64() * 1e3),
        rss_after_mb: Summary::over(rounds, |r| r.rss_after_kb as f64 / 1024.0),
        stop_ms: Summary::over(rounds, |r| r.stop.as_secs_f64() * 1e3),
    }
}

struct MemoryReport {
    rss_start_kb: Summary,
    rss_one_kb: Summary,
    rss_all_kb: Summary,
    kb_per_session: Summary,
}

fn summarize_memory(rounds: &[MemoryRound]) -> MemoryReport {
    MemoryReport {
        rss_start_kb: Summary::over(rounds, |r| r.rss_start_kb as f64),
        rss_one_kb: Summary::over(rounds, |r| r.rss_one_kb as f64),
        rss_all_kb: Summary::over(rounds, |r| r.rss_all_kb as f64),
        kb_per_session: Summary::over(rounds, MemoryRound::kb_per_session),
    }
}

/// Everything measured, per workload (`None`: not run).
struct Results {
    stdio: Option<(Vec<StdioRound>, StdioReport)>,
    http: Option<(Vec<HttpRound>, HttpReport)>,
    memory: Option<(Vec<MemoryRound>, MemoryReport)>,
}

fn runtime_name(args: &Args) -> String {
    if args.current_thread {
        "tokio current-thread".into()
    } else {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!("tokio multi-thread ({workers} workers)")
    }
}

fn reference_workload(args: &Args) -> bool {
    args.payload == 100 && args.in_flight == 64
}

fn fds(n: Option<usize>) -> String {
    n.map_or("?".into(), |n| n.to_string())
}

fn print_text(args: &Args, res: &Results) {
    println!("oxmcp-bench: oxmcp client -> oxmcp everything-server (child process) over stdio and Streamable HTTP");
    println!("server:    {}", args.server.display());
    println!("client:    {}", runtime_name(args));
    println!("workloads: {}", args.workloads.names().join(", "));
    if !args.get_stream && (res.http.is_some() || res.memory.is_some()) {
        println!("http clients: --no-get-stream (no standalone GET stream; not the transport's default)");
    }

    if let Some((rounds, _)) = &res.stdio {
        println!();
        println!(
            "stdio: {} rounds; echo payload {} B; warm-up {}; sequential {} calls; concurrent {} calls, {} in flight; large {} x {} B",
            rounds.len(),
            args.payload,
            args.warmup,
            args.seq,
            args.concurrent,
            args.in_flight,
            args.large_calls,
            args.large_bytes
        );
        println!(
            "{:>5} {:>10} {:>12} {:>9} {:>9} {:>12} {:>9} {:>9} {:>10}",
            "round", "connect_ms", "seq_calls/s", "seq_p50", "seq_p99", "conc_calls/s", "conc_p50", "conc_p99", "large_ms"
        );
        for (i, r) in rounds.iter().enumerate() {
            println!(
                "{:>5} {:>10.1} {:>12.0} {:>7.1}us {:>7.1}us {:>12.0} {:>7.1}us {:>7.1}us {:>10.2}",
                i + 1,
                r.connect.as_secs_f64() * 1e3,
                r.seq.rate(),
                r.seq.us(0.50),
                r.seq.us(0.99),
                r.conc.rate(),
                r.conc.us(0.50),
                r.conc.us(0.99),
                quantile(&r.large_lat_ns, 0.50) / 1e6,
            );
        }
    }

    if let Some((rounds, _)) = &res.http {
        println!();
        println!(
            "http: Streamable HTTP on 127.0.0.1, fresh server per round; {} rounds; echo payload {} B; warm-up {}; sequential {} calls; concurrent {} calls, {} in flight",
            rounds.len(),
            args.payload,
            args.warmup,
            args.http_seq,
            args.http_concurrent,
            args.in_flight
        );
        println!(
            "{:>5} {:>8} {:>10} {:>12} {:>9} {:>9} {:>12} {:>9} {:>9} {:>12} {:>8}",
            "round",
            "start_ms",
            "connect_ms",
            "seq_calls/s",
            "seq_p50",
            "seq_p99",
            "conc_calls/s",
            "conc_p50",
            "conc_p99",
            "srv_rss_MiB",
            "stop_ms"
        );
        for (i, r) in rounds.iter().enumerate() {
            println!(
                "{:>5} {:>8.1} {:>10.1} {:>12.0} {:>7.1}us {:>7.1}us {:>12.0} {:>7.1}us {:>7.1}us {:>12.1} {:>8.1}",
                i + 1,
                r.start.as_secs_f64() * 1e3,
                r.connect.as_secs_f64() * 1e3,
                r.seq.rate(),
                r.seq.us(0.50),
                r.seq.us(0.99),
                r.conc.rate(),
                r.conc.us(0.50),
                r.conc.us(0.99),
                r.rss_after_kb as f64 / 1024.0,
                r.stop.as_secs_f64() * 1e3,
            );
        }
        let noisy: usize = rounds.iter().map(|r| r.server_stderr_lines).sum();
        if noisy > 0 {
            println!("  (the servers wrote {noisy} line(s) to stderr; see the run's stderr)");
        }
    }

    if let Some((rounds, _)) = &res.memory {
        let n = args.sessions;
        println!();
        println!(
            "memory: HTTP server VmRSS, fresh server per round; {} rounds; {} sessions, each initialized + one echo call, all kept open; {} ms settle before each reading",
            rounds.len(),
            n,
            args.settle_ms
        );
        println!(
            "{:>5} {:>12} {:>10} {:>12} {:>10} {:>9} {:>6} {:>8} {:>12}",
            "round",
            "rss_start_KB",
            "rss_1_KB",
            format!("rss_{n}_KB"),
            "KB/session",
            "fds_start",
            "fds_1",
            format!("fds_{n}"),
            format!("open_{}_ms", n - 1)
        );
        for (i, r) in rounds.iter().enumerate() {
            println!(
                "{:>5} {:>12} {:>10} {:>12} {:>10.1} {:>9} {:>6} {:>8} {:>12.1}",
                i + 1,
                r.rss_start_kb,
                r.rss_one_kb,
                r.rss_all_kb,
                r.kb_per_session(),
                fds(r.fds_start),
                fds(r.fds_one),
                fds(r.fds_all),
                r.open_extra.as_secs_f64() * 1e3,
            );
        }
    }

    println!();
    println!("summary: median [min - max] over rounds");
    if let Some((rounds, r)) = &res.stdio {
        println!(" stdio ({} rounds)", rounds.len());
        println!("  sequential         {} calls/s", r.seq_rate.text(0));
        println!("                     p50 {} us   p99 {} us", r.seq_p50_us.text(1), r.seq_p99_us.text(1));
        println!("  {:<18} {} calls/s", format!("{} in flight", args.in_flight), r.conc_rate.text(0));
        println!("                     p50 {} us   p99 {} us", r.conc_p50_us.text(1), r.conc_p99_us.text(1));
        if args.large_calls > 0 {
            let mib = args.large_bytes as f64 / (1024.0 * 1024.0);
            println!("  {:<18} {} ms per round trip", format!("{mib:.2} MiB echo"), r.large_ms.text(2));
            println!("                     (median of {} calls per round)", args.large_calls);
        }
        println!("  spawn + initialize {} ms", r.connect_ms.text(1));
    }
    if let Some((rounds, r)) = &res.http {
        println!(" http ({} rounds)", rounds.len());
        println!("  sequential         {} calls/s", r.seq_rate.text(0));
        println!("                     p50 {} us   p99 {} us", r.seq_p50_us.text(1), r.seq_p99_us.text(1));
        println!("  {:<18} {} calls/s", format!("{} in flight", args.in_flight), r.conc_rate.text(0));
        println!("                     p50 {} us   p99 {} us", r.conc_p50_us.text(1), r.conc_p99_us.text(1));
        println!("  server start       {} ms (spawn to listening)", r.start_ms.text(1));
        println!("  initialize         {} ms", r.connect_ms.text(1));
        println!(
            "  server RSS after   {} MiB (after {} calls)",
            r.rss_after_mb.text(1),
            args.warmup + args.http_seq + args.http_concurrent
        );
        println!("  SIGTERM to exit    {} ms", r.stop_ms.text(1));
    }
    if let Some((rounds, r)) = &res.memory {
        let n = args.sessions;
        println!(" memory ({} rounds, HTTP server VmRSS)", rounds.len());
        println!("  at start           {} KB", r.rss_start_kb.text(0));
        println!("  1 session          {} KB", r.rss_one_kb.text(0));
        println!("  {:<18} {} KB", format!("{n} sessions"), r.rss_all_kb.text(0));
        println!("  per extra session  {} KB   (RSS_{n} - RSS_1) / {}", r.kb_per_session.text(1), n - 1);
    }

    println!();
    println!("reference figures measured earlier, not this run (rmcp, the official Rust SDK, same 2-core machine):");
    if !reference_workload(args) && (res.stdio.is_some() || res.http.is_some()) {
        println!("  (this run's payload / in-flight differ from the reference workload: 100 B, 64 in flight; ratios are indicative only)");
    }
    let seq_line = |label: &str, rmcp: f64, rmcp_p50: f64, rate: f64, p50: f64| {
        println!(
            "  {label:<20} rmcp {rmcp:>6.0} calls/s, p50 {rmcp_p50:>3.0} us   oxmcp/rmcp {:.2}x (p50 rmcp/oxmcp {:.2}x)   goal {GOAL:.1}x = {:.0} calls/s",
            rate / rmcp,
            rmcp_p50 / p50,
            GOAL * rmcp
        );
    };
    let conc_line = |label: &str, rmcp: f64, rate: f64| {
        println!(
            "  {label:<20} rmcp {rmcp:>6.0} calls/s                oxmcp/rmcp {:.2}x                           goal {GOAL:.1}x = {:.0} calls/s",
            rate / rmcp,
            GOAL * rmcp
        );
    };
    if let Some((_, r)) = &res.stdio {
        seq_line("stdio sequential", RMCP_SEQ_CALLS_PER_S, RMCP_SEQ_P50_US, r.seq_rate.median, r.seq_p50_us.median);
        conc_line("stdio 64 in flight", RMCP_CONC_CALLS_PER_S, r.conc_rate.median);
    }
    if let Some((_, r)) = &res.http {
        seq_line("http sequential", RMCP_HTTP_SEQ_CALLS_PER_S, RMCP_HTTP_SEQ_P50_US, r.seq_rate.median, r.seq_p50_us.median);
        conc_line("http 64 in flight", RMCP_HTTP_CONC_CALLS_PER_S, r.conc_rate.median);
    }
    if let Some((_, r)) = &res.memory {
        let kb = r.kb_per_session.median;
        println!(
            "  {:<20} rmcp {RMCP_HTTP_KB_PER_SESSION:>6.0} KB per extra session     oxmcp {kb:.1} KB = {:.2}x rmcp        goal < {GOAL_KB_PER_SESSION:.0} KB: {}",
            "http memory",
            kb / RMCP_HTTP_KB_PER_SESSION,
            if kb < GOAL_KB_PER_SESSION { "met" } else { "not met" }
        );
    }
}

fn calls_json(c: &workload::Calls) -> Value {
    json!({ "calls_per_s": c.rate(), "p50_us": c.us(0.50), "p99_us": c.us(0.99) })
}

fn print_json(args: &Args, res: &Results) {
    let stdio = res.stdio.as_ref();
    let stdio_rounds: Vec<Value> = stdio
        .map(|(rounds, _)| {
            rounds
                .iter()
                .map(|r| {
                    json!({
                        "connect_ms": r.connect.as_secs_f64() * 1e3,
                        "sequential": calls_json(&r.seq),
                        "concurrent": calls_json(&r.conc),
                        "large_p50_ms": quantile(&r.large_lat_ns, 0.50) / 1e6,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let stdio_summary = stdio.map(|(_, r)| {
        json!({
            "sequential": { "calls_per_s": r.seq_rate.json(), "p50_us": r.seq_p50_us.json(), "p99_us": r.seq_p99_us.json() },
            "concurrent": { "calls_per_s": r.conc_rate.json(), "p50_us": r.conc_p50_us.json(), "p99_us": r.conc_p99_us.json() },
            "large_round_trip_ms": if args.large_calls > 0 { r.large_ms.json() } else { Value::Null },
            "connect_ms": r.connect_ms.json(),
        })
    });
    let stdio_reference = stdio.map(|(_, r)| {
        json!({
            "note": "reference figures measured earlier, not this run: rmcp (official Rust SDK), same 2-core machine, 100 B payload, 64 in flight",
            "rmcp_sequential_calls_per_s": RMCP_SEQ_CALLS_PER_S,
            "rmcp_sequential_p50_us": RMCP_SEQ_P50_US,
            "rmcp_concurrent_calls_per_s": RMCP_CONC_CALLS_PER_S,
            "goal_ratio": GOAL,
            "sequential_ratio": r.seq_rate.median / RMCP_SEQ_CALLS_PER_S,
            "sequential_p50_speedup": RMCP_SEQ_P50_US / r.seq_p50_us.median,
            "concurrent_ratio": r.conc_rate.median / RMCP_CONC_CALLS_PER_S,
        })
    });
    let http = res.http.as_ref().map(|(rounds, r)| {
        json!({
            "summary": {
                "sequential": { "calls_per_s": r.seq_rate.json(), "p50_us": r.seq_p50_us.json(), "p99_us": r.seq_p99_us.json() },
                "concurrent": { "calls_per_s": r.conc_rate.json(), "p50_us": r.conc_p50_us.json(), "p99_us": r.conc_p99_us.json() },
                "server_start_ms": r.start_ms.json(),
                "connect_ms": r.connect_ms.json(),
                "server_rss_after_mib": r.rss_after_mb.json(),
                "server_stop_ms": r.stop_ms.json(),
            },
            "rounds": rounds.iter().map(|r| json!({
                "server_start_ms": r.start.as_secs_f64() * 1e3,
                "connect_ms": r.connect.as_secs_f64() * 1e3,
                "sequential": calls_json(&r.seq),
                "concurrent": calls_json(&r.conc),
                "server_rss_after_kb": r.rss_after_kb,
                "server_stop_ms": r.stop.as_secs_f64() * 1e3,
                "server_stderr_lines": r.server_stderr_lines,
            })).collect::<Vec<_>>(),
            "reference": {
                "note": "reference figures measured earlier, not this run: rmcp 3.9 over Streamable HTTP, same 2-core machine",
                "rmcp_sequential_calls_per_s": RMCP_HTTP_SEQ_CALLS_PER_S,
                "rmcp_sequential_p50_us": RMCP_HTTP_SEQ_P50_US,
                "rmcp_concurrent_calls_per_s": RMCP_HTTP_CONC_CALLS_PER_S,
                "goal_ratio": GOAL,
                "sequential_ratio": r.seq_rate.median / RMCP_HTTP_SEQ_CALLS_PER_S,
                "sequential_p50_speedup": RMCP_HTTP_SEQ_P50_US / r.seq_p50_us.median,
                "concurrent_ratio": r.conc_rate.median / RMCP_HTTP_CONC_CALLS_PER_S,
            },
        })
    });
    let memory = res.memory.as_ref().map(|(rounds, r)| {
        json!({
            "summary": {
                "rss_start_kb": r.rss_start_kb.json(),
                "rss_one_session_kb": r.rss_one_kb.json(),
                "rss_all_sessions_kb": r.rss_all_kb.json(),
                "kb_per_extra_session": r.kb_per_session.json(),
            },
            "rounds": rounds.iter().map(|r| json!({
                "rss_start_kb": r.rss_start_kb,
                "rss_one_session_kb": r.rss_one_kb,
                "rss_all_sessions_kb": r.rss_all_kb,
                "kb_per_extra_session": r.kb_per_session(),
                "open_fds": [r.fds_start, r.fds_one, r.fds_all],
                "open_extra_sessions_ms": r.open_extra.as_secs_f64() * 1e3,
                "server_stop_ms": r.stop.as_secs_f64() * 1e3,
            })).collect::<Vec<_>>(),
            "reference": {
                "note": "reference figure measured earlier, not this run: rmcp 3.9 over Streamable HTTP, same 2-core machine",
                "rmcp_kb_per_extra_session": RMCP_HTTP_KB_PER_SESSION,
                "goal_kb_per_session_below": GOAL_KB_PER_SESSION,
                "ratio_to_rmcp": r.kb_per_session.median / RMCP_HTTP_KB_PER_SESSION,
                "goal_met": r.kb_per_session.median < GOAL_KB_PER_SESSION,
            },
        })
    });
    let doc = json!({
        "benchmark": "oxmcp client -> oxmcp everything-server over stdio and Streamable HTTP",
        "config": {
            "server": args.server.display().to_string(),
            "client_runtime": runtime_name(args),
            "workloads": args.workloads.names(),
            "rounds": args.rounds,
            "payload_bytes": args.payload,
            "warmup_calls": args.warmup,
            "sequential_calls": args.seq,
            "concurrent_calls": args.concurrent,
            "http_sequential_calls": args.http_seq,
            "http_concurrent_calls": args.http_concurrent,
            "in_flight": args.in_flight,
            "large_calls": args.large_calls,
            "large_bytes": args.large_bytes,
            "sessions": args.sessions,
            "memory_rounds": args.memory_rounds,
            "settle_ms": args.settle_ms,
            "http_get_stream": args.get_stream,
        },
        "summary": stdio_summary,
        "rounds": stdio_rounds,
        "reference": stdio_reference,
        "http": http,
        "memory": memory,
    });
    println!("{}", serde_json::to_string_pretty(&doc).expect("a JSON value serializes"));
}

fn run(args: &Args, runtime: &tokio::runtime::Runtime) -> Result<Results, String> {
    let base = workload::base_payload(args.payload);
    let mut res = Results { stdio: None, http: None, memory: None };

    if args.workloads.stdio {
        let large = workload::base_payload(if args.large_calls > 0 { args.large_bytes } else { 0 });
        let p = StdioParams {
            server: &args.server,
            warmup: args.warmup,
            seq: args.seq,
            concurrent: args.concurrent,
            in_flight: args.in_flight,
            large_calls: args.large_calls,
        };
        let mut rounds = Vec::with_capacity(args.rounds);
        for i in 0..args.rounds {
            let round = runtime
                .block_on(stdio::run_round(&p, &base, &large))
                .map_err(|e| format!("stdio round {} failed: {e}", i + 1))?;
            eprintln!(
                "stdio round {}/{}: sequential {:.0} calls/s, {} in flight {:.0} calls/s",
                i + 1,
                args.rounds,
                round.seq.rate(),
                args.in_flight,
                round.conc.rate()
            );
            rounds.push(round);
        }
        let report = summarize_stdio(&rounds);
        res.stdio = Some((rounds, report));
    }

    if args.workloads.http {
        let p = HttpParams {
            server: &args.server,
            warmup: args.warmup,
            seq: args.http_seq,
            concurrent: args.http_concurrent,
            in_flight: args.in_flight,
            get_stream: args.get_stream,
            url: args.url.as_deref(),
        };
        let mut rounds = Vec::with_capacity(args.rounds);
        for i in 0..args.rounds {
            let round = runtime.block_on(http::run_round(&p, &base)).map_err(|e| format!("http round {} failed: {e}", i + 1))?;
            eprintln!(
                "http round {}/{}: sequential {:.0} calls/s (p50 {:.0} us), {} in flight {:.0} calls/s",
                i + 1,
                args.rounds,
                round.seq.rate(),
                round.seq.us(0.5),
                args.in_flight,
                round.conc.rate()
            );
            rounds.push(round);
        }
        let report = summarize_http(&rounds);
        res.http = Some((rounds, report));
    }

    if args.workloads.memory {
        let settle = Duration::from_millis(args.settle_ms);
        let mut rounds = Vec::with_capacity(args.memory_rounds);
        for i in 0..args.memory_rounds {
            let round = runtime
                .block_on(http::run_memory_round(&args.server, args.sessions, &base, settle, args.get_stream))
                .map_err(|e| format!("memory round {} failed: {e}", i + 1))?;
            eprintln!(
                "memory round {}/{}: RSS {} KB at start, {} KB with 1 session, {} KB with {}: {:.1} KB per extra session",
                i + 1,
                args.memory_rounds,
                round.rss_start_kb,
                round.rss_one_kb,
                round.rss_all_kb,
                args.sessions,
                round.kb_per_session()
            );
            rounds.push(round);
        }
        let report = summarize_memory(&rounds);
        res.memory = Some((rounds, report));
    }
    Ok(res)
}

fn main() -> ExitCode {
    // The cross-SDK suite's subcommands (bench/suite/PROTOCOL.md).
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    let sub = match argv.first().map(String::as_str) {
        Some("serve") => Some(suite::serve as fn(Vec<String>) -> Result<(), String>),
        Some("drive") => Some(suite::drive as fn(Vec<String>) -> Result<(), String>),
        Some("floor") => Some(suite::floor as fn(Vec<String>) -> Result<(), String>),
        Some("soak") => Some(soak::soak as fn(Vec<String>) -> Result<(), String>),
        Some("floor-server") => Some((|_| suite::floor_server()) as fn(Vec<String>) -> Result<(), String>),
        _ => None,
    };
    if let Some(run) = sub {
        argv.remove(0);
        // Telemetry as the standard variables say (off when none is set): what it costs on
        // is measured by running with OTEL_EXPORTER_OTLP_ENDPOINT set.
        let _telemetry = oxmcp::telemetry::Telemetry::from_env("oxmcp-bench").unwrap_or_else(|e| {
            eprintln!("telemetry: {e}");
            None
        });
        return match run(argv) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("oxmcp-bench: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let args = match parse_args_from(std::env::args().skip(1)) {
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

    let results = match run(&args, &runtime) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("oxmcp-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        print_json(&args, &results);
    } else {
        print_text(&args, &results);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args_from(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn only_selects_workloads() {
        let all = parse(&[]).unwrap().workloads;
        assert_eq!(all, Workloads { stdio: true, http: true, memory: true });
        let w = parse(&["--only", "http"]).unwrap().workloads;
        assert_eq!(w, Workloads { stdio: false, http: true, memory: false });
        let w = parse(&["--only", "stdio,memory"]).unwrap().workloads;
        assert_eq!(w, Workloads { stdio: true, http: false, memory: true });
        let w = parse(&["--only", "stdio", "--only", "http"]).unwrap().workloads;
        assert_eq!(w, Workloads { stdio: true, http: true, memory: false });
        assert!(parse(&["--only", "tcp"]).is_err());
        assert!(parse(&["--only", ""]).is_err());
    }

    #[test]
    fn numbers_and_defaults() {
        let a = parse(&["--http-seq", "1_500", "--sessions", "10"]).unwrap();
        assert_eq!((a.http_seq, a.http_concurrent, a.sessions, a.seq), (1500, 5000, 10, 2000));
        assert!(parse(&["--sessions", "1"]).is_err());
        assert!(parse(&["--only", "http", "--sessions", "1"]).is_ok(), "sessions only matter for memory");
    }
}
