//! The `oxmcp` command as a user runs it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

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
    assert_eq!(names("resources", "uri"), ["test://static-text", "test://static-binary", "test://watched-resource"]);
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
