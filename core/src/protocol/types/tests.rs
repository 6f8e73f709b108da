//! Round-trip tests for the protocol payload types.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;

/// Parses `json` from text as `T`, serializes it back and checks nothing changed.
fn round_trip<T>(json: Value) -> T
where
    T: Serialize + DeserializeOwned + Debug + PartialEq,
{
    let text = json.to_string();
    let parsed: T =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("failed to parse {text} as {}: {e}", std::any::type_name::<T>()));
    let back = serde_json::to_value(&parsed).expect("serialize");
    assert_eq!(back, json, "round trip changed {}", std::any::type_name::<T>());
    let again: T = serde_json::from_value(back).expect("re-parse");
    assert_eq!(again, parsed);
    parsed
}

/// Parses `json` as `T` and expects failure.
fn rejects<T: DeserializeOwned + Debug>(json: Value) {
    let result = serde_json::from_value::<T>(json.clone());
    assert!(result.is_err(), "{json} unexpectedly parsed as {result:?}");
}

// ---------------------------------------------------------------- common

#[test]
fn implementation_and_icons() {
    let imp: Implementation = round_trip(json!({
        "name": "demo-server",
        "version": "1.2.3",
        "title": "Demo Server",
        "description": "Serves demos",
        "websiteUrl": "https://example.com",
        "icons": [
            {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"], "theme": "light"},
            {"src": "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "sizes": ["any"], "theme": "dark"}
        ]
    }));
    assert_eq!(imp.website_url.as_deref(), Some("https://example.com"));
    let icons = imp.icons.as_ref().unwrap();
    assert_eq!(icons[0].theme, Some(IconTheme::Light));
    assert_eq!(icons[1].theme, Some(IconTheme::Dark));

    let minimal = Implementation::new("c", "0.1");
    assert_eq!(serde_json::to_value(&minimal).unwrap(), json!({"name": "c", "version": "0.1"}));
}

#[test]
fn annotations_and_roles() {
    let a: Annotations = round_trip(json!({
        "audience": ["user", "assistant"],
        "priority": 0.5,
        "lastModified": "2025-01-12T15:00:58Z"
    }));
    assert_eq!(a.audience, Some(vec![Role::User, Role::Assistant]));
    rejects::<Role>(json!("system"));
}

#[test]
fn progress_tokens() {
    assert_eq!(round_trip::<ProgressToken>(json!(7)), ProgressToken::Number(7));
    assert_eq!(round_trip::<ProgressToken>(json!("abc")), ProgressToken::from("abc"));
    rejects::<ProgressToken>(json!(true));

    let meta = json!({"progressToken": "tok-1", "other": 1});
    let meta: Meta = serde_json::from_value(meta).unwrap();
    assert_eq!(progress_token_from_meta(Some(&meta)), Some(ProgressToken::from("tok-1")));
    assert_eq!(progress_token_from_meta(None), None);
    assert_eq!(progress_token_from_meta(Some(&Meta::new())), None);
}

#[test]
fn paginated_and_empty() {
    let p: PaginatedRequestParams = round_trip(json!({"cursor": "page-2", "_meta": {"progressToken": 1}}));
    assert_eq!(p.cursor.as_deref(), Some("page-2"));
    assert_eq!(round_trip::<PaginatedRequestParams>(json!({})), PaginatedRequestParams::default());
    assert_eq!(PaginatedRequestParams::with_cursor("c").cursor.as_deref(), Some("c"));

    let e: EmptyResult = round_trip(json!({"_meta": {"trace": "x"}}));
    assert!(e.meta.is_some());
    assert_eq!(round_trip::<EmptyResult>(json!({})), EmptyResult::default());
    let r: RequestParams = round_trip(json!({"_meta": {"progressToken": "p"}}));
    assert_eq!(progress_token_from_meta(r.meta.as_ref()), Some(ProgressToken::from("p")));
}

// ---------------------------------------------------------------- lifecycle

#[test]
fn initialize_request() {
    let params: InitializeRequestParams = round_trip(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "roots": {"listChanged": true},
            "sampling": {"context": {}, "tools": {}},
            "elicitation": {"form": {}, "url": {}},
            "experimental": {"fancy": {"level": 2}},
            "tasks": {"list": {}, "cancel": {}}
        },
        "clientInfo": {"name": "demo-client", "version": "0.9.0", "title": "Demo"},
        "_meta": {"progressToken": 3}
    }));
    assert_eq!(params.protocol_version, "2025-11-25");
    let caps = &params.capabilities;
    assert_eq!(caps.roots.as_ref().unwrap().list_changed, Some(true));
    assert!(caps.sampling.as_ref().unwrap().tools.is_some());
    let elicitation = caps.elicitation.as_ref().unwrap();
    assert!(elicitation.supports_form() && elicitation.supports_url());
    assert!(caps.extra.contains_key("tasks"), "unmodelled tasks capability must be kept");
    assert_eq!(params.client_info.title.as_deref(), Some("Demo"));
}

