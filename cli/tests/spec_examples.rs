//! The 2026-07-28 specification's example messages (`<spec>/2026-07-28/examples/<Kind>/*.json`)
//! parse into oxmcp's types and serialize back to equal JSON: whole JSON-RPC messages
//! through [`Message`] (and their params through the typed params of their method), bare
//! payloads through the type named by their folder. A folder this test does not map fails
//! it, so a new kind of example cannot go unchecked. The examples stay in the specification's
//! folder (found like the schema test's: `$OXMCP_SPEC_DIR` or `../shared/spec`).

mod spec;

use std::collections::HashMap;
use std::path::Path;

use oxmcp::protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// `value` -> `T` -> JSON equals `value`.
fn round_trip<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| format!("does not parse: {e}"))?;
    let back = serde_json::to_value(&typed).map_err(|e| format!("does not serialize: {e}"))?;
    if &back == value {
        Ok(())
    } else {
        Err(format!("serializes back differently:\n  was {value}\n  now {back}"))
    }
}

/// The typed params of a request or notification method, when oxmcp models them.
fn params_round_trip(method: &str, params: &Value) -> Result<(), String> {
    match method {
        methods::TOOLS_CALL => round_trip::<CallToolRequestParams>(params),
        methods::RESOURCES_READ => round_trip::<ReadResourceRequestParams>(params),
        methods::PROMPTS_GET => round_trip::<GetPromptRequestParams>(params),
        methods::COMPLETION_COMPLETE => round_trip::<CompleteRequestParams>(params),
        methods::TOOLS_LIST | methods::RESOURCES_LIST | methods::RESOURCES_TEMPLATES_LIST | methods::PROMPTS_LIST => {
            round_trip::<PaginatedRequestParams>(params)
        }
        methods::SUBSCRIPTIONS_LISTEN => round_trip::<SubscriptionsListenRequestParams>(params),
        methods::CANCELLED => round_trip::<CancelledNotificationParams>(params),
        methods::PROGRESS => round_trip::<ProgressNotificationParams>(params),
        methods::LOGGING_MESSAGE => round_trip::<LoggingMessageNotificationParams>(params),
        methods::RESOURCES_UPDATED => round_trip::<ResourceUpdatedNotificationParams>(params),
        methods::SAMPLING_CREATE_MESSAGE => round_trip::<CreateMessageRequestParams>(params),
        methods::ELICITATION_CREATE => round_trip::<ElicitRequestParams>(params),
        // server/discover, list_changed, acknowledgements: only _meta and free-form fields.
        _ => round_trip::<Value>(params),
    }
}

