//! `oxmcp everything-server`: a server that exercises every feature, with the fixture
//! names the official conformance suite looks up, plus `echo` and `slow` for benchmarks
//! and cancellation tests.

use std::time::Duration;

use oxmcp::protocol::{
    CallToolResult, Completion, CompletionReference, ContentBlock, CreateMessageRequestParams, ElicitAction,
    ElicitRequestFormParams, ElicitRequestParams, EmbeddedResource, GetPromptResult, LoggingLevel, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, SamplingMessage, Tool,
    ToolAnnotations,
};
use oxmcp::server::{Arguments, RequestContext, Server, ServerBuilder};
use oxmcp::{Error, Result};
use serde_json::{json, Value};

use crate::media::{png_base64, wav_base64};

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required })
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

fn embedded_text(uri: &str, text: &str) -> ContentBlock {
    ContentBlock::resource(ResourceContents::text(uri, text).with_mime_type("text/plain"))
}

/// The everything server.
pub fn server() -> Server {
    server_with(Default::default(), None).expect("the everything server builds")
}

/// [`server`] with these settings (e.g. the `requestState` key a scaled-out deployment
/// shares), also serving the skills under `skills_dir` (each directory holding a
/// `SKILL.md`); fails on a skills directory that cannot be served.
pub fn server_with(config: oxmcp::server::ServerConfig, skills_dir: Option<&std::path::Path>) -> oxmcp::Result<Server> {
    let mut b = Server::builder("oxmcp-everything", env!("CARGO_PKG_VERSION"))
        .config(config)
        .instructions("A test server: every MCP feature with the conformance suite's fixture names.");
    if let Some(dir) = skills_dir {
        b = b.skills_dir(dir);
    }
    let b = tools(b);
    let b = resources(b);
    let b = prompts(b);
    let b = crate::input_required_fixtures::add(b);
    let b = crate::task_fixtures::add(b);
    let b = crate::skill_fixtures::add(b);
    let server = b
        .completion(|params: oxmcp::protocol::CompleteRequestParams, _ctx| async move {
            let candidates: &[&str] = match (&params.reference, params.argument.name.as_str()) {
                (CompletionReference::Prompt(_), "arg1") => &["alpha", "alpine", "beta", "gamma"],
                (CompletionReference::Prompt(_), "arg2") => &["one", "two", "three"],
                (CompletionReference::Resource(_), "id") => &["1", "2", "3", "10", "42"],
                _ => &["paris", "park", "python", "rust"],
            };
            let prefix = params.argument.value.as_str();
            let values: Vec<String> = candidates.iter().filter(|c| c.starts_with(prefix)).map(|c| c.to_string()).collect();
            Ok(Completion { total: Some(values.len() as u64), has_more: Some(false), values, ..Default::default() })
        })
        .build()?;
    add_list_triggers(&server);
    Ok(server)
}

fn simple_prompt() -> Prompt {
    Prompt::new("test_simple_prompt").with_description("A prompt without arguments")
}

async fn simple_prompt_result() -> Result<GetPromptResult> {
    Ok(GetPromptResult::new(vec![PromptMessage::text(Role::User, "This is a simple prompt for testing.")]))
}

/// `test_trigger_tool_change` and `test_trigger_prompt_change`: the hooks the stateless-era
/// suite calls to see list changes reach `subscriptions/listen` streams. Each re-registers
/// an entry (the tool itself with a new description; `test_simple_prompt` as it was), so
/// the server tells its clients to list again while the names stay the same. They hold
/// the server, which lives as long as the process anyway.
/// Adds `crash`: writes `fatal: crash requested` to stderr and exits with status 3 after
/// `ms` milliseconds (default 100). Only for a server on stdio that a test starts as its
/// child (`everything-server --stdio --with-crash-tool`): the fault-handling tests of every
/// host check that all calls pending then fail with the exit status and that stderr line.
pub fn add_crash_tool(server: &Server) {
    let schema = json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}});
    let tool = Tool::new("crash", "Ends the server process: stderr line, then exit status 3.", schema);
    let _ = server.add_tool(tool, |args, _| async move {
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(100);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        eprintln!("fatal: crash requested");
        std::process::exit(3);
        #[allow(unreachable_code)]
        Ok(CallToolResult::text(""))
    });
}