#[test]
fn legacy_capability_shapes() {
    // 2024-11-05 / 2025-06-18 style: empty objects for sampling and elicitation.
    let caps: ClientCapabilities = round_trip(json!({"sampling": {}, "elicitation": {}}));
    let elicitation = caps.elicitation.unwrap();
    assert!(elicitation.supports_form());
    assert!(!elicitation.supports_url());
    let url_only: ElicitationCapability = round_trip(json!({"url": {}}));
    assert!(!url_only.supports_form());
    assert_eq!(round_trip::<ClientCapabilities>(json!({})), ClientCapabilities::default());
}

#[test]
fn initialize_result() {
    let result: InitializeResult = round_trip(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "logging": {},
            "completions": {},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": false},
            "tools": {"listChanged": true},
            "experimental": {"x": {}},
            "tasks": {"requests": {"tools": {"call": {}}}}
        },
        "serverInfo": {"name": "demo-server", "version": "1.0.0"},
        "instructions": "Use the echo tool.",
        "_meta": {"k": "v"}
    }));
    let caps = &result.capabilities;
    assert!(caps.logging.is_some() && caps.completions.is_some());
    assert_eq!(caps.resources.as_ref().unwrap().subscribe, Some(true));
    assert_eq!(caps.tools.as_ref().unwrap().list_changed, Some(true));
    assert!(caps.tasks_tool_calls() && caps.extra.is_empty());

    let built = InitializeResult::new(
        "2025-11-25",
        ServerCapabilities { tools: Some(ToolsCapability::default()), ..Default::default() },
        Implementation::new("s", "1"),
    )
    .with_instructions("hi");
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"},
            "instructions": "hi"
        })
    );
    let req = InitializeRequestParams::new("2025-06-18", ClientCapabilities::default(), Implementation::new("c", "2"));
    assert_eq!(
        serde_json::to_value(&req).unwrap(),
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "2"}})
    );
}

// ---------------------------------------------------------------- content

fn every_content_kind() -> Value {
    json!([
        {"type": "text", "text": "hello", "annotations": {"audience": ["user"], "priority": 1}},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "_meta": {"m": 1}},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "title": "A",
         "description": "the a file", "mimeType": "text/plain", "size": 12,
         "icons": [{"src": "https://example.com/a.png"}]},
        {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "bee"}},
        {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAEC"}, "annotations": {"priority": 0.1}}
    ])
}

#[test]
fn content_block_discriminates_every_kind() {
    let blocks: Vec<ContentBlock> = round_trip(every_content_kind());
    assert!(matches!(&blocks[0], ContentBlock::Text(t) if t.text == "hello"));
    assert!(matches!(&blocks[1], ContentBlock::Image(i) if i.mime_type == "image/png"));
    assert!(matches!(&blocks[2], ContentBlock::Audio(a) if a.data == "UklGRg=="));
    assert!(matches!(&blocks[3], ContentBlock::ResourceLink(l) if l.size == Some(12)));
    assert!(matches!(
        &blocks[4],
        ContentBlock::Resource(EmbeddedResource { resource: ResourceContents::Text(t), .. }) if t.text == "bee"
    ));
    assert!(matches!(
        &blocks[5],
        ContentBlock::Resource(EmbeddedResource { resource: ResourceContents::Blob(b), .. }) if b.blob == "AAEC"
    ));
    assert_eq!(blocks[0].as_text(), Some("hello"));
    assert_eq!(blocks[1].as_text(), None);

    // The tag must not leak into `extra`.
    if let ContentBlock::Text(t) = &blocks[0] {
        assert!(t.extra.is_empty());
    }

    rejects::<ContentBlock>(json!({"type": "video", "data": "x"}));
    rejects::<ContentBlock>(json!({"text": "no type"}));
    rejects::<ContentBlock>(json!({"type": "image", "data": "x"}));
    // Sampling-only kinds are not general content.
    rejects::<ContentBlock>(json!({"type": "tool_use", "id": "1", "name": "n", "input": {}}));
}

