//! The benchmark client driver on rmcp's client: `TokioChildProcess` for stdio,
//! `StreamableHttpClientTransport` for Streamable HTTP, `RunningService::call_tool` for the
//! checked `echo` calls, and `Peer::send_cancellable_request` + `RequestHandle::cancel`
//! (which sends `notifications/cancelled`) for the cancellation workload.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientConfig, ClientRequest, JsonObject};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ClientConfig>;

#[derive(Clone, Copy, PartialEq)]
enum Workload {
    Seq,
    Conc,
    Large,
    Cancel,
}

pub struct Options {
    workload: Workload,
    n: usize,
    k: usize,
    payload: usize,
    warmup: usize,
    cancel_log: Option<PathBuf>,
    target: Target,
}

enum Target {
    Url(String),
    Command(Vec<String>),
}

impl Options {
    pub fn parse(mut args: impl Iterator<Item = String>) -> Result<Self, String> {
        fn number(v: Option<String>, flag: &str) -> Result<usize, String> {
            let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
            v.parse().map_err(|_| format!("{flag}: not a number: {v:?}"))
        }
        let (mut workload, mut n) = (None, None);
        let (mut k, mut payload, mut warmup) = (64, 100, 100);
        let mut cancel_log = None;
        let mut target = None;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--workload" => {
                    workload = Some(match args.next().as_deref() {
                        Some("seq") => Workload::Seq,
                        Some("conc") => Workload::Conc,
                        Some("large") => Workload::Large,
                        Some("cancel") => Workload::Cancel,
                        other => return Err(format!("unknown workload {other:?}")),
                    })
                }
                "--n" => n = Some(number(args.next(), "--n")?),
                "--k" => k = number(args.next(), "--k")?,
                "--payload" => payload = number(args.next(), "--payload")?,
                "--warmup" => warmup = number(args.next(), "--warmup")?,
                "--cancel-log" => cancel_log = Some(PathBuf::from(args.next().ok_or("--cancel-log needs a PATH")?)),
                "--url" => target = Some(Target::Url(args.next().ok_or("--url needs a URL")?)),
                "--" => {
                    let cmd: Vec<String> = args.by_ref().collect();
                    if cmd.is_empty() {
                        return Err("no server command after --".into());
                    }
                    target = Some(Target::Command(cmd));
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        let workload = workload.ok_or("--workload is required")?;
        if workload == Workload::Cancel && cancel_log.is_none() {
            return Err("the cancel workload needs --cancel-log".into());
        }
        Ok(Options {
            workload,
            n: n.ok_or("--n is required")?,
            k: k.max(1),
            payload,
            warmup,
            cancel_log,
            target: target.ok_or("one of --url URL or -- SERVER_CMD is required")?,
        })
    }
}

pub fn run(opts: Options) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the tokio runtime: {e}"))?;
    // The workload runs as a task on a runtime worker, as in the oxmcp Rust driver: a
    // response then reaches its caller without waking the `block_on` thread.
    runtime.block_on(runtime.spawn(drive(opts))).map_err(|e| e.to_string())?
}

async fn connect(target: &Target) -> Result<Client, String> {
    match target {
        Target::Command(cmd) => {
            let command = tokio::process::Command::new(&cmd[0]).configure(|c| {
                c.args(&cmd[1..]);
            });
            let transport = TokioChildProcess::new(command).map_err(|e| format!("cannot spawn {:?}: {e}", cmd[0]))?;
            ClientConfig::default().serve(transport).await.map_err(|e| format!("stdio initialization failed: {e}"))
        }
        Target::Url(url) => {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            ClientConfig::default().serve(transport).await.map_err(|e| format!("HTTP initialization at {url} failed: {e}"))
        }
    }
}

async fn drive(opts: Options) -> Result<(), String> {
    let client = Arc::new(connect(&opts.target).await?);
    let outcome = workload(&client, &opts).await;
    // Close the session (for stdio: close the child's stdin and wait for it to exit).
    if let Ok(client) = Arc::try_unwrap(client) {
        let _ = client.cancel().await;
    }
    println!("{}", outcome?);
    Ok(())
}

