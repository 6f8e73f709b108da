//! `oxmcp-bench soak`: a long run against one suite server (bench/suite/PROTOCOL.md) with
//! random cancels, timeouts and, over HTTP, connections dropped before the answer. It
//! samples the server's resident memory through the run and counts every error the
//! client did not cause; `bench/soak.sh` runs it against the Rust, Python and Node servers.
//!
//! ```text
//! oxmcp-bench soak [--calls N] [--k K] [--seed S] (--url URL --pid PID | -- SERVER_CMD ARG...)
//! ```
//! One line of JSON on stdout: calls, what was done, `unexpected` errors (with the first
//! few), calls/s, and RSS in KiB at 10%, after warm-up (25% of the calls), at 50% and 75%,
//! at the end and at most.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp::client::{Client, Era};
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::HttpClientTransport;
use oxmcp::transport::ChildProcess;
use oxmcp::ErrorKind;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::workload;

struct Args {
    calls: u64,
    k: usize,
    seed: u64,
    url: Option<String>,
    pid: Option<u32>,
    command: Vec<String>,
}

fn args(mut a: Vec<String>) -> Result<Args, String> {
    let mut take = |name: &str| crate::suite::take(&mut a, name);
    let num = |v: Option<String>, default: u64| v.map_or(Ok(default), |s| s.parse::<u64>().map_err(|e| format!("{s}: {e}")));
    let calls = num(take("--calls"), 1_000_000)?;
    let k = num(take("--k"), 16)? as usize;
    let seed = num(take("--seed"), 7)?;
    let url = take("--url");
    let pid = take("--pid").map(|p| p.parse::<u32>().map_err(|e| format!("--pid {p}: {e}"))).transpose()?;
    let command = match a.iter().position(|x| x == "--") {
        Some(i) => a.split_off(i + 1),
        None => Vec::new(),
    };
    if url.is_some() != pid.is_some() || url.is_some() != command.is_empty() {
        return Err("give --url URL --pid PID, or -- SERVER_CMD ARG...".into());
    }
    Ok(Args { calls, k: k.max(1), seed, url, pid, command })
}

/// A small, seeded generator (SplitMix64): the same run for the same seed.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The server under a supervisor (oxmcp's child processes on Linux): its only child.
fn server_of(pid: u32) -> u32 {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()
        .and_then(|c| c.split_whitespace().next().and_then(|p| p.parse().ok()))
        .unwrap_or(pid)
}

#[derive(Default)]
struct Tally {
    echo: AtomicU64,
    cancelled: AtomicU64,
    timed_out: AtomicU64,
    dropped: AtomicU64,
    unexpected: AtomicU64,
    first_errors: Mutex<Vec<String>>,
}

impl Tally {
    fn unexpected(&self, what: String) {
        self.unexpected.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_errors.lock().unwrap();
        if first.len() < 5 {
            first.push(what);
        }
    }
}

/// An HTTP client that hangs up: POSTs `echo` on a session of its own and closes the
/// connection without reading the answer.
struct HangUp {
    addr: String,
    session: String,
}

impl HangUp {
    async fn open(url: &str) -> Result<HangUp, String> {
        let addr = url.trim_start_matches("http://").split('/').next().unwrap_or_default().to_string();
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
        let answer = raw_exchange(&addr, None, init, true).await?;
        let session = answer
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id: ").map(|s| s.trim().to_string()))
            .ok_or_else(|| format!("no session id in {answer:?}"))?;
        raw_exchange(&addr, Some(&session), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, true).await?;
        Ok(HangUp { addr, session })
    }

    async fn call(&self, i: u64) -> Result<(), String> {
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": format!("hang-up {i}")}}});
        raw_exchange(&self.addr, Some(&self.session), &body.to_string(), false).await.map(drop)
    }
}