#[test]
fn content_block_constructors() {
    assert_eq!(serde_json::to_value(ContentBlock::text("hi")).unwrap(), json!({"type": "text", "text": "hi"}));
    assert_eq!(
        serde_json::to_value(ContentBlock::image("AAA=", "image/png")).unwrap(),
        json!({"type": "image", "data": "AAA=", "mimeType": "image/png"})
    );
    assert_eq!(
        serde_json::to_value(ContentBlock::audio("BBB=", "audio/mpeg")).unwrap(),
        json!({"type": "audio", "data": "BBB=", "mimeType": "audio/mpeg"})
    );
    assert_eq!(
        serde_json::to_value(ContentBlock::resource_link(ResourceLink::new("file:///x", "x"))).unwrap(),
        json!({"type": "resource_link", "uri": "file:///x", "name": "x"})
    );
    assert_eq!(
        serde_json::to_value(ContentBlock::resource(ResourceContents::text("mem://n", "t").with_mime_type("text/plain")))
            .unwrap(),
        json!({"type": "resource", "resource": {"uri": "mem://n", "mimeType": "text/plain", "text": "t"}})
    );
}

#[test]
fn resource_contents_text_vs_blob() {
    let text: ResourceContents =
        round_trip(json!({"uri": "file:///t", "mimeType": "text/plain", "text": "abc", "_meta": {"a": 1}}));
    assert!(matches!(&text, ResourceContents::Text(t) if t.text == "abc" && t.extra.is_empty()));
    assert_eq!(text.uri(), "file:///t");

    let blob: ResourceContents = round_trip(json!({"uri": "file:///b", "mimeType": "image/png", "blob": "AAEC"}));
    assert!(matches!(&blob, ResourceContents::Blob(b) if b.blob == "AAEC" && b.extra.is_empty()));
    assert_eq!(blob.uri(), "file:///b");

    // Empty text is still text.
    let empty: ResourceContents = round_trip(json!({"uri": "file:///e", "text": ""}));
    assert!(matches!(empty, ResourceContents::Text(_)));

    // Unknown fields survive on both kinds.
    let t: ResourceContents = round_trip(json!({"uri": "u:1", "text": "x", "encoding": "utf-8"}));
    assert!(matches!(&t, ResourceContents::Text(t) if t.extra.contains_key("encoding")));
    let b: ResourceContents = round_trip(json!({"uri": "u:2", "blob": "AA==", "compressed": false}));
    assert!(matches!(&b, ResourceContents::Blob(b) if b.extra.contains_key("compressed")));

    rejects::<ResourceContents>(json!({"uri": "file:///n"}));
    rejects::<ResourceContents>(json!({"text": "missing uri"}));
    rejects::<ResourceContents>(json!("file:///n"));
    rejects::<ResourceContents>(json!({"uri": "file:///n", "blob": 5}));
}

// ---------------------------------------------------------------- tools

#[test]
fn list_tools_result() {
    let result: ListToolsResult = round_trip(json!({
        "tools": [
            {
                "name": "get_weather",
                "title": "Weather",
                "description": "Current weather for a city",
                "inputSchema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {"temperature": {"type": "number"}},
                    "required": ["temperature"]
                },
                "annotations": {
                    "title": "Weather lookup",
                    "readOnlyHint": true,
                    "destructiveHint": false,
                    "idempotentHint": true,
                    "openWorldHint": true
                },
                "execution": {"taskSupport": "optional"},
                "icons": [{"src": "https://example.com/sun.png", "mimeType": "image/png"}],
                "_meta": {"vendor/x": 1}
            },
            {"name": "noop", "inputSchema": {"type": "object"}}
        ],
        "nextCursor": "next",
        "_meta": {}
    }));
    let tool = &result.tools[0];
    assert_eq!(tool.annotations.as_ref().unwrap().read_only_hint, Some(true));
    assert_eq!(tool.execution.as_ref().unwrap().task_support, Some(TaskSupport::Optional));
    assert_eq!(tool.input_schema["required"], json!(["city"]));
    assert_eq!(result.next_cursor.as_deref(), Some("next"));
}

#[test]
fn tool_defaults_and_builders() {
    let tool: Tool = serde_json::from_value(json!({"name": "bare"})).unwrap();
    assert_eq!(tool.input_schema, json!({"type": "object"}));

    let tool = Tool::new("add", "Adds numbers", json!({"type": "object", "properties": {"a": {"type": "number"}}}))
        .with_title("Add")
        .with_output_schema(json!({"type": "object"}))
        .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
    assert_eq!(
        serde_json::to_value(&tool).unwrap(),
        json!({
            "name": "add",
            "title": "Add",
            "description": "Adds numbers",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}},
            "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}
        })
    );
}

