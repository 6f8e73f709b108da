//! oxmcp Rust's side of the cross-SDK benchmark (`bench/suite/PROTOCOL.md`): the `serve`
//! server, the `drive` client driver, and the `floor-server` / `floor` pair that echoes
//! JSON lines over the same kind of pipe without any MCP logic.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use oxmcp::client::Client;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::Server;
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::transport::ChildProcess;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::workload;

/// CLOCK_MONOTONIC in nanoseconds: the clock every implementation's cancel log uses.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the live timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn append_line(path: &Path, line: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{line}");
    }
}

/// Takes `--name value` out of `args`.
/// Removes `name VALUE` from `args`; the value.
pub fn take(args: &mut Vec<String>, name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    if i + 1 >= args.len() {
        return None;
    }
    let value = args.remove(i + 1);
    args.remove(i);
    Some(value)
}

fn bench_server(cancel_log: Option<PathBuf>) -> Result<Server, String> {
    let echo_schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    Server::builder("oxmcp-bench-server", env!("CARGO_PKG_VERSION"))
        .tool(Tool::new("echo", "Echo the text back.", echo_schema), |args, _ctx| async move {
            Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
        })
        .tool(Tool::new("slow", "Wait until cancelled.", json!({"type": "object"})), move |_args, ctx| {
            let log = cancel_log.clone();
            async move {
                tokio::select! {
                    _ = ctx.cancelled() => {
                        let seen = monotonic_ns();
                        if let Some(path) = &log {
                            append_line(path, &seen.to_string());
                        }
                        Ok(CallToolResult::text("cancelled"))
                    }
                    _ = tokio::time::sleep(Duration::from_secs(60)) => Ok(CallToolResult::text("done")),
                }
            }
        })
        .build()
        .map_err(|e| e.to_string())
}

/// `oxmcp-bench serve --stdio|--http PORT [--cancel-log PATH]`.
pub fn serve(mut args: Vec<String>) -> Result<(), String> {
    let cancel_log = take(&mut args, "--cancel-log").map(PathBuf::from);
    let port = take(&mut args, "--http");
    let stdio = args.iter().any(|a| a == "--stdio");
    let server = bench_server(cancel_log)?;
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        if stdio {
            return server.serve_stdio().await.map_err(|e| e.to_string());
        }
        let port: u16 = port.ok_or("serve: --stdio or --http PORT")?.parse().map_err(|e| format!("--http: {e}"))?;
        let config = HttpServerConfig { bind: ([127, 0, 0, 1], port).into(), ..Default::default() };
        let http = HttpServer::bind(server, config).await.map_err(|e| e.to_string())?;
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map_err(|e| e.to_string())?;
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        http.shutdown().await;
        Ok(())
    })
}

struct DriveArgs {
    workload: String,
    n: usize,
    k: usize,
    payload: usize,
    warmup: usize,
    cancel_log: Option<PathBuf>,
    url: Option<String>,
    command: Vec<String>,
}

fn drive_args(mut args: Vec<String>) -> Result<DriveArgs, String> {
    let command = match args.iter().position(|a| a == "--") {
        Some(i) => {
            let rest = args.split_off(i);
            rest[1..].to_vec()
        }
        None => Vec::new(),
    };
    let num = |v: Option<String>, default: usize, name: &str| -> Result<usize, String> {
        v.map_or(Ok(default), |s| s.parse().map_err(|e| format!("{name}: {e}")))
    };
    let d = DriveArgs {
        workload: take(&mut args, "--workload").ok_or("drive: --workload is required")?,
        n: num(take(&mut args, "--n"), 1000, "--n")?,
        k: num(take(&mut args, "--k"), 64, "--k")?,
        payload: num(take(&mut args, "--payload"), 100, "--payload")?,
        warmup: num(take(&mut args, "--warmup"), 100, "--warmup")?,
        cancel_log: take(&mut args, "--cancel-log").map(PathBuf::from),
        url: take(&mut args, "--url"),
        command,
    };
    if d.url.is_none() && d.command.is_empty() {
        return Err("drive: give --url URL or -- SERVER_CMD ARG...".into());
    }
    Ok(d)
}