async fn raw_exchange(addr: &str, session: Option<&str>, body: &str, read: bool) -> Result<String, String> {
    let mut s = tokio::net::TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let session = session.map(|id| format!("mcp-session-id: {id}\r\nmcp-protocol-version: 2025-11-25\r\n")).unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{session}content-length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
    if !read {
        return Ok(String::new()); // dropping the socket hangs up
    }
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), tokio::io::AsyncReadExt::read_to_end(&mut s, &mut out)).await;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `oxmcp-bench soak ...` (see the module comment).
pub fn soak(raw: Vec<String>) -> Result<(), String> {
    let a = args(raw)?;
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let out = rt.block_on(async move {
        let builder = Client::builder("oxmcp-soak", env!("CARGO_PKG_VERSION")).era(Era::Session);
        let (client, pid, hang_up) = match &a.url {
            Some(url) => {
                let client = builder.connect(HttpClientTransport::new(url.clone())).await.map_err(|e| format!("connect: {e}"))?;
                (client, a.pid.unwrap(), Some(HangUp::open(url).await?))
            }
            None => {
                let child = ChildProcess::new(&a.command[0]).args(&a.command[1..]).spawn().map_err(|e| e.to_string())?;
                let pid = server_of(child.pid());
                (builder.connect(child).await.map_err(|e| format!("connect: {e}"))?, pid, None)
            }
        };
        let client = Arc::new(client);
        let hang_up = Arc::new(hang_up);
        let tally = Arc::new(Tally::default());
        let next = Arc::new(AtomicU64::new(0));
        let samples = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
        let base = workload::base_payload(100);
        let started = Instant::now();
        let sampler = {
            let (next, samples) = (next.clone(), samples.clone());
            tokio::spawn(async move {
                loop {
                    if let Some(kib) = rss_kib(pid) {
                        samples.lock().unwrap().push((next.load(Ordering::Relaxed), kib));
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            })
        };
        let mut workers = Vec::new();
        for _ in 0..a.k {
            let (client, hang_up, tally, next, base) =
                (client.clone(), hang_up.clone(), tally.clone(), next.clone(), base.clone());
            let (calls, seed) = (a.calls, a.seed);
            workers.push(tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= calls {
                        break;
                    }
                    let roll = mix(seed ^ i) % 1000;
                    match roll {
                        // 4%: cancelled by dropping the call a moment after it starts.
                        0..40 => {
                            let wait = Duration::from_micros(mix(i) % 3000);
                            let call = client.call_tool_with("slow", json!({}), RequestOptions::default());
                            tokio::select! {
                                r = call => tally.unexpected(format!("slow call {i} ended on its own: {r:?}")),
                                _ = tokio::time::sleep(wait) => { tally.cancelled.fetch_add(1, Ordering::Relaxed); }
                            }
                        }
                        // 4%: a timeout of 1-5 ms.
                        40..80 => {
                            let options = RequestOptions::default().timeout(Duration::from_millis(1 + mix(i) % 5));
                            match client.call_tool_with("slow", json!({}), options).await {
                                Err(e) if e.kind() == ErrorKind::Timeout => {
                                    tally.timed_out.fetch_add(1, Ordering::Relaxed);
                                }
                                other => tally.unexpected(format!("slow call {i} with a timeout: {other:?}")),
                            }
                        }
                        // 2% over HTTP: a connection dropped before the answer.
                        80..100 if hang_up.is_some() => match hang_up.as_ref().as_ref().unwrap().call(i).await {
                            Ok(()) => {
                                tally.dropped.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(e) => tally.unexpected(format!("hang-up call {i}: {e}")),
                        },
                        _ => match workload::echo(&client, &base, i as usize).await {
                            Ok(()) => {
                                tally.echo.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(e) => tally.unexpected(e),
                        },
                    }
                }
            }));
        }
        for w in workers {
            w.await.map_err(|e| e.to_string())?;
        }
        let seconds = started.elapsed().as_secs_f64();
        tokio::time::sleep(Duration::from_millis(500)).await; // the last cancels land
        let end = rss_kib(pid);
        sampler.abort();
        let samples = samples.lock().unwrap().clone();
        let at = |fraction: u64| samples.iter().find(|(at, _)| *at >= a.calls * fraction / 100).map(|(_, kib)| *kib);
        // A quarter of the run warms up: the JIT and the garbage collectors of the Python
        // and Node hosts settle on their heap sizes well after the first tenth.
        let warm = at(25);
        let max = samples.iter().map(|(_, kib)| *kib).max();
        if let Ok(client) = Arc::try_unwrap(client) {
            client.close().await;
        }
        Ok::<Value, String>(json!({
            "calls": a.calls,
            "echo": tally.echo.load(Ordering::Relaxed),
            "cancelled": tally.cancelled.load(Ordering::Relaxed),
            "timed_out": tally.timed_out.load(Ordering::Relaxed),
            "dropped_connections": tally.dropped.load(Ordering::Relaxed),
            "unexpected": tally.unexpected.load(Ordering::Relaxed),
            "first_unexpected": *tally.first_errors.lock().unwrap(),
            "calls_per_s": a.calls as f64 / seconds,
            "rss_kib": {"at_10": at(10), "after_warmup": warm, "at_50": at(50), "at_75": at(75), "end": end, "max": max},
            "rss_growth_kib": match (warm, end) { (Some(w), Some(e)) => json!(e as i64 - w as i64), _ => Value::Null },
        }))
    })?;
    println!("{out}");
    Ok(())
}