#[test]
fn call_tool_request_and_result() {
    let params: CallToolRequestParams = round_trip(json!({
        "name": "get_weather",
        "arguments": {"city": "Paris", "days": 3, "units": {"temp": "C"}},
        "_meta": {"progressToken": "p-9"},
        "task": {"ttl": 60000}
    }));
    assert_eq!(params.arguments.as_ref().unwrap()["days"], json!(3));
    assert!(params.extra.contains_key("task"));
    let bare: CallToolRequestParams = round_trip(json!({"name": "noop"}));
    assert_eq!(bare, CallToolRequestParams::new("noop"));

    // The server's moving reader agrees with serde on what it accepts and what it builds.
    for params in [
        json!({"name": "get_weather", "arguments": {"city": "Paris"}, "_meta": {"progressToken": 1}, "task": {"ttl": 5}}),
        json!({"name": "noop"}),
        json!({"name": "noop", "arguments": null, "_meta": null}),
        json!({"arguments": {}}),
        json!({"name": 3}),
        json!({"name": "x", "arguments": [1]}),
        json!({"name": "x", "_meta": "m"}),
        json!([1]),
    ] {
        let by_serde = serde_json::from_value::<CallToolRequestParams>(params.clone()).ok();
        let moved = CallToolRequestParams::from_params(Some(params.clone())).ok();
        assert_eq!(moved, by_serde, "{params}");
    }
    assert_eq!(CallToolRequestParams::from_params(None).ok(), None, "a tools/call without params names no tool");

    let mut content = every_content_kind();
    content.as_array_mut().unwrap().truncate(5);
    let result: CallToolResult = round_trip(json!({
        "content": content,
        "structuredContent": {"temperature": 21.5},
        "isError": false,
        "_meta": {"took_ms": 12}
    }));
    assert_eq!(result.content.len(), 5);
    assert!(!result.is_error());

    let err: CallToolResult = round_trip(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
    assert!(err.is_error());
}

#[test]
fn call_tool_result_helpers() {
    assert_eq!(serde_json::to_value(CallToolResult::text("ok")).unwrap(), json!({"content": [{"type": "text", "text": "ok"}]}));
    assert_eq!(
        serde_json::to_value(CallToolResult::error_text("bad")).unwrap(),
        json!({"content": [{"type": "text", "text": "bad"}], "isError": true})
    );
    assert_eq!(
        serde_json::to_value(CallToolResult::new(vec![]).with_structured_content(json!({"n": 1}))).unwrap(),
        json!({"content": [], "structuredContent": {"n": 1}})
    );
}

// ---------------------------------------------------------------- resources

#[test]
fn resources_messages() {
    let list: ListResourcesResult = round_trip(json!({
        "resources": [{
            "uri": "file:///project/README.md",
            "name": "README.md",
            "title": "Readme",
            "description": "Project readme",
            "mimeType": "text/markdown",
            "size": 2048,
            "annotations": {"audience": ["assistant"], "lastModified": "2025-06-01T00:00:00Z"},
            "icons": [{"src": "https://example.com/md.png"}],
            "_meta": {"x": true}
        }],
        "nextCursor": "c2"
    }));
    assert_eq!(list.resources[0].size, Some(2048));

    let templates: ListResourceTemplatesResult = round_trip(json!({
        "resourceTemplates": [{
            "uriTemplate": "file:///{path}",
            "name": "files",
            "title": "Files",
            "description": "Any file",
            "mimeType": "application/octet-stream",
            "annotations": {"priority": 0.2}
        }]
    }));
    assert_eq!(templates.resource_templates[0].uri_template, "file:///{path}");

    let read: ReadResourceRequestParams = round_trip(json!({"uri": "file:///project/README.md", "_meta": {"progressToken": 1}}));
    assert_eq!(read.uri, "file:///project/README.md");

    let read_result: ReadResourceResult = round_trip(json!({
        "contents": [
            {"uri": "file:///project/README.md", "mimeType": "text/markdown", "text": "# Hi"},
            {"uri": "file:///project/logo.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="}
        ]
    }));
    assert!(matches!(read_result.contents[0], ResourceContents::Text(_)));
    assert!(matches!(read_result.contents[1], ResourceContents::Blob(_)));

    let sub: SubscribeRequestParams = round_trip(json!({"uri": "file:///watch"}));
    assert_eq!(sub, SubscribeRequestParams::new("file:///watch"));
    let unsub: UnsubscribeRequestParams = round_trip(json!({"uri": "file:///watch"}));
    assert_eq!(unsub, UnsubscribeRequestParams::new("file:///watch"));

    let built = Resource::new("mem://a", "a").with_description("d").with_mime_type("text/plain");
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        json!({"uri": "mem://a", "name": "a", "description": "d", "mimeType": "text/plain"})
    );
    assert_eq!(
        serde_json::to_value(ResourceTemplate::new("mem://{id}", "t")).unwrap(),
        json!({"uriTemplate": "mem://{id}", "name": "t"})
    );
}