fn count_lines(path: &Path) -> Vec<u64> {
    std::fs::read_to_string(path).unwrap_or_default().lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// N cancellations of `slow`: the time from the client's cancel to the server handler
/// seeing it (read from the server's cancel log), in microseconds.
async fn cancel_latencies(client: &Client, n: usize, log: &Path) -> Result<Vec<f64>, String> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let before = count_lines(log).len();
        let token = CancellationToken::new();
        let call = client.call_tool_with("slow", json!({}), RequestOptions::default().cancel_token(token.clone()));
        tokio::pin!(call);
        // Let the request reach the handler first.
        if tokio::time::timeout(Duration::from_millis(50), &mut call).await.is_ok() {
            return Err("slow returned before it was cancelled".into());
        }
        let t0 = monotonic_ns();
        token.cancel();
        let _ = call.await;
        // Looked at 5 ms later: polling meanwhile would take a core from the server.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let lines = count_lines(log);
            if lines.len() > before {
                out.push(lines[before].saturating_sub(t0) as f64 / 1e3);
                break;
            }
            if Instant::now() > deadline {
                return Err("the server never logged the cancellation".into());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    Ok(out)
}

/// `oxmcp-bench drive --workload seq|conc|large|cancel --n N ... (--url URL | -- CMD ...)`.
pub fn drive(args: Vec<String>) -> Result<(), String> {
    let d = drive_args(args)?;
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    // The workload runs as a task on a runtime worker, as a tokio application's work does:
    // a response then reaches its caller in the worker that read it. (The `block_on`
    // thread is no worker: every response would wake it, a thread switch per call.)
    let out = rt
        .block_on(rt.spawn(async move {
            // The cross-SDK workloads are session-era (what every SDK speaks).
            let builder = Client::builder("oxmcp-bench-driver", env!("CARGO_PKG_VERSION")).era(oxmcp::client::Era::Session);
            let client = match &d.url {
                Some(url) => builder.connect(HttpClientTransport::new(url.clone())).await,
                None => {
                    let child = ChildProcess::new(&d.command[0]).args(&d.command[1..]).spawn().map_err(|e| e.to_string())?;
                    builder.connect(child).await
                }
            }
            .map_err(|e| format!("connect failed: {e}"))?;
            let client = Arc::new(client);
            let base = workload::base_payload(if d.workload == "large" { d.payload } else { d.payload.min(1 << 20) });
            let small = workload::base_payload(100.min(d.payload.max(10)));
            for i in 0..d.warmup {
                workload::echo(&client, &small, i).await?;
            }
            let out = match d.workload.as_str() {
                "seq" => {
                    let c = workload::sequential(&client, &base, d.n).await?;
                    json!({"calls": d.n, "seconds": c.elapsed.as_secs_f64(), "calls_per_s": c.rate()})
                }
                "conc" => {
                    let c = workload::concurrent(&client, &base, d.n, d.k).await?;
                    json!({"calls": d.n, "seconds": c.elapsed.as_secs_f64(), "calls_per_s": c.rate()})
                }
                "large" => {
                    let c = workload::sequential(&client, &base, d.n).await?;
                    json!({"calls": d.n, "median_ms": c.us(0.5) / 1e3})
                }
                "cancel" => {
                    let log = d.cancel_log.as_deref().ok_or("cancel: --cancel-log is required")?;
                    json!({"cancel_us": cancel_latencies(&client, d.n, log).await?})
                }
                other => return Err(format!("unknown workload {other:?}")),
            };
            if let Ok(client) = Arc::try_unwrap(client) {
                client.close().await;
            }
            Ok::<Value, String>(out)
        }))
        .map_err(|e| e.to_string())??;
    println!("{out}");
    Ok(())
}

/// `oxmcp-bench floor-server`: echoes every line of stdin to stdout. The cost of the
/// pipe and of reading and writing a line, without any MCP.
pub fn floor_server() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        writeln!(out, "{line}").and_then(|()| out.flush()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `oxmcp-bench floor --n N [--payload BYTES] -- SERVER_CMD ...`: N JSON lines written one
/// at a time, each read back and checked.
pub fn floor(mut args: Vec<String>) -> Result<(), String> {
    let command = match args.iter().position(|a| a == "--") {
        Some(i) => args.split_off(i)[1..].to_vec(),
        None => return Err("floor: -- SERVER_CMD is required".into()),
    };
    let n: usize = take(&mut args, "--n").map_or(Ok(1000), |s| s.parse()).map_err(|e| format!("--n: {e}"))?;
    let payload: usize = take(&mut args, "--payload").map_or(Ok(100), |s| s.parse()).map_err(|e| format!("--payload: {e}"))?;
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut to = child.stdin.take().ok_or("no stdin")?;
    let mut from = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let base = workload::base_payload(payload);
    let mut line = String::new();
    let started = Instant::now();
    for i in 0..n {
        let msg =
            json!({"jsonrpc": "2.0", "id": i, "method": "echo", "params": {"text": workload::payload_for(&base, i)}}).to_string();
        writeln!(to, "{msg}").and_then(|()| to.flush()).map_err(|e| e.to_string())?;
        line.clear();
        from.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.trim_end() != msg {
            return Err(format!("floor: line {i} came back different"));
        }
    }
    let secs = started.elapsed().as_secs_f64();
    drop(to);
    let _ = child.wait();
    println!("{}", json!({"calls": n, "seconds": secs, "calls_per_s": n as f64 / secs}));
    Ok(())
}
