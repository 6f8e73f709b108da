//! The README's quickstart: a server with one tool, and a client that starts it as a child
//! process over stdio and calls the tool.
//!
//! `cargo run -p oxmcp --example quickstart` runs the client, which spawns this same
//! program with `serve` as the server.

use oxmcp::client::Client;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::Server;
use oxmcp::transport::ChildProcess;
use serde_json::json;

#[tokio::main]
async fn main() -> oxmcp::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("serve") {
        return serve().await;
    }
    let me = std::env::current_exe()?;
    let client = Client::builder("quickstart-client", "1.0.0").connect(ChildProcess::new(me).args(["serve"]).spawn()?).await?;
    let server = client.server_info();
    println!("connected to {} {} ({})", server.name, server.version, client.protocol_version());
    let result = client.call_tool("add", json!({"a": 2, "b": 40})).await?;
    println!("add(2, 40) = {}", result.content[0].as_text().unwrap_or("?"));
    client.close().await;
    Ok(())
}

async fn serve() -> oxmcp::Result<()> {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    Server::builder("quickstart-server", "1.0.0")
        .tool(Tool::new("add", "Add two integers", schema), |args, _ctx| async move {
            // Arguments were validated against the schema before this runs.
            let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
            Ok(CallToolResult::text(sum.to_string()))
        })
        .build()?
        .serve_stdio()
        .await
}