// ---------------------------------------------------------------- prompts

#[test]
fn prompts_messages() {
    let list: ListPromptsResult = round_trip(json!({
        "prompts": [{
            "name": "code_review",
            "title": "Code review",
            "description": "Reviews code",
            "arguments": [
                {"name": "code", "title": "Code", "description": "The code", "required": true},
                {"name": "style"}
            ],
            "icons": [{"src": "https://example.com/r.png"}]
        }],
        "nextCursor": "p2"
    }));
    assert_eq!(list.prompts[0].arguments.as_ref().unwrap()[0].required, Some(true));

    let get: GetPromptRequestParams = round_trip(json!({
        "name": "code_review",
        "arguments": {"code": "fn main() {}", "style": "terse"}
    }));
    assert_eq!(get.arguments.as_ref().unwrap()["style"], "terse");
    rejects::<GetPromptRequestParams>(json!({"name": "x", "arguments": {"n": 1}}));

    let result: GetPromptResult = round_trip(json!({
        "description": "A review",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this"}},
            {"role": "assistant", "content": {"type": "image", "data": "AAA=", "mimeType": "image/gif"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///x.rs", "text": "fn x() {}"}}},
            {"role": "user", "content": {"type": "resource_link", "uri": "file:///y.rs", "name": "y.rs"}}
        ],
        "_meta": {"n": 1}
    }));
    assert_eq!(result.messages[1].role, Role::Assistant);

    let built =
        Prompt::new("p").with_description("d").with_argument(PromptArgument::new("a").with_description("arg").required(true));
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        json!({"name": "p", "description": "d", "arguments": [{"name": "a", "description": "arg", "required": true}]})
    );
    assert_eq!(
        serde_json::to_value(GetPromptResult::new(vec![PromptMessage::text(Role::User, "hi")])).unwrap(),
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
    );
    assert_eq!(GetPromptRequestParams::new("p").name, "p");
}

// ---------------------------------------------------------------- completion

#[test]
fn completion_messages() {
    let prompt_ref: CompleteRequestParams = round_trip(json!({
        "ref": {"type": "ref/prompt", "name": "code_review", "title": "Code review"},
        "argument": {"name": "language", "value": "py"},
        "context": {"arguments": {"framework": "django"}},
        "_meta": {"progressToken": 5}
    }));
    assert!(matches!(&prompt_ref.reference, CompletionReference::Prompt(p) if p.name == "code_review"));
    assert_eq!(prompt_ref.context.as_ref().unwrap().arguments.as_ref().unwrap()["framework"], "django");

    let resource_ref: CompleteRequestParams = round_trip(json!({
        "ref": {"type": "ref/resource", "uri": "file:///{path}"},
        "argument": {"name": "path", "value": "src/"}
    }));
    assert!(matches!(&resource_ref.reference, CompletionReference::Resource(r) if r.uri == "file:///{path}"));
    rejects::<CompleteRequestParams>(json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": {"name": "a", "value": ""}}));

    let result: CompleteResult = round_trip(json!({
        "completion": {"values": ["python", "pytorch"], "total": 10, "hasMore": true}
    }));
    assert_eq!(result.completion.total, Some(10));
    assert_eq!(serde_json::to_value(CompleteResult::new(vec!["a".into()])).unwrap(), json!({"completion": {"values": ["a"]}}));
}

// ---------------------------------------------------------------- logging

#[test]
fn logging_messages() {
    let set: SetLevelRequestParams = round_trip(json!({"level": "warning"}));
    assert_eq!(set.level, LoggingLevel::Warning);
    let msg: LoggingMessageNotificationParams = round_trip(json!({
        "level": "error",
        "logger": "db",
        "data": {"error": "connection refused", "retries": 3}
    }));
    assert_eq!(msg.logger.as_deref(), Some("db"));
    let plain: LoggingMessageNotificationParams = round_trip(json!({"level": "info", "data": "started"}));
    assert_eq!(plain, LoggingMessageNotificationParams::new(LoggingLevel::Info, "started"));
    let null_data: LoggingMessageNotificationParams = round_trip(json!({"level": "debug", "data": null}));
    assert_eq!(null_data.data, Value::Null);
    rejects::<LoggingMessageNotificationParams>(json!({"level": "info"}));
    rejects::<SetLevelRequestParams>(json!({"level": "verbose"}));
}

#[test]
fn logging_level_order_and_names() {
    let ordered = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];
    for pair in ordered.windows(2) {
        assert!(pair[0] < pair[1]);
    }
    for level in ordered {
        assert_eq!(serde_json::to_value(level).unwrap(), json!(level.as_str()));
        assert_eq!(round_trip::<LoggingLevel>(json!(level.as_str())), level);
    }
}