async fn workload(client: &Arc<Client>, opts: &Options) -> Result<Value, String> {
    // Warm-up calls carry 100 bytes whatever the workload's payload (as the other drivers
    // do) and call numbers past any the workload uses, so every text differs.
    let warm_base = base_payload(opts.payload.clamp(16, 100));
    for i in 0..opts.warmup {
        echo(client, &warm_base, 1_000_000_000 + i).await?;
    }
    match opts.workload {
        Workload::Seq => {
            let base = base_payload(opts.payload);
            let started = Instant::now();
            for i in 0..opts.n {
                echo(client, &base, i).await?;
            }
            Ok(rate(opts.n, started.elapsed()))
        }
        Workload::Conc => {
            // K tasks share the one client (and so the one connection), each starting its
            // next call as soon as its previous one returns.
            let base = Arc::new(base_payload(opts.payload));
            let next = Arc::new(AtomicUsize::new(0));
            let n = opts.n;
            let started = Instant::now();
            let tasks: Vec<_> = (0..opts.k.min(n.max(1)))
                .map(|_| {
                    let (client, base, next) = (client.clone(), base.clone(), next.clone());
                    tokio::spawn(async move {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= n {
                                return Ok::<(), String>(());
                            }
                            echo(&client, &base, i).await?;
                        }
                    })
                })
                .collect();
            let mut failure = None;
            for task in tasks {
                match task.await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        failure.get_or_insert(e);
                    }
                    Err(e) => {
                        failure.get_or_insert(format!("a concurrent loop failed: {e}"));
                    }
                }
            }
            if let Some(e) = failure {
                return Err(e);
            }
            Ok(rate(opts.n, started.elapsed()))
        }
        Workload::Large => {
            let base = base_payload(opts.payload);
            let mut ms = Vec::with_capacity(opts.n);
            for i in 0..opts.n {
                let t = Instant::now();
                echo(client, &base, i).await?;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            Ok(json!({"calls": opts.n, "median_ms": median(&mut ms)}))
        }
        Workload::Cancel => {
            let log = opts.cancel_log.as_deref().expect("checked when parsing");
            let mut us = Vec::with_capacity(opts.n);
            for round in 0..opts.n {
                us.push(cancel_once(client, log, round).await?);
            }
            Ok(json!({"cancel_us": us}))
        }
    }
}

fn rate(n: usize, elapsed: Duration) -> Value {
    let s = elapsed.as_secs_f64();
    json!({"calls": n, "seconds": s, "calls_per_s": n as f64 / s})
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Length of the call number written at the start of every payload.
const TAG: usize = 10;

/// `len` bytes of printable ASCII.
fn base_payload(len: usize) -> String {
    (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect()
}

/// The text call `i` sends: the call number, zero-padded, over the start of the base.
fn payload_for(base: &str, i: usize) -> String {
    let number = format!("{i:0TAG$}");
    if base.len() >= number.len() {
        let mut s = String::with_capacity(base.len());
        s.push_str(&number);
        s.push_str(&base[number.len()..]);
        s
    } else {
        number[number.len() - base.len()..].to_owned()
    }
}

/// One `echo` call whose reply must be exactly the text sent.
async fn echo(client: &Client, base: &str, i: usize) -> Result<(), String> {
    let text = payload_for(base, i);
    let mut args = JsonObject::new();
    args.insert("text".into(), Value::String(text.clone()));
    let result = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
        .await
        .map_err(|e| format!("echo call {i} failed: {e}"))?;
    if result.is_error == Some(true) {
        return Err(format!("echo call {i} returned an error result: {:?}", result.content));
    }
    match result.content.as_slice() {
        [block] => match block.as_text() {
            Some(t) if t.text == text => Ok(()),
            Some(t) => Err(format!(
                "echo call {i}: reply differs from what was sent ({} bytes sent, {} received)",
                text.len(),
                t.text.len()
            )),
            None => Err(format!("echo call {i}: the reply is not a text block")),
        },
        other => Err(format!("echo call {i}: expected one content block, got {}", other.len())),
    }
}

/// Lines in the cancel log so far (a missing file has none).
fn log_lines(path: &Path) -> Result<Vec<u64>, String> {
    match std::fs::read_to_string(path) {
        Ok(s) => s
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.trim().parse().map_err(|_| format!("bad line in {}: {l:?}", path.display())))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// One cancellation: start `slow`, wait 50 ms, cancel it through rmcp's request handle,
/// and return the microseconds from the cancel to the server handler's log line.
async fn cancel_once(client: &Client, log: &Path, round: usize) -> Result<f64, String> {
    let before = log_lines(log)?.len();
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("slow").with_arguments(JsonObject::new()),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| format!("cancel round {round}: slow call failed: {e}"))?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t0 = crate::monotonic_ns();
    handle.cancel(Some("benchmark cancel".into())).await.map_err(|e| format!("cancel round {round}: cancel failed: {e}"))?;
    // Looked at 5 ms later: polling meanwhile would take a core from the server.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let lines = log_lines(log)?;
        if lines.len() > before {
            let at = lines[before];
            return Ok((at as f64 - t0 as f64) / 1e3);
        }
        if Instant::now() >= deadline {
            return Err(format!("cancel round {round}: the server did not log its cancellation in {} within 5 s", log.display()));
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
