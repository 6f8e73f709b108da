//! `oxmcp conformance-client URL`: the client side of the official conformance suite.
//! The suite starts a mock server, then runs this command with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`; the mock server checks what the client did.

use anyhow::{bail, Context, Result};
use oxmcp::client::Client;
use oxmcp::protocol::{ElicitAction, ElicitResult};
use oxmcp::transport::http::HttpClientTransport;
use serde_json::{json, Map, Value};

/// Runs one scenario against `url`.
pub async fn run(url: &str) -> Result<()> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_else(|_| "initialize".into());
    let builder = Client::builder("oxmcp-conformance-client", env!("CARGO_PKG_VERSION")).on_elicitation(|_params, _ctx| async {
        // Accept with nothing filled in: the client library fills every field the
        // requested schema gives a default for (SEP-1034).
        Ok(ElicitResult::new(ElicitAction::Accept))
    });
    let transport = HttpClientTransport::new(url);
    let client = builder.connect(transport).await.context("initialize failed")?;
    let tools = client.list_all_tools().await?;
    match scenario.as_str() {
        "initialize" => {}
        "tools_call" | "tools-call" => {
            for tool in &tools {
                let args = sample_arguments(&tool.input_schema);
                let result = client.call_tool(&tool.name, args).await?;
                println!("{}: {}", tool.name, serde_json::to_string(&result.content)?);
            }
        }
        "elicitation-sep1034-client-defaults" | "sse-retry" => {
            for tool in &tools {
                let result = client.call_tool(&tool.name, sample_arguments(&tool.input_schema)).await?;
                println!("{}: {}", tool.name, serde_json::to_string(&result.content)?);
            }
        }
        other => bail!("scenario {other:?} is not supported by oxmcp conformance-client"),
    }
    client.close().await;
    Ok(())
}

/// Arguments that satisfy a simple input schema: a value per required property.
fn sample_arguments(schema: &Value) -> Value {
    let mut args = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let kind = props.and_then(|p| p.get(name)).and_then(|p| p.get("type")).and_then(Value::as_str).unwrap_or("string");
        let v = match kind {
            "number" | "integer" => json!(2),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("test"),
        };
        args.insert(name.to_string(), v);
    }
    Value::Object(args)
}