// ---------------------------------------------------------------- notifications

#[test]
fn notification_params() {
    let progress: ProgressNotificationParams = round_trip(json!({
        "progressToken": "abc",
        "progress": 50,
        "total": 100,
        "message": "halfway"
    }));
    assert_eq!(progress.progress, 50.0);
    assert_eq!(progress.total, Some(100.0));
    let fractional: ProgressNotificationParams = round_trip(json!({"progressToken": 42, "progress": 0.25}));
    assert_eq!(fractional.progress_token, ProgressToken::Number(42));
    assert_eq!(
        serde_json::to_value(ProgressNotificationParams::new(ProgressToken::from(1), 2.5, Some(10.0)).with_message("m")).unwrap(),
        json!({"progressToken": 1, "progress": 2.5, "total": 10, "message": "m"})
    );

    let cancelled: CancelledNotificationParams = round_trip(json!({"requestId": 123, "reason": "user aborted"}));
    assert_eq!(cancelled.request_id, Some(json!(123)));
    let cancelled: CancelledNotificationParams = round_trip(json!({"requestId": "req-7"}));
    assert_eq!(cancelled, CancelledNotificationParams::new("req-7"));
    let no_id: CancelledNotificationParams = round_trip(json!({"reason": "task"}));
    assert!(no_id.request_id.is_none());

    let updated: ResourceUpdatedNotificationParams = round_trip(json!({"uri": "file:///watch/a", "_meta": {"n": 2}}));
    assert_eq!(updated.uri, "file:///watch/a");

    assert_eq!(round_trip::<NotificationParams>(json!({})), NotificationParams::default());
    let with_meta: NotificationParams = round_trip(json!({"_meta": {"source": "fs"}}));
    assert!(with_meta.meta.is_some());
}

// ---------------------------------------------------------------- sampling

#[test]
fn create_message_request() {
    let params: CreateMessageRequestParams = round_trip(json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What's the weather in Paris?"}},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "call_1",
                 "content": [{"type": "text", "text": "21C, sunny"}],
                 "structuredContent": {"temperature": 21},
                 "isError": false,
                 "_meta": {"cache": "k"}}
            ]},
            {"role": "user", "content": {"type": "image", "data": "AAA=", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "audio", "data": "BBB=", "mimeType": "audio/wav"}, "_meta": {"m": 1}}
        ],
        "modelPreferences": {
            "hints": [{"name": "claude-3-sonnet"}, {"name": "claude"}],
            "costPriority": 0.3,
            "speedPriority": 0.8,
            "intelligencePriority": 0.5
        },
        "systemPrompt": "You are helpful.",
        "includeContext": "thisServer",
        "temperature": 0.7,
        "maxTokens": 1000,
        "stopSequences": ["\n\nHuman:"],
        "metadata": {"provider": {"top_k": 5}},
        "tools": [{"name": "get_weather", "description": "Weather", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "required"},
        "_meta": {"progressToken": 11}
    }));
    assert_eq!(params.max_tokens, 1000);
    assert_eq!(params.include_context, Some(IncludeContext::ThisServer));
    assert_eq!(params.tool_choice.as_ref().unwrap().mode, Some(ToolChoiceMode::Required));
    assert!(matches!(&params.messages[0].content, SamplingContent::One(SamplingContentBlock::Text(_))));
    let many = params.messages[1].content.blocks();
    assert_eq!(many.len(), 2);
    assert!(matches!(&many[1], SamplingContentBlock::ToolUse(u) if u.name == "get_weather"));
    assert!(matches!(
        &params.messages[2].content.blocks()[0],
        SamplingContentBlock::ToolResult(r) if r.tool_use_id == "call_1"
    ));
    assert!(matches!(&params.messages[3].content.blocks()[0], SamplingContentBlock::Image(_)));
    assert!(matches!(&params.messages[4].content.blocks()[0], SamplingContentBlock::Audio(_)));

    for mode in ["auto", "none", "required"] {
        round_trip::<ToolChoice>(json!({"mode": mode}));
    }
    for ctx in ["none", "thisServer", "allServers"] {
        round_trip::<IncludeContext>(json!(ctx));
    }
    rejects::<SamplingContent>(json!({"type": "resource_link", "uri": "x", "name": "y"}));
    rejects::<SamplingContent>(json!([{"type": "text"}]));
    rejects::<CreateMessageRequestParams>(json!({"messages": []}));

    let built = CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 50);
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 50})
    );
}