/// Adds `whoami`, which answers with what the request's access token says (subject,
/// client, scopes, claims): on a protected server, what reached the handler.
/// A scaled-out deployment's `touch_resource` tool: tells every subscriber of `uri`, on
/// every node, that it changed (what a node's own code would do on a real change).
pub fn add_touch_tool(server: &Server) {
    let schema = object(json!({"uri": {"type": "string"}}), &["uri"]);
    let tool = Tool::new("touch_resource", "Tells every subscriber of `uri`, wherever it is connected, that it changed.", schema);
    let server_ = server.clone();
    let _ = server.add_tool(tool, move |args: Arguments, _| {
        let server = server_.clone();
        async move {
            let uri = args["uri"].as_str().unwrap_or_default().to_string();
            server.notify_resource_updated(&uri);
            Ok(CallToolResult::text(format!("touched {uri}")))
        }
    });
}

pub fn add_whoami_tool(server: &Server) {
    let tool = Tool::new("whoami", "Who the request's access token speaks for.", no_args());
    let _ = server.add_tool(tool, |_, ctx| async move {
        let who = serde_json::to_value(ctx.auth()).unwrap_or(Value::Null);
        Ok(CallToolResult::text(who.to_string()))
    });
}

fn add_list_triggers(server: &Server) {
    fn trigger_tool(changes: u64) -> Tool {
        Tool::new("test_trigger_tool_change", format!("Changes the tool list (changed {changes} times so far)."), no_args())
    }
    fn register(server: &Server, changes: u64) {
        let again = server.clone();
        let _ = server.add_tool(trigger_tool(changes), move |_, _| {
            register(&again, changes + 1);
            async { Ok(CallToolResult::text("the tool list changed")) }
        });
    }
    register(server, 0);
    let again = server.clone();
    let _ = server.add_tool(Tool::new("test_trigger_prompt_change", "Changes the prompt list.", no_args()), move |_, _| {
        again.add_prompt(simple_prompt(), |_, _| simple_prompt_result());
        async { Ok(CallToolResult::text("the prompt list changed")) }
    });
}

