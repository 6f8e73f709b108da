//! `oxmcp conformance-client URL`: the client side of the official conformance suite.
//! The suite starts a mock server, then runs this command with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO` (and, for some scenarios, the calls to make in
//! `MCP_CONFORMANCE_CONTEXT`); the mock server checks what the client did on the wire.
//!
//! The client is the library's default one (era Auto: `server/discover`, falling back to
//! `initialize`), so what the suite scores is what a user of oxmcp gets.

use anyhow::{bail, Context, Result};
use oxmcp::auth::{headless_agent, Grant, OAuth, OAuthOptions};
use oxmcp::client::Client;
use oxmcp::protocol::{ElicitAction, ElicitResult, SkillFiles, Tool};
use oxmcp::transport::http::HttpClientTransport;
use serde_json::{json, Map, Value};

/// The tool the schema-preservation scenario describes, and the one that echoes it back.
const RICH_SCHEMA_TOOL: &str = "json_schema_2020_12_tool";
const SCHEMA_ECHO_TOOL: &str = "json_schema_echo";

/// Runs one scenario against `url`.
pub async fn run(url: &str) -> Result<()> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_else(|_| "initialize".into());
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text).context("MCP_CONFORMANCE_CONTEXT is not JSON")?,
        Err(_) => Value::Null,
    };
    let builder = Client::builder("oxmcp-conformance-client", env!("CARGO_PKG_VERSION")).on_elicitation(|_params, _ctx| async {
        // Accept with nothing filled in: the client library fills every field the
        // requested schema gives a default for (SEP-1034).
        Ok(ElicitResult::new(ElicitAction::Accept))
    });
    let mut transport = HttpClientTransport::new(url);
    if let Some(oauth) = oauth_for(&scenario, &context) {
        transport = transport.oauth(oauth);
    }
    let client = builder.connect(transport).await.context("connecting failed")?;
    if scenario.starts_with("sep-2640-client-") {
        let outcome = skills(&client, &scenario).await;
        client.close().await;
        return outcome;
    }
    let tools = client.list_all_tools().await?;
    if scenario.starts_with("auth/") {
        // The protected server's scenarios: connect, list, and call what is listed.
        call_every_tool(&client, &tools).await?;
        client.close().await;
        return Ok(());
    }
    match scenario.as_str() {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => {}
        "tools_call"
        | "tools-call"
        | "elicitation-sep1034-client-defaults"
        | "sse-retry"
        | "sep-2322-client-request-state"
        | "http-invalid-tool-headers" => call_every_tool(&client, &tools).await?,
        "http-custom-headers" => call_from_context(&client, &context).await?,
        "http-standard-headers" => {
            call_every_tool(&client, &tools).await?;
            for resource in client.list_all_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_all_prompts().await? {
                client.get_prompt(&prompt.name, Vec::<(String, String)>::new()).await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let rich =
                tools.iter().find(|t| t.name == RICH_SCHEMA_TOOL).context("the server lists no json_schema_2020_12_tool")?;
            client.call_tool(SCHEMA_ECHO_TOOL, json!({ "schema": rich.input_schema })).await?;
        }
        other => bail!("scenario {other:?} is not supported by oxmcp conformance-client"),
    }
    client.close().await;
    Ok(())
}

/// The skills extension's host scenarios: list the server's skills (which fetches no
/// file), then, unless the scenario checks exactly that nothing is fetched, load the first
/// skill and read its supporting files. Loading checks `SKILL.md` against the entry, so
/// content failing a check ends the run before any supporting file is read.
async fn skills(client: &Client, scenario: &str) -> Result<()> {
    let skills = client.list_all_skills().await?;
    if scenario == "sep-2640-client-no-prefetch" {
        return Ok(());
    }
    let skill = skills.first().context("the server lists no skill")?;
    let loaded = client.load_skill(skill).await?;
    if let SkillFiles::Listed(files) = &loaded.skill.resources {
        for file in files.iter().filter(|f| f.uri != skill.uri) {
            client.read_skill_file(&loaded.skill, &file.uri).await?;
        }
    }
    Ok(())
}

/// The OAuth client an authorization scenario calls for: credentials from the scenario's
/// context where it gives some (pre-registration, client credentials), else a client
/// that registers itself or uses its metadata document URL. The suite's authorization
/// server grants at once, so the headless agent plays the user.
fn oauth_for(scenario: &str, context: &Value) -> Option<OAuth> {
    if !scenario.starts_with("auth/") {
        return None;
    }
    let text = |k: &str| context.get(k).and_then(Value::as_str).map(str::to_string);
    let mut options = OAuthOptions {
        client_name: Some("oxmcp-conformance-client".into()),
        redirect_uri: Some("http://localhost:3000/callback".into()),
        client_metadata_url: Some(CLIENT_METADATA_URL.into()),
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        private_key_pem: text("private_key_pem"),
        signing_alg: text("signing_algorithm"),
        ..Default::default()
    };
    options.grant = match scenario {
        s if s.starts_with("auth/client-credentials") => Grant::ClientCredentials,
        "auth/wif-jwt-bearer" => {
            options.assertion = text("valid_jwt");
            Grant::JwtBearer
        }
        "auth/enterprise-managed-authorization" | "auth/cross-app-access-complete-flow" => {
            options.id_token = text("idp_id_token");
            options.idp_token_endpoint = text("idp_token_endpoint");
            options.idp_client_id = text("idp_client_id");
            Grant::EnterpriseManaged
        }
        _ => Grant::AuthorizationCode,
    };
    Some(OAuth::new(options).user_agent(headless_agent()))
}

/// The client ID metadata document URL the suite expects (it serves no document: its
/// authorization server takes the URL as it is).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Calls each listed tool once, with arguments made from its input schema.
async fn call_every_tool(client: &Client, tools: &[Tool]) -> Result<()> {
    for tool in tools {
        let result = client.call_tool(&tool.name, sample_arguments(&tool.input_schema)).await?;
        println!("{}: {}", tool.name, serde_json::to_string(&result.content)?);
    }
    Ok(())
}

/// Makes the calls the scenario lists in its context (`toolCalls: [{name, arguments}]`).
async fn call_from_context(client: &Client, context: &Value) -> Result<()> {
    let calls = context.get("toolCalls").and_then(Value::as_array).context("the scenario's context lists no toolCalls")?;
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).context("a toolCalls entry has no name")?;
        let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let result = client.call_tool(name, arguments).await?;
        println!("{name}: {}", serde_json::to_string(&result.content)?);
    }
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
