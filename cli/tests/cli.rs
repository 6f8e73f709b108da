//! The `oxmcp` command as a user runs it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::Listening;

const OXMCP: &str = env!("CARGO_BIN_EXE_oxmcp");

fn oxmcp(args: &[&str]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", OXMCP, "everything-server", "--stdio"]);
    Command::new(OXMCP).args(&all).output().unwrap()
}

#[test]
fn the_client_commands_pick_the_era_or_take_it_from_oxmcp_era() {
    let version = |era: Option<&str>| {
        let mut cmd = Command::new(OXMCP);
        cmd.args(["inspect", "--json", "--", OXMCP, "everything-server", "--stdio"]);
        if let Some(era) = era {
            cmd.env("OXMCP_ERA", era);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["protocolVersion"].as_str().unwrap().to_string()
    };
    assert_eq!(version(None), "2026-07-28", "the everything server speaks both eras: the newer wins");
    assert_eq!(version(Some("session")), "2025-11-25");
}

#[test]
fn era_flag_picks_the_era_and_a_bad_era_is_refused() {
    let inspect = |flags: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(OXMCP);
        cmd.arg("inspect").args(flags).args(["--json", "--", OXMCP, "everything-server", "--stdio"]);
        if let Some(era) = env {
            cmd.env("OXMCP_ERA", era);
        }
        cmd.output().unwrap()
    };
    let out = inspect(&["--era", "session"], Some("stateless"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["protocolVersion"], "2025-11-25", "the flag wins over OXMCP_ERA");
    for (flags, env) in [(&["--era", "sesion"][..], None), (&[][..], Some("sesion"))] {
        let out = inspect(flags, env);
        assert_eq!(out.status.code(), Some(2), "a bad era is a usage error, not ignored");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("unknown era \"sesion\"") && stderr.contains("OXMCP_ERA"), "{stderr}");
    }
}

#[test]
fn inspect_json_lists_every_fixture() {
    let out = oxmcp(&["inspect", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["serverInfo"]["name"], "oxmcp-everything");
    let names = |key: &str, field: &str| -> Vec<String> {
        doc[key].as_array().unwrap().iter().map(|t| t[field].as_str().unwrap().to_string()).collect()
    };
    let tools = names("tools", "name");
    for expected in [
        "echo",
        "slow",
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_tool_with_progress",
        "test_error_handling",
        "test_sampling",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
        "json_schema_2020_12_tool",
        "test_reconnection",
        // The stateless era's multi round-trip fixtures.
        "test_input_required_result_elicitation",
        "test_input_required_result_multi_round",
        "test_missing_capability",
    ] {
        assert!(tools.contains(&expected.to_string()), "missing tool {expected}");
    }
    // The skills' SKILL.md files are listed as resources too (the skills extension).
    assert_eq!(
        names("resources", "uri"),
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "skill://pdf-processing/SKILL.md",
            "skill://acme/billing/refunds/SKILL.md"
        ]
    );
    assert_eq!(names("resourceTemplates", "uriTemplate"), ["test://template/{id}/data"]);
    assert_eq!(
        names("prompts", "name"),
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt"
        ]
    );
}