fn tools(b: ServerBuilder) -> ServerBuilder {
    b.tool(Tool::new("echo", "Returns its `text` argument as one text block.", object(json!({"text": {"type": "string"}}), &["text"]))
            .with_annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() }),
        |args: Arguments, _ctx| async move { Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default())) })
    .tool(
        Tool::new(
            "slow",
            "Sleeps `ms` milliseconds unless cancelled; returns `tag`. With `steps`, reports that many progress steps along the way; with `poll`, first ends its response stream (the client resumes it).",
            object(json!({
                "tag": {"type": "integer"},
                "ms": {"type": "integer", "minimum": 0},
                "steps": {"type": "integer", "minimum": 0, "maximum": 1000},
                "poll": {"type": "boolean"}
            }), &["tag", "ms"]),
        ),
        |args: Arguments, ctx: RequestContext| async move {
            let ms = args["ms"].as_u64().unwrap_or(0);
            let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(0).min(1000);
            if args.get("poll").and_then(Value::as_bool) == Some(true) {
                ctx.end_response_stream();
            }
            let work = async {
                for step in 1..=steps {
                    tokio::time::sleep(Duration::from_millis(ms / steps)).await;
                    let _ = ctx.report_progress(step as f64, Some(steps as f64), None);
                }
                tokio::time::sleep(Duration::from_millis(if steps == 0 { ms } else { ms % steps })).await;
            };
            tokio::select! {
                _ = work => Ok(CallToolResult::text(format!("slow {} done", args["tag"]))),
                _ = ctx.cancelled() => {
                    // Tells observers (tests, benchmarks) that the cancel reached the handler.
                    let _ = ctx.log_with_logger(LoggingLevel::Info, Some("slow"), json!(format!("slow tag={} cancelled", args["tag"])));
                    Err(Error::internal("cancelled"))
                }
            }
        },
    )
    .tool(Tool::new("test_simple_text", "Returns a simple text response.", no_args()), |_, _| async {
        Ok(CallToolResult::text("This is a simple text response for testing."))
    })
    .tool(Tool::new("test_image_content", "Returns an image.", no_args()), |_, _| async {
        Ok(CallToolResult::new(vec![ContentBlock::image(png_base64(8, [220, 40, 40]), "image/png")]))
    })
    .tool(Tool::new("test_audio_content", "Returns audio.", no_args()), |_, _| async {
        Ok(CallToolResult::new(vec![ContentBlock::audio(wav_base64(100, 440.0), "audio/wav")]))
    })
    .tool(Tool::new("test_embedded_resource", "Returns an embedded resource.", no_args()), |_, _| async {
        Ok(CallToolResult::new(vec![embedded_text("test://embedded-resource", "This is an embedded resource content.")]))
    })
    .tool(Tool::new("test_multiple_content_types", "Returns text, an image and a resource.", no_args()), |_, _| async {
        Ok(CallToolResult::new(vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(png_base64(8, [40, 160, 40]), "image/png"),
            ContentBlock::resource(
                ResourceContents::text("test://mixed-content-resource", r#"{"test":"data","value":123}"#).with_mime_type("application/json"),
            ),
        ]))
    })
    .tool(Tool::new("test_tool_with_logging", "Sends three log messages while it runs.", no_args()), |_, ctx: RequestContext| async move {
        for (i, text) in ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate() {
            ctx.log_with_logger(LoggingLevel::Info, Some("everything"), json!(text))?;
            if i < 2 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Ok(CallToolResult::text("Tool with logging executed successfully"))
    })
    .tool(Tool::new("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100.", no_args()), |_, ctx: RequestContext| async move {
        for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            ctx.report_progress(p, Some(100.0), Some(&format!("Completed step {i} of 2")))?;
            if i < 2 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Ok(CallToolResult::text(format!("Progress test completed ({})", ctx.progress_token().map_or("no progress token".into(), |t| format!("token {}", json!(t))))))
    })
    .tool(Tool::new("test_error_handling", "Always fails with an isError result.", no_args()), |_, _| async {
        Ok(CallToolResult::error_text("This tool intentionally returns an error for testing"))
    })
    .tool(
        Tool::new("test_sampling", "Asks the client's model (sampling/createMessage).", object(json!({"prompt": {"type": "string"}}), &["prompt"])),
        |args: Arguments, ctx: RequestContext| async move {
            let prompt = args["prompt"].as_str().unwrap_or_default().to_string();
            let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
            let reply = ctx.create_message(params).await?;
            let text: Vec<&str> = reply.content.blocks().iter().filter_map(|b| b.as_text()).collect();
            Ok(CallToolResult::text(format!("LLM response: {}", text.join(" "))))
        },
    )
    .tool(
        Tool::new("test_elicitation", "Asks the user (elicitation/create).", object(json!({"message": {"type": "string"}}), &["message"])),
        |args: Arguments, ctx: RequestContext| async move {
            let schema = object(json!({
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            }), &["username", "email"]);
            let message = args["message"].as_str().unwrap_or("Please provide your information").to_string();
            elicit_and_report(&ctx, message, schema).await
        },
    )
    .tool(Tool::new("test_elicitation_sep1034_defaults", "Elicitation whose fields have defaults (SEP-1034).", no_args()), |_, ctx: RequestContext| async move {
        let schema = object(json!({
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }), &[]);
        elicit_and_report(&ctx, "Please review and update the form fields with defaults".into(), schema).await
    })
    .tool(Tool::new("test_elicitation_sep1330_enums", "Elicitation with every enum form (SEP-1330).", no_args()), |_, ctx: RequestContext| async move {
        let schema = object(json!({
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"}]},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}]}}
        }), &[]);
        elicit_and_report(&ctx, "Please select options from the enum fields".into(), schema).await
    })
    .tool(
        // The suite's json-schema-2020-12 scenario checks that these keywords reach the
        // listing unchanged: $schema, $defs (with an $anchor), additionalProperties, allOf
        // holding anyOf, and if/then/else. As a contract: a phone or an email is needed,
        // and the one contactMethod names.
        Tool::new("json_schema_2020_12_tool", "A tool whose input schema uses JSON Schema 2020-12 features.", json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })),
        |args: Arguments, _| async move { Ok(CallToolResult::text(format!("Received: {}", Value::Object(args)))) },
    )
    .tool(
        // SEP-2243: over 2026-07-28 HTTP, a client mirrors region, priority and verbose into
        // Mcp-Param-Region, -Priority and -Verbose; the server refuses a call whose headers
        // are missing or disagree (the suite's http-custom-header-server-validation).
        Tool::new("test_custom_headers", "Mirrors region, priority and verbose into Mcp-Param-* headers (x-mcp-header).", object(json!({
            "region": {"type": "string", "description": "Routing region", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "description": "Priority", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "description": "Verbose output", "x-mcp-header": "Verbose"},
            "query": {"type": "string", "description": "Not mirrored"}
        }), &["region", "priority", "query"])),
        |args: Arguments, _| async move { Ok(CallToolResult::text(format!("Custom headers test completed: {}", Value::Object(args)))) },
    )
    .tool(Tool::new("test_reconnection", "Closes its SSE stream mid-call; the client resumes it to get the answer (2025-11-25 polling).", no_args()), |_, ctx: RequestContext| async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.end_response_stream();
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(CallToolResult::text("Reconnection test completed"))
    })
}

