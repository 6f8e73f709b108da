//! The stdio transport with real processes: the client spawns `oxmcp everything-server`,
//! a crashing child's exit status and stderr reach the user, closing escalates from stdin
//! EOF to SIGTERM to SIGKILL across the child's whole process group, and nothing is left
//! running.

use std::time::{Duration, Instant};

use oxmcp::client::Client;
use oxmcp::session::RequestOptions;
use oxmcp::transport::{ChildProcess, MessageWriter, Transport};
use oxmcp::ErrorKind;
use serde_json::json;

const OXMCP: &str = env!("CARGO_BIN_EXE_oxmcp");

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

async fn gone(pid: i32) -> bool {
    for _ in 0..200 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn client_talks_to_the_everything_server_and_close_reaps_it() {
    let transport = ChildProcess::new(OXMCP).args(["everything-server", "--stdio"]).spawn().unwrap();
    let pid = transport.pid() as i32;
    let client = Client::builder("t", "1").connect(transport).await.unwrap();
    let r = client.call_tool("echo", json!({"text": "über ✓"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("über ✓"));
    let started = Instant::now();
    client.close().await;
    assert!(started.elapsed() < Duration::from_secs(1), "a polite server exits on stdin EOF, no signal needed");
    assert!(gone(pid).await, "child {pid} still exists (zombie or running)");
}

#[tokio::test]
async fn a_crashing_server_reports_its_exit_status_and_stderr() {
    let transport = ChildProcess::new("sh")
        .args(["-c", "echo 'starting up' >&2; echo 'fatal: config file missing' >&2; exit 3"])
        .spawn()
        .unwrap();
    let err = Client::builder("t", "1").connect(transport).await.err().expect("initialize cannot succeed");
    assert_eq!(err.kind(), ErrorKind::Closed);
    let msg = err.message();
    assert!(msg.contains("exit status: 3"), "{msg}");
    assert!(msg.contains("fatal: config file missing"), "{msg}");
}

#[tokio::test]
async fn pending_requests_fail_at_once_when_the_server_dies() {
    let transport = ChildProcess::new(OXMCP).args(["everything-server", "--stdio"]).spawn().unwrap();
    let pid = transport.pid() as i32;
    let client = Client::builder("t", "1").connect(transport).await.unwrap();
    let killer = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        // SAFETY: killing the child we started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    };
    let started = Instant::now();
    let (r, _) = tokio::join!(client.call_tool_with("slow", json!({"tag": 1, "ms": 20_000}), RequestOptions::default()), killer);
    let err = r.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Closed);
    assert!(err.message().contains("signal: 9"), "{}", err.message());
    assert!(started.elapsed() < Duration::from_secs(5));
    client.close().await;
}

#[tokio::test]
async fn every_pending_call_fails_with_the_exit_status_and_stderr_when_the_server_crashes() {
    let transport = ChildProcess::new(OXMCP).args(["everything-server", "--stdio", "--with-crash-tool"]).spawn().unwrap();
    let client = Client::builder("t", "1").era(oxmcp::client::Era::Session).connect(transport).await.unwrap();
    let slow = |tag: u64| client.call_tool_with("slow", json!({"tag": tag, "ms": 20_000}), RequestOptions::default());
    let started = Instant::now();
    let (a, b, c, crash) = tokio::join!(slow(1), slow(2), slow(3), client.call_tool("crash", json!({"ms": 200})));
    for r in [a, b, c, crash] {
        let err = r.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Closed);
        assert!(err.message().contains("exit status: 3"), "{}", err.message());
        assert!(err.message().contains("fatal: crash requested"), "{}", err.message());
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(client.call_tool("echo", json!({"text": "x"})).await.unwrap_err().kind(), ErrorKind::Closed);
    client.close().await;
}

#[tokio::test]
async fn close_escalates_to_sigkill_for_the_whole_process_group() {
    let dir = std::env::temp_dir().join(format!("oxmcp-child-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("grandchild.pid");
    // A child that ignores stdin EOF and SIGTERM, with a grandchild of its own.
    let script = format!("trap '' TERM; sleep 60 & echo $! > {}; while true; do sleep 1; done", pidfile.display());
    let transport = ChildProcess::new("sh").args(["-c", &script]).grace_period(Duration::from_millis(200)).spawn().unwrap();
    let pid = transport.pid() as i32;
    let grandchild = loop {
        if let Ok(s) = std::fs::read_to_string(&pidfile) {
            if let Ok(p) = s.trim().parse::<i32>() {
                break p;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(alive(pid) && alive(grandchild));
    let (_reader, writer) = transport.split();
    let started = Instant::now();
    writer.close().await;
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(400), "waited a grace period after EOF and after SIGTERM ({took:?})");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(gone(pid).await, "child survived SIGKILL");
    assert!(gone(grandchild).await, "grandchild {grandchild} was orphaned");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn the_stdio_server_exits_on_stdin_eof_and_keeps_stdout_for_protocol() {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(OXMCP)
        .args(["everything-server", "--stdio"])
        .env("OXMCP_LOG", "debug")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}}\n")
        .await
        .unwrap();
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(5), child.wait_with_output()).await.expect("exits on EOF").unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    for line in stdout.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("stdout carries only JSON-RPC: {line:?}"));
        assert_eq!(v["jsonrpc"], "2.0");
    }
    assert!(!out.stderr.is_empty(), "debug logs go to stderr");
}
