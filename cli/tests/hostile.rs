//! The `oxmcp` command against what a careless user and a hostile peer do: signals at any
//! moment, a client killed outright, a server that exits at once, a reader that closes
//! its pipe early, HTTP clients that hang up before the answer, and a session that asks
//! for another session's stream.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{Listening, OXMCP};

/// A server that never answers, ignores stdin EOF, SIGTERM, SIGINT and SIGHUP, and has a
/// child of its own that ignores them too; both write their pids into `dir`.
fn stubborn_server(dir: &Path) -> Vec<String> {
    let script = format!(
        "trap '' TERM INT HUP; sleep 1000 & echo $! > {d}/grandchild; echo $$ > {d}/server; while :; do sleep 1; done",
        d = dir.display()
    );
    vec!["sh".into(), "-c".into(), script]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxmcp-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_pid(dir: &Path, name: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(s) = std::fs::read_to_string(dir.join(name)) {
            if let Ok(pid) = s.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "the server never wrote {name}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Running (a zombie waiting for its reaper counts as gone).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn gone_within(pid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if !running(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: signalling a process this test started.
    unsafe { libc::kill(pid as i32, sig) };
}

fn wait_within(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("oxmcp did not exit in {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `oxmcp ARGS... SERVER...` against the stubborn server, once the server runs.
fn start_against_stubborn(args: &[&str], dir: &Path) -> (Child, i32, i32) {
    let child =
        Command::new(OXMCP).args(args).args(stubborn_server(dir)).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let (server, grandchild) = (read_pid(dir, "server"), read_pid(dir, "grandchild"));
    (child, server, grandchild)
}

#[test]
fn a_signal_during_connect_ends_the_child_servers_whole_group_in_every_subcommand() {
    let cases: [(&[&str], i32, i32); 5] = [
        (&["inspect", "--"], libc::SIGINT, 130),
        (&["call", "echo", "{}", "--"], libc::SIGINT, 130),
        (&["read", "test://x"], libc::SIGINT, 130),
        (&["prompt", "p", "--"], libc::SIGTERM, 143),
        (&["inspect"], libc::SIGHUP, 129),
    ];
    for (i, (args, sig, code)) in cases.into_iter().enumerate() {
        let dir = scratch(&format!("signal-{i}"));
        let (mut oxmcp, server, grandchild) = start_against_stubborn(args, &dir);
        std::thread::sleep(Duration::from_millis(200)); // connecting: initialize is unanswered
        signal(oxmcp.id(), sig);
        let status = wait_within(&mut oxmcp, Duration::from_secs(5));
        assert_eq!(status.code(), Some(code), "{args:?}");
        assert!(gone_within(server, Duration::from_secs(5)), "{args:?}: the server {server} outlived the command");
        assert!(
            gone_within(grandchild, Duration::from_secs(5)),
            "{args:?}: the server's child {grandchild} outlived the command"
        );
    }
}

#[test]
fn a_killed_client_takes_its_child_servers_group_with_it() {
    let dir = scratch("sigkill");
    let (mut oxmcp, server, grandchild) = start_against_stubborn(&["inspect"], &dir);
    std::thread::sleep(Duration::from_millis(200));
    signal(oxmcp.id(), libc::SIGKILL);
    wait_within(&mut oxmcp, Duration::from_secs(5));
    // SIGTERM first (ignored here), SIGKILL two seconds later.
    assert!(gone_within(server, Duration::from_secs(6)), "the server {server} outlived its killed client");
    assert!(gone_within(grandchild, Duration::from_secs(6)), "the server's child {grandchild} outlived its killed client");
}

#[test]
fn a_server_that_exits_at_once_is_reported_every_time() {
    for _ in 0..30 {
        let out = Command::new(OXMCP).args(["inspect", "--", "sh", "-c", "echo boom >&2; exit 3"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{:?} {stderr}", out.status);
        assert!(stderr.contains("exit status: 3") && stderr.contains("boom"), "{stderr}");
    }
}

#[test]
fn a_reader_that_closes_stdout_early_ends_the_command_quietly() {
    let mut oxmcp = Command::new(OXMCP)
        .args(["inspect", OXMCP, "everything-server", "--stdio"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(oxmcp.stdout.take()); // like `| head -0`: every write to stdout fails
    let status = wait_within(&mut oxmcp, Duration::from_secs(20));
    let mut stderr = String::new();
    oxmcp.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{status:?} {stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn the_server_may_follow_the_subcommand_without_a_double_dash() {
    let run = |args: &[&str]| {
        let out = Command::new(OXMCP).args(args).args([OXMCP, "everything-server", "--stdio"]).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(run(&["inspect"]).contains("tools ("));
    assert!(run(&["inspect", "--"]).contains("tools ("));
    assert_eq!(run(&["call", "echo", r#"{"text": "a"}"#]).trim(), "a");
    assert_eq!(run(&["call", "echo", r#"{"text": "b"}"#, "--"]).trim(), "b");
    assert!(run(&["call", "test_simple_text"]).contains("simple text"));
    assert!(run(&["read", "test://static-text"]).contains("static text"));
    assert!(run(&["prompt", "test_prompt_with_arguments", r#"{"arg1": "x", "arg2": "y"}"#]).contains("arg1='x'"));
    assert!(run(&["prompt", "test_simple_prompt", "--"]).contains("simple prompt"));
}

/// The `host:port` a listening command serves.
fn addr_of(server: &Listening) -> String {
    server.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string()
}

/// One request on a connection of its own; the whole answer.
fn request(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// A new session, initialized; its id.
fn session(addr: &str) -> String {
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let answer = request(addr, "POST", &[], init);
    let sid = answer.lines().find_map(|l| l.strip_prefix("mcp-session-id: ")).expect("a session id").trim().to_string();
    request(addr, "POST", &[("mcp-session-id", &sid)], r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    sid
}

#[test]
fn http_servers_survive_clients_that_hang_up_before_the_answer() {
    let proxy = ["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"];
    for args in [&["everything-server", "--http", "127.0.0.1:0"][..], &proxy[..]] {
        let mut server = Listening::start(args);
        let addr = addr_of(&server);
        let sid = session(&addr);
        for i in 0..100 {
            let mut s = TcpStream::connect(&addr).unwrap();
            let tool = if i % 2 == 0 { "echo" } else { "test_tool_with_progress" };
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"text":"{}"}}}}}}"#,
                i + 1,
                "x".repeat(1000)
            );
            let req = format!(
                "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {sid}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n{body}",
                addr,
                body.len()
            );
            s.write_all(req.as_bytes()).unwrap();
            drop(s); // hang up without reading
        }
        std::thread::sleep(Duration::from_millis(1500)); // the answers are written (or not) by now
        assert!(server.child.try_wait().unwrap().is_none(), "{args:?} died");
        let answer = request(
            &addr,
            "POST",
            &[("mcp-session-id", &sid), ("mcp-protocol-version", "2025-11-25")],
            r#"{"jsonrpc":"2.0","id":999,"method":"ping"}"#,
        );
        assert!(answer.starts_with("HTTP/1.1 200"), "{args:?}: {answer}");
    }
}

#[test]
fn a_session_cannot_resume_another_sessions_stream_through_the_proxy() {
    let server = Listening::start(&["proxy", "--http", "127.0.0.1:0", "--", OXMCP, "everything-server", "--stdio"]);
    let addr = addr_of(&server);
    let (victim, attacker) = (session(&addr), session(&addr));
    let v = [("mcp-session-id", victim.as_str()), ("mcp-protocol-version", "2025-11-25")];
    // A call whose answer is stored for resumption after the priming event's id.
    let first = request(
        &addr,
        "POST",
        &v,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"secret"}}}"#,
    );
    assert!(first.contains("secret"), "{first}");
    let last = first.lines().find_map(|l| l.strip_prefix("id: ")).expect("an event id").trim().to_string();
    let a = [("mcp-session-id", attacker.as_str()), ("mcp-protocol-version", "2025-11-25"), ("last-event-id", last.as_str())];
    let stolen = request(&addr, "GET", &a, "");
    assert!(stolen.starts_with("HTTP/1.1 404"), "{stolen}");
    assert!(!stolen.contains("secret"), "{stolen}");
    let own = [("mcp-session-id", victim.as_str()), ("mcp-protocol-version", "2025-11-25"), ("last-event-id", last.as_str())];
    let resumed = request(&addr, "GET", &own, "");
    assert!(resumed.contains("secret"), "the owner replays it: {resumed}");
}