async fn elicit_and_report(ctx: &RequestContext, message: String, schema: Value) -> Result<CallToolResult> {
    let answer = ctx.elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new(message, schema))).await?;
    let action = match answer.action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
    };
    let content = answer.content.map(Value::Object).unwrap_or(Value::Null);
    Ok(CallToolResult::text(format!("User response: action={action}, content={content}")))
}

fn resources(b: ServerBuilder) -> ServerBuilder {
    b.resource(
        Resource::new("test://static-text", "static-text")
            .with_description("A static text resource")
            .with_mime_type("text/plain"),
        |req: oxmcp::server::ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![
                ResourceContents::text(req.uri, "This is the content of the static text resource.").with_mime_type("text/plain")
            ]))
        },
    )
    .resource(
        Resource::new("test://static-binary", "static-binary")
            .with_description("A static binary resource (PNG)")
            .with_mime_type("image/png"),
        |req: oxmcp::server::ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![
                ResourceContents::blob(req.uri, png_base64(4, [0, 0, 255])).with_mime_type("image/png")
            ]))
        },
    )
    .resource(
        Resource::new("test://watched-resource", "watched-resource")
            .with_description("A resource to subscribe to")
            .with_mime_type("text/plain"),
        |req: oxmcp::server::ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![
                ResourceContents::text(req.uri, "Watched resource content").with_mime_type("text/plain")
            ]))
        },
    )
    .resource_template(
        ResourceTemplate::new("test://template/{id}/data", "template").with_description("A templated resource"),
        |req: oxmcp::server::ResourceRequest, _| async move {
            let id = req.variables.get("id").cloned().unwrap_or_default();
            let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok(ReadResourceResult::new(
                vec![ResourceContents::text(req.uri, body.to_string()).with_mime_type("application/json")],
            ))
        },
    )
}

fn prompts(b: ServerBuilder) -> ServerBuilder {
    b.prompt(simple_prompt(), |_, _| simple_prompt_result())
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .with_description("A prompt with two arguments")
                .with_argument(PromptArgument::new("arg1").with_description("First test argument").required(true))
                .with_argument(PromptArgument::new("arg2").with_description("Second test argument").required(true)),
            |args: oxmcp::server::PromptArguments, _| async move {
                let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args["arg1"], args["arg2"]);
                Ok(GetPromptResult::new(vec![PromptMessage::text(Role::User, text)]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource").with_description("A prompt that embeds a resource").with_argument(
                PromptArgument::new("resourceUri").with_description("URI of the resource to embed").required(true),
            ),
            |args: oxmcp::server::PromptArguments, _| async move {
                let uri = args["resourceUri"].clone();
                Ok(GetPromptResult::new(vec![
                    PromptMessage::new(
                        Role::User,
                        ContentBlock::Resource(EmbeddedResource::new(
                            ResourceContents::text(uri, "Embedded resource content for testing.").with_mime_type("text/plain"),
                        )),
                    ),
                    PromptMessage::text(Role::User, "Please process the embedded resource above."),
                ]))
            },
        )
        .prompt(Prompt::new("test_prompt_with_image").with_description("A prompt with an image"), |_, _| async {
            Ok(GetPromptResult::new(vec![
                PromptMessage::new(Role::User, ContentBlock::image(png_base64(8, [200, 200, 0]), "image/png")),
                PromptMessage::text(Role::User, "Please analyze the image above."),
            ]))
        })
}