#[test]
fn call_prints_results_progress_and_uses_exit_codes() {
    let out = oxmcp(&["call", "test_tool_with_progress"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("progress 0/100") && stderr.contains("progress 50/100") && stderr.contains("progress 100/100"),
        "{stderr}"
    );

    let out = oxmcp(&["call", "--json", "echo", r#"{"text":"hello"}"#]);
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["content"][0]["text"], "hello");

    let out = oxmcp(&["call", "test_error_handling"]);
    assert_eq!(out.status.code(), Some(2), "isError results exit with 2");
    let out = oxmcp(&["call", "no_such_tool"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tool"));
}

#[test]
fn ctrl_c_cancels_the_call() {
    let child = Command::new(OXMCP)
        .args(["call", "slow", r#"{"tag": 9, "ms": 20000}"#, "--", OXMCP, "everything-server", "--stdio"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    // SAFETY: interrupting the child we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "cancel is prompt");
    assert_eq!(out.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cancelled"));
}

/// Runs the CLI with `input` on its stdin.
fn oxmcp_with_input(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child =
        Command::new(OXMCP).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn call_takes_key_value_arguments_typed_by_the_tools_schema() {
    let out = oxmcp(&["call", "--json", "slow", "tag=7", "ms=0"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // `slow` types both as integers: sent as numbers, it answers with the tag.
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(result.to_string().contains('7'), "{result}");
    // A string property keeps the text as typed, even when it reads as a number.
    let out = oxmcp(&["call", "echo", "text=007"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "007");
    let out = oxmcp(&["call", "slow", "tag=seven", "ms=0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected integer"));
}

#[test]
fn servers_come_from_a_config_file_with_their_environment() {
    let dir = std::env::temp_dir().join(format!("oxmcp-cli-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("mcp.json");
    // The server starts only when the config's and the command line's variables reach it.
    let script = format!(r#"test "$FROM_FILE" = yes && test "$FROM_FLAG" = yes && exec {OXMCP} everything-server --stdio"#);
    let doc =
        serde_json::json!({"mcpServers": {"every": {"command": "sh", "args": ["-c", script], "env": {"FROM_FILE": "yes"}}}});
    std::fs::write(&config, doc.to_string()).unwrap();
    let path = config.to_str().unwrap();
    let out =
        Command::new(OXMCP).args(["call", "--config", path, "-e", "FROM_FLAG=yes", "every", "echo", "text=hi"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
    let out = Command::new(OXMCP).args(["call", "--config", path, "every", "echo", "text=hi"]).output().unwrap();
    assert!(!out.status.success(), "without -e the server does not start");
    let out = Command::new(OXMCP).args(["inspect", "--config", path, "-e", "FROM_FLAG=yes", "every"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Schemas print as a line per argument.
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("    ms: integer, min 0 (required)"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn header_flags_reach_a_url_server() {
    use std::io::{BufRead, BufReader};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let mut cli = Command::new(OXMCP).args(["inspect", "-H", "X-Team: blue", "--header", "X-Other:2", &url]).spawn().unwrap();
    let (conn, _) = listener.accept().unwrap();
    let mut head = Vec::new();
    for line in BufReader::new(conn).lines() {
        let line = line.unwrap();
        if line.is_empty() {
            break;
        }
        head.push(line.to_ascii_lowercase());
    }
    let _ = cli.kill();
    let _ = cli.wait();
    assert!(head.iter().any(|h| h == "x-team: blue"), "{head:?}");
    assert!(head.iter().any(|h| h == "x-other: 2"), "{head:?}");
}

#[test]
fn the_cli_answers_elicitation_on_the_terminal() {
    let server = ["--", OXMCP, "everything-server", "--stdio"];
    let args = |tool: &'static str| {
        let arguments: &[&str] = if tool == "test_elicitation" { &["message=Who are you?"] } else { &[] };
        [&["call", tool][..], arguments, &server[..]].concat()
    };
    let out = oxmcp_with_input(&args("test_elicitation"), "alice\nalice@example.com\n");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#"action=accept, content={"username":"alice","email":"alice@example.com"}"#), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("username"), "the form is shown on stderr");
    // Enter takes each default.
    let out = oxmcp_with_input(&args("test_elicitation_sep1034_defaults"), "\n\n\n\n\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""name":"John Doe","age":30"#));
    let out = oxmcp_with_input(&args("test_elicitation"), "!decline\n");
    assert!(String::from_utf8_lossy(&out.stdout).contains("action=decline"));
    let out = oxmcp_with_input(&args("test_elicitation"), "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("action=cancel"));
}

#[test]
fn a_child_servers_stderr_reaches_the_user() {
    let script = format!(r#"echo "the server starts" >&2; exec {OXMCP} everything-server --stdio"#);
    let out = Command::new(OXMCP).args(["call", "echo", "text=hi", "--", "sh", "-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the server starts"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[cfg(unix)]
#[test]
fn the_everything_server_serves_a_skills_directory_without_links_that_leave_it() {
    let root = std::env::temp_dir().join(format!("oxmcp-cli-skills-{}", std::process::id()));
    let skill = root.join("skills/deploy");
    std::fs::create_dir_all(skill.join("refs")).unwrap();
    std::fs::write(skill.join("SKILL.md"), "---\nname: deploy\ndescription: How we deploy\n---\nShip it.\n").unwrap();
    std::fs::write(root.join("creds.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(root.join("creds.txt"), skill.join("refs/creds.txt")).unwrap();
    std::os::unix::fs::symlink(root.join("nowhere"), skill.join("refs/dangling.md")).unwrap();
    let dir = root.join("skills");
    let serve = ["--", OXMCP, "everything-server", "--stdio", "--skills-dir", dir.to_str().unwrap()];
    let read = |uri: &str| {
        let mut args = vec!["read", "--json", uri];
        args.extend(serve);
        Command::new(OXMCP).args(&args).output().unwrap()
    };
    let served = read("skill://deploy/SKILL.md");
    assert!(served.status.success(), "{}", String::from_utf8_lossy(&served.stderr));
    assert!(String::from_utf8_lossy(&served.stdout).contains("Ship it."));
    let leaked = read("skill://deploy/refs/creds.txt");
    assert!(!leaked.status.success(), "a link leaving the directory is not served");
    assert!(!String::from_utf8_lossy(&leaked.stdout).contains("secret"));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn prompt_takes_key_value_arguments_or_a_json_object() {
    let out = oxmcp(&["prompt", "test_prompt_with_arguments", "arg1=Paris", "arg2=3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("arg1='Paris', arg2='3'"), "{}", String::from_utf8_lossy(&out.stdout));
    let out = oxmcp(&["prompt", "test_prompt_with_arguments", r#"{"arg1": "a", "arg2": "b"}"#]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("arg1='a', arg2='b'"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn http_servers_listen_on_a_host_name() {
    let server = Listening::start(&["everything-server", "--http", "localhost:0"]);
    assert!(server.url.starts_with("http://127.0.0.1:"), "{}", server.url);
    let proxy = Listening::start(&["proxy", "--http", "localhost:0", "--", OXMCP, "everything-server", "--stdio"]);
    for url in [&server.url, &proxy.url] {
        let out = Command::new(OXMCP).args(["call", "echo", "text=hi", url]).output().unwrap();
        assert!(out.status.success(), "{url}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
    }
    let out = Command::new(OXMCP).args(["everything-server", "--http", "localhost"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected HOST:PORT"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_404_at_a_url_without_mcp_suggests_the_mcp_path() {
    let server = Listening::start(&["everything-server", "--http", "127.0.0.1:0"]);
    let root = server.url.trim_end_matches("/mcp");
    let out = Command::new(OXMCP).args(["inspect", root]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("404 from {root}: MCP servers usually serve at /mcp; try {root}/mcp")), "{stderr}");
    // At /mcp itself a 404 (here: a path the server does not serve) says nothing of the sort.
    let out = Command::new(OXMCP).args(["inspect", &format!("{root}/other/mcp")]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("try "), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn connect_timeout_bounds_connecting_to_a_silent_server() {
    // A child that reads nothing and says nothing, and a URL whose server never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", silent.local_addr().unwrap());
    for server in [&["sh", "-c", "sleep 30"][..], &[url.as_str()][..]] {
        let started = Instant::now();
        let out = Command::new(OXMCP).args(["call", "--connect-timeout", "1", "echo", "--"]).args(server).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(started.elapsed() < Duration::from_secs(5), "{server:?}: took {:?}", started.elapsed());
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("did not finish connecting within 1 s (--connect-timeout"), "{stderr}");
    }
}

#[test]
fn a_child_servers_stray_stdout_lines_are_reported() {
    let long = "x".repeat(500);
    let script = format!(r#"echo "Starting server on stdout"; echo {long}; exec {OXMCP} everything-server --stdio"#);
    let out = Command::new(OXMCP).args(["call", "echo", "text=hi", "--", "sh", "-c", &script]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "hi");
    assert!(stderr.contains(r#"server process "sh" wrote a line that is not JSON-RPC to stdout"#), "{stderr}");
    assert!(stderr.contains("Starting server on stdout"), "{stderr}");
    assert!(stderr.contains(&format!("{}...", "x".repeat(200))) && !stderr.contains(&"x".repeat(201)), "truncated: {stderr}");
    // A server printing its whole log to stdout gets 16 warnings, then one saying the rest
    // are not shown.
    let script = format!(r#"for i in $(seq 500); do echo "log line $i"; done; exec {OXMCP} everything-server --stdio"#);
    let out = Command::new(OXMCP).args(["call", "echo", "text=hi", "--", "sh", "-c", &script]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("wrote a line that is not JSON-RPC").count(), 16, "{stderr}");
    assert!(stderr.contains("log line 16 ") && !stderr.contains("log line 17 "), "{stderr}");
    assert_eq!(stderr.matches("wrote more lines that are not JSON-RPC to stdout: not shown").count(), 1, "{stderr}");
}

#[test]
fn a_stateless_server_says_sampling_needs_a_session() {
    let server = Listening::start(&["everything-server", "--http", "127.0.0.1:0", "--stateless"]);
    let out = Command::new(OXMCP).args(["call", "--era", "session", "test_sampling", "prompt=hi", &server.url]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("sampling is not available in stateless mode"), "{text}");
    assert!(!text.contains("did not declare"), "{text}");
}