#[test]
fn create_message_result() {
    let single: CreateMessageResult = round_trip(json!({
        "role": "assistant",
        "content": {"type": "text", "text": "It is sunny."},
        "model": "claude-3-sonnet-20240307",
        "stopReason": "endTurn"
    }));
    assert_eq!(single.content.blocks()[0].as_text(), Some("It is sunny."));

    let tool_use: CreateMessageResult = round_trip(json!({
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "c1", "name": "a", "input": {}},
            {"type": "tool_use", "id": "c2", "name": "b", "input": {"x": [1, 2]}}
        ],
        "model": "m",
        "stopReason": "toolUse",
        "_meta": {"usage": {"in": 1}}
    }));
    assert!(matches!(tool_use.content, SamplingContent::Many(ref v) if v.len() == 2));

    let empty_array: CreateMessageResult = round_trip(json!({"role": "assistant", "content": [], "model": "m"}));
    assert!(empty_array.content.blocks().is_empty());

    assert_eq!(
        serde_json::to_value(
            CreateMessageResult::new(Role::Assistant, SamplingContentBlock::text("ok"), "m").with_stop_reason("maxTokens")
        )
        .unwrap(),
        json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m", "stopReason": "maxTokens"})
    );
    assert_eq!(
        SamplingMessage::assistant_text("x"),
        SamplingMessage::new(Role::Assistant, SamplingContent::One(SamplingContentBlock::text("x")))
    );
}

// ---------------------------------------------------------------- elicitation

#[test]
fn elicit_form_request() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
            "subscribe": {"type": "boolean", "default": false},
            "color": {"type": "string", "enum": ["red", "green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1},
            "legacy": {"type": "string", "enum": ["x", "y"], "enumNames": ["Ex", "Why"]}
        },
        "required": ["name"]
    });
    let explicit: ElicitRequestParams = round_trip(json!({
        "mode": "form",
        "message": "Please tell us about yourself",
        "requestedSchema": schema,
        "_meta": {"progressToken": "e1"}
    }));
    match &explicit {
        ElicitRequestParams::Form(f) => {
            assert_eq!(f.mode, Some(ElicitationFormMode::Form));
            assert_eq!(f.requested_schema["required"], json!(["name"]));
            assert!(f.extra.is_empty());
        }
        other => panic!("expected form, got {other:?}"),
    }
    assert_eq!(explicit.message(), "Please tell us about yourself");
    assert!(explicit.meta().is_some());

    // 2025-06-18 shape: no mode at all.
    let implicit: ElicitRequestParams = round_trip(json!({
        "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
    }));
    assert!(matches!(&implicit, ElicitRequestParams::Form(f) if f.mode.is_none()));
    assert_eq!(
        serde_json::to_value(ElicitRequestParams::Form(ElicitRequestFormParams::new(
            "Name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}})
        )))
        .unwrap(),
        serde_json::to_value(&implicit).unwrap()
    );

    rejects::<ElicitRequestParams>(json!({"mode": "telepathy", "message": "m"}));
    rejects::<ElicitRequestParams>(json!({"mode": "form", "message": "no schema"}));
    rejects::<ElicitRequestParams>(json!(["not", "an", "object"]));
}

#[test]
fn elicit_url_request_and_completion() {
    let url: ElicitRequestParams = round_trip(json!({
        "mode": "url",
        "message": "Please sign in to continue",
        "url": "https://auth.example.com/authorize?state=abc",
        "elicitationId": "el-42",
        "_meta": {"progressToken": 4}
    }));
    match &url {
        ElicitRequestParams::Url(u) => {
            assert_eq!(u.elicitation_id.as_deref(), Some("el-42"));
            assert!(u.extra.is_empty());
        }
        other => panic!("expected url, got {other:?}"),
    }
    // 2026-07-28 made elicitationId optional (a multi round-trip input key names it).
    let keyless: ElicitRequestParams =
        serde_json::from_value(json!({"mode": "url", "message": "m", "url": "https://x"})).unwrap();
    assert!(matches!(keyless, ElicitRequestParams::Url(ElicitRequestUrlParams { elicitation_id: None, .. })));

    let built = ElicitRequestParams::Url(ElicitRequestUrlParams::new("m", "https://x", "id1"));
    assert_eq!(
        serde_json::to_value(&built).unwrap(),
        json!({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "id1"})
    );

    let done: ElicitationCompleteNotificationParams = round_trip(json!({"elicitationId": "el-42"}));
    assert_eq!(done, ElicitationCompleteNotificationParams::new("el-42"));

    let data: UrlElicitationRequiredErrorData = round_trip(json!({
        "elicitations": [{
            "mode": "url",
            "message": "Authorize access to your files",
            "url": "https://example.com/connect",
            "elicitationId": "el-1"
        }]
    }));
    assert_eq!(data.elicitations[0].mode, ElicitationUrlMode::Url);
}