/// One example file.
fn check(kind: &str, value: &Value) -> Result<(), String> {
    if value.get("jsonrpc").is_some() {
        let bytes = serde_json::to_vec(value).unwrap();
        let message = Message::parse_single(&bytes).map_err(|r| format!("rejected as JSON-RPC: {}", r.error.message))?;
        let back: Value = serde_json::from_slice(&message.to_bytes()).unwrap();
        if &back != value {
            return Err(format!("message serializes back differently:\n  was {value}\n  now {back}"));
        }
        return match (message.method(), value.get("params")) {
            (Some(method), Some(params)) => params_round_trip(method, params),
            _ => Ok(()),
        };
    }
    match kind {
        "AudioContent" | "ImageContent" | "TextContent" | "EmbeddedResource" | "ResourceLink" => {
            round_trip::<ContentBlock>(value)
        }
        "ToolUseContent" | "ToolResultContent" => round_trip::<SamplingContentBlock>(value),
        "BlobResourceContents" | "TextResourceContents" => round_trip::<ResourceContents>(value),
        "CallToolRequestParams" => round_trip::<CallToolRequestParams>(value),
        "CallToolResult" => round_trip::<CallToolResult>(value),
        "CancelledNotificationParams" => round_trip::<CancelledNotificationParams>(value),
        "ClientCapabilities" => round_trip::<ClientCapabilities>(value),
        "CompleteRequestParams" => round_trip::<CompleteRequestParams>(value),
        "CompleteResult" => round_trip::<CompleteResult>(value),
        "CreateMessageRequestParams" => round_trip::<CreateMessageRequestParams>(value),
        "CreateMessageResult" => round_trip::<CreateMessageResult>(value),
        "DiscoverResult" => round_trip::<DiscoverResult>(value),
        "ElicitRequestFormParams" => round_trip::<ElicitRequestFormParams>(value),
        "ElicitRequestURLParams" => round_trip::<ElicitRequestUrlParams>(value),
        "ElicitResult" => round_trip::<ElicitResult>(value),
        "GetPromptRequestParams" => round_trip::<GetPromptRequestParams>(value),
        "GetPromptResult" => round_trip::<GetPromptResult>(value),
        "InputRequiredResult" => round_trip::<InputRequiredResult>(value),
        // In this era a server-to-client request travels inside an InputRequiredResult.
        "CreateMessageRequest" | "ElicitRequest" | "ListRootsRequest" => round_trip::<InputRequest>(value),
        "InputRequests" => round_trip::<HashMap<String, InputRequest>>(value),
        // Answers to InputRequests: each an ElicitResult, CreateMessageResult or ListRootsResult.
        "InputResponses" => round_trip::<HashMap<String, Value>>(value),
        "ListPromptsResult" => round_trip::<ListPromptsResult>(value),
        "ListResourceTemplatesResult" => round_trip::<ListResourceTemplatesResult>(value),
        "ListResourcesResult" => round_trip::<ListResourcesResult>(value),
        "ListRootsResult" => round_trip::<ListRootsResult>(value),
        "ListToolsResult" => round_trip::<ListToolsResult>(value),
        "LoggingMessageNotificationParams" => round_trip::<LoggingMessageNotificationParams>(value),
        "ModelPreferences" => round_trip::<ModelPreferences>(value),
        "PaginatedRequestParams" => round_trip::<PaginatedRequestParams>(value),
        "ProgressNotificationParams" => round_trip::<ProgressNotificationParams>(value),
        "ReadResourceResult" => round_trip::<ReadResourceResult>(value),
        "Resource" => round_trip::<Resource>(value),
        "ResourceUpdatedNotificationParams" => round_trip::<ResourceUpdatedNotificationParams>(value),
        "Root" => round_trip::<Root>(value),
        "SamplingMessage" => round_trip::<SamplingMessage>(value),
        "ServerCapabilities" => round_trip::<ServerCapabilities>(value),
        "SubscriptionsListenResult" => round_trip::<EmptyResult>(value),
        "Tool" => round_trip::<Tool>(value),
        "InternalError" | "InvalidParamsError" | "MethodNotFoundError" | "ParseError" => round_trip::<ErrorObject>(value),
        // Elicitation's requestedSchema is JSON Schema, which oxmcp keeps as free-form JSON.
        "BooleanSchema"
        | "NumberSchema"
        | "StringSchema"
        | "TitledMultiSelectEnumSchema"
        | "TitledSingleSelectEnumSchema"
        | "UntitledMultiSelectEnumSchema"
        | "UntitledSingleSelectEnumSchema" => round_trip::<Value>(value),
        other => Err(format!("no oxmcp type is mapped to the example kind {other}")),
    }
}

#[test]
fn every_2026_07_28_example_round_trips_through_the_oxmcp_types() {
    let dir = match spec::spec_dir() {
        Ok(d) => d.join("2026-07-28").join("examples"),
        Err(e) if !spec::in_ci() => return eprintln!("SPEC EXAMPLES TEST DID NOT RUN: {e}"),
        Err(e) => panic!("{e}"),
    };
    assert!(dir.is_dir() || !spec::in_ci(), "{} does not exist", dir.display());
    if !dir.is_dir() {
        return eprintln!("SPEC EXAMPLES TEST DID NOT RUN: {} does not exist", dir.display());
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut kinds: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    kinds.sort();
    for kind_dir in kinds {
        let kind = kind_dir.file_name().unwrap().to_string_lossy().to_string();
        let mut files: Vec<_> = std::fs::read_dir(&kind_dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")) {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            checked += 1;
            if let Err(e) = check(&kind, &value) {
                failures.push(format!("{}: {e}", rel(file, &dir)));
            }
        }
    }
    assert!(checked >= 88, "only {checked} examples found in {}", dir.display());
    assert!(failures.is_empty(), "{} of {checked} examples fail:\n{}", failures.len(), failures.join("\n"));
    eprintln!("{checked} examples round-trip");
}

fn rel(file: &Path, base: &Path) -> String {
    file.strip_prefix(base).unwrap_or(file).display().to_string()
}
