//! The everything server's fixtures for multi round-trip requests (2026-07-28,
//! `InputRequiredResult`), with the names and input keys the official conformance suite
//! uses. The handlers are ordinary: they ask with `ctx.elicit()` / `create_message()` /
//! `list_roots()`, and the engine turns the asks into input requests when the client
//! speaks the stateless era (in the session era they are requests to the client).

use oxmcp::protocol::{
    CallToolResult, CreateMessageRequestParams, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, GetPromptResult,
    LoggingLevel, Prompt, PromptMessage, Role, SamplingMessage, Tool,
};
use oxmcp::server::{RequestContext, ServerBuilder};
use oxmcp::Result;
use serde_json::{json, Value};

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

fn form(message: &str, field: &str, kind: &str) -> ElicitRequestParams {
    let schema = json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]});
    ElicitRequestParams::Form(ElicitRequestFormParams::new(message, schema))
}

fn answered(r: &ElicitResult, field: &str) -> String {
    r.content
        .as_ref()
        .and_then(|c| c.get(field))
        .map_or_else(|| "(none)".into(), |v| v.as_str().map_or(v.to_string(), str::to_owned))
}

fn question(text: &str, max_tokens: u64) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

async fn ask_name(ctx: &RequestContext, key: &str) -> Result<String> {
    Ok(answered(&ctx.keyed(key).elicit(form("What is your name?", "name", "string")).await?, "name"))
}

/// Adds the tools and the prompt.
pub fn add(b: ServerBuilder) -> ServerBuilder {
    b.tool(Tool::new("test_input_required_result_elicitation", "Asks the user's name (key user_name).", no_args()), |_, ctx: RequestContext| async move {
        Ok(CallToolResult::text(format!("Hello, {}!", ask_name(&ctx, "user_name").await?)))
    })
    .tool(Tool::new("test_input_required_result_sampling", "Asks the client's model a question (key capital_question).", no_args()), |_, ctx: RequestContext| async move {
        let answer = ctx.keyed("capital_question").create_message(question("What is the capital of France?", 100)).await?;
        Ok(CallToolResult::text(format!("The model said: {}", serde_json::to_value(&answer.content).unwrap_or_default())))
    })
    .tool(Tool::new("test_input_required_result_list_roots", "Asks the client's roots (key client_roots).", no_args()), |_, ctx: RequestContext| async move {
        let roots = ctx.keyed("client_roots").list_roots().await?;
        let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
        Ok(CallToolResult::text(format!("Roots: {}", uris.join(", "))))
    })
    .tool(Tool::new("test_input_required_result_request_state", "Asks for a confirmation; the answer comes back through requestState.", no_args()), |_, ctx: RequestContext| async move {
        let r = ctx.keyed("confirm").elicit(form("Please confirm", "ok", "boolean")).await?;
        Ok(CallToolResult::text(format!("state-ok: confirmed={}", answered(&r, "ok"))))
    })
    .tool(Tool::new("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered requestState is refused.", no_args()), |_, ctx: RequestContext| async move {
        let r = ctx.keyed("confirm").elicit(form("Please confirm", "ok", "boolean")).await?;
        Ok(CallToolResult::text(format!("confirmed={}", answered(&r, "ok"))))
    })
    .tool(Tool::new("test_input_required_result_multiple_inputs", "Asks three things at once.", no_args()), |_, ctx: RequestContext| async move {
        let (greeter, rooter) = (ctx.keyed("greeting"), ctx.keyed("client_roots"));
        let (name, greeting, roots) = futures::join!(
            ask_name(&ctx, "user_name"),
            greeter.create_message(question("Generate a greeting", 50)),
            rooter.list_roots(),
        );
        let (name, _greeting, roots) = (name?, greeting?, roots?);
        Ok(CallToolResult::text(format!("Hello, {name}! ({} roots)", roots.roots.len())))
    })
    .tool(Tool::new("test_input_required_result_multi_round", "Asks two things one after the other.", no_args()), |_, ctx: RequestContext| async move {
        let name = answered(&ctx.keyed("step1").elicit(form("Step 1: What is your name?", "name", "string")).await?, "name");
        let color = answered(&ctx.keyed("step2").elicit(form("Step 2: What is your favorite color?", "color", "string")).await?, "color");
        Ok(CallToolResult::text(format!("{name} likes {color}")))
    })
    .tool(Tool::new("test_input_required_result_capabilities", "Asks only what the client can answer.", no_args()), |_, ctx: RequestContext| async move {
        let caps = ctx.client_capabilities().cloned().unwrap_or_default();
        let mut said = Vec::new();
        if caps.sampling.is_some() {
            let r = ctx.keyed("capital_question").create_message(question("What is the capital of France?", 100)).await?;
            said.push(format!("model: {}", serde_json::to_value(&r.content).unwrap_or_default()));
        }
        if caps.elicitation.is_some() {
            said.push(format!("name: {}", ask_name(&ctx, "user_name").await?));
        }
        Ok(CallToolResult::text(if said.is_empty() { "nothing to ask".into() } else { said.join("; ") }))
    })
    // Diagnostics of the stateless-era suite.
    .tool(Tool::new("test_missing_capability", "Needs the client's sampling capability.", no_args()), |_, ctx: RequestContext| async move {
        let r = ctx.create_message(question("Say hello", 20)).await?;
        Ok(CallToolResult::text(format!("The model said: {}", serde_json::to_value(&r.content).unwrap_or_default())))
    })
    .tool(Tool::new("test_streaming_elicitation", "Reports progress, then asks the user something.", no_args()), |_, ctx: RequestContext| async move {
        ctx.report_progress(1.0, Some(2.0), Some("asking"))?;
        Ok(CallToolResult::text(format!("Hello, {}!", ask_name(&ctx, "user_name").await?)))
    })
    .tool(Tool::new("test_logging_tool", "Logs at every level, then answers.", no_args()), |_, ctx: RequestContext| async move {
        for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Warning, LoggingLevel::Error] {
            ctx.log(level, json!(format!("a {level:?} message")))?;
        }
        Ok(CallToolResult::text("logged"))
    })
    .prompt(Prompt::new("test_input_required_result_prompt").with_description("A prompt that asks the user for context first"), |_, ctx: RequestContext| async move {
        let r = ctx.keyed("user_context").elicit(form("What context should the prompt use?", "context", "string")).await?;
        Ok(GetPromptResult::new(vec![PromptMessage::text(Role::User, format!("Use this context: {}", answered(&r, "context")))]))
    })
}