#[test]
fn elicit_result() {
    let accepted: ElicitResult = round_trip(json!({
        "action": "accept",
        "content": {"name": "Ada", "age": 36, "subscribe": true, "tags": ["a", "b"]}
    }));
    assert_eq!(accepted.action, ElicitAction::Accept);
    assert_eq!(accepted.content.as_ref().unwrap()["age"], json!(36));
    let declined: ElicitResult = round_trip(json!({"action": "decline"}));
    assert_eq!(declined, ElicitResult::decline());
    let cancelled: ElicitResult = round_trip(json!({"action": "cancel", "_meta": {"why": "closed"}}));
    assert_eq!(cancelled.action, ElicitAction::Cancel);
    assert_eq!(ElicitResult::cancel().action, ElicitAction::Cancel);
    let mut values = serde_json::Map::new();
    values.insert("ok".into(), json!(true));
    assert_eq!(serde_json::to_value(ElicitResult::accept(values)).unwrap(), json!({"action": "accept", "content": {"ok": true}}));
    rejects::<ElicitResult>(json!({"action": "maybe"}));
}

// ---------------------------------------------------------------- roots

#[test]
fn roots_messages() {
    let list: ListRootsResult = round_trip(json!({
        "roots": [
            {"uri": "file:///home/user/project", "name": "Project", "_meta": {"k": 1}},
            {"uri": "file:///tmp"}
        ]
    }));
    assert_eq!(list.roots[0].name.as_deref(), Some("Project"));
    assert_eq!(
        serde_json::to_value(ListRootsResult::new(vec![Root::new("file:///a").with_name("A")])).unwrap(),
        json!({"roots": [{"uri": "file:///a", "name": "A"}]})
    );
}

// ---------------------------------------------------------------- unknown fields

#[test]
fn unknown_fields_survive_everywhere() {
    let result: CallToolResult = round_trip(json!({
        "content": [
            {"type": "text", "text": "t", "future": 1, "annotations": {"audience": ["user"], "future": 2}},
            {"type": "resource", "future": 3, "resource": {"uri": "u:x", "text": "y", "future": 4}},
            {"type": "resource_link", "uri": "u:l", "name": "l", "icons": [{"src": "s", "future": 5}]}
        ],
        "future": {"nested": [6]}
    }));
    assert_eq!(result.extra["future"], json!({"nested": [6]}));
    match &result.content[0] {
        ContentBlock::Text(t) => {
            assert_eq!(t.extra["future"], json!(1));
            assert_eq!(t.annotations.as_ref().unwrap().extra["future"], json!(2));
        }
        other => panic!("unexpected {other:?}"),
    }

    round_trip::<InitializeResult>(json!({
        "protocolVersion": "2099-01-01",
        "capabilities": {"tools": {"listChanged": true, "future": true}, "future": {}},
        "serverInfo": {"name": "s", "version": "1", "future": "yes"},
        "future": 1
    }));
    round_trip::<CreateMessageRequestParams>(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "x"}, "future": 1}],
        "maxTokens": 5,
        "modelPreferences": {"hints": [{"name": "a", "future": 1}], "future": 2},
        "toolChoice": {"mode": "auto", "future": 3},
        "future": 4
    }));
    round_trip::<CompleteRequestParams>(json!({
        "ref": {"type": "ref/prompt", "name": "p", "future": 1},
        "argument": {"name": "a", "value": "b", "future": 2},
        "context": {"arguments": {}, "future": 3},
        "future": 4
    }));
    round_trip::<ElicitRequestParams>(json!({
        "mode": "url", "message": "m", "url": "https://x", "elicitationId": "i", "future": 1
    }));
    round_trip::<ListPromptsResult>(json!({
        "prompts": [{"name": "p", "arguments": [{"name": "a", "future": 1}], "future": 2}],
        "future": 3
    }));
    round_trip::<ListResourceTemplatesResult>(json!({
        "resourceTemplates": [{"uriTemplate": "t://{x}", "name": "t", "future": 1}],
        "future": 2
    }));
    round_trip::<ProgressNotificationParams>(json!({"progressToken": 1, "progress": 1, "future": true}));
    round_trip::<ListRootsResult>(json!({"roots": [{"uri": "file:///", "future": 1}], "future": 2}));
    round_trip::<ToolAnnotations>(json!({"readOnlyHint": true, "future": 1}));
}
