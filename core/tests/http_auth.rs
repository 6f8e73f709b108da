//! A protected HTTP server (the host's own token check, `TokenVerifier::Custom`): what it
//! publishes, how it refuses, what reaches handlers, and sessions kept to their subject.
//! The OAuth flows against a real authorization server are in tests/auth/.

use std::sync::Arc;

use oxmcp::auth::{AuthInfo, ProtectedResource, TokenVerifier, VerifyFn};
use oxmcp::client::Client;
use oxmcp::protocol::{CallToolResult, Tool};
use oxmcp::server::Server;
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::{Error, ErrorKind};
use serde_json::{json, Value};

/// Tokens are `user:scope,scope`; anything else is refused.
fn verifier() -> VerifyFn {
    Arc::new(|token: String| {
        Box::pin(async move {
            let (user, scopes) = token.split_once(':').ok_or_else(|| Error::new(ErrorKind::Unauthorized, "unknown token"))?;
            Ok(AuthInfo {
                subject: Some(user.to_string()),
                client_id: Some("test-client".into()),
                scopes: scopes.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect(),
                expires_at: None,
                claims: json!({"sub": user}),
            })
        })
    })
}

async fn protected() -> HttpServer {
    let server = Server::builder("guarded", "1.0.0")
        .tool(Tool::new("whoami", "", json!({"type": "object"})), |_, ctx| async move {
            let who = ctx.auth().map(|a| json!({"sub": a.subject, "scopes": a.scopes})).unwrap_or(Value::Null);
            Ok(CallToolResult::text(who.to_string()))
        })
        .tool(Tool::new("delete", "", json!({"type": "object"})), |_, _| async { Ok(CallToolResult::text("deleted")) })
        .build()
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let resource_url = format!("http://{addr}/mcp");
    let mut resource =
        ProtectedResource::new(resource_url, vec!["https://as.example.com".into()], TokenVerifier::Custom(verifier()));
    resource.required_scopes = vec!["read".into()];
    resource.tool_scopes.insert("delete".into(), vec!["write".into()]);
    let config = HttpServerConfig { bind: addr, auth: Some(Arc::new(resource)), ..Default::default() };
    HttpServer::bind(server, config).await.unwrap()
}

fn post(url: &str, token: Option<&str>) -> reqwest::RequestBuilder {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(t) = token {
        r = r.header("authorization", format!("Bearer {t}"));
    }
    r
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn refusals_name_the_metadata_and_the_scopes() {
    let http = protected().await;
    let url = http.url();
    let origin = url.trim_end_matches("/mcp");
    // The metadata needs no token, at the path-aware and the root URL.
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let doc: Value =
            serde_json::from_slice(&reqwest::get(format!("{origin}{path}")).await.unwrap().bytes().await.unwrap()).unwrap();
        assert_eq!(doc["resource"], url);
        assert_eq!(doc["authorization_servers"], json!(["https://as.example.com"]));
        assert_eq!(doc["scopes_supported"], json!(["read", "write"]));
    }
    // No token, a bad token, a token without the server's scope.
    for (token, status, error) in
        [(None, 401, None), (Some("nonsense"), 401, Some("invalid_token")), (Some("ann:"), 403, Some("insufficient_scope"))]
    {
        let r = post(&url, token).body(INIT).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{token:?}");
        let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_string();
        let c = oxmcp::auth::Challenge::bearer(&challenge).unwrap().unwrap();
        assert_eq!(c.resource_metadata.as_deref(), Some(format!("{origin}/.well-known/oauth-protected-resource/mcp").as_str()));
        assert_eq!(c.scope.as_deref(), Some("read"));
        assert_eq!(c.error.as_deref(), error);
        let body: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        assert!(body["error"]["message"].is_string(), "{body}");
    }
    // GET and DELETE are guarded too.
    let r = reqwest::Client::new().get(&url).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = reqwest::Client::new().delete(&url).header("mcp-session-id", "x").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    http.shutdown().await;
}

#[tokio::test]
async fn the_verified_token_reaches_handlers_and_tools_need_their_scopes() {
    let http = protected().await;
    for era in [oxmcp::client::Era::Session, oxmcp::client::Era::Stateless] {
        let transport = HttpClientTransport::new(http.url()).bearer_token("ann:read");
        let client = Client::builder("c", "1").era(era).connect(transport).await.unwrap();
        let who = client.call_tool("whoami", json!({})).await.unwrap();
        let who: Value = serde_json::from_str(who.content[0].as_text().unwrap()).unwrap();
        assert_eq!(who, json!({"sub": "ann", "scopes": ["read"]}), "{era:?}");
        // The tool's own scope: 403 insufficient_scope, which the client reports.
        let e = client.call_tool("delete", json!({})).await.unwrap_err();
        assert!(e.message().contains("403") || e.message().contains("scope"), "{era:?}: {e}");
        client.close().await;
        let transport = HttpClientTransport::new(http.url()).bearer_token("ann:read,write");
        let client = Client::builder("c", "1").era(era).connect(transport).await.unwrap();
        assert!(client.call_tool("delete", json!({})).await.is_ok(), "{era:?}");
        client.close().await;
    }
    http.shutdown().await;
}

#[tokio::test]
async fn a_session_belongs_to_the_subject_that_opened_it() {
    let http = protected().await;
    let url = http.url();
    let r = post(&url, Some("ann:read")).body(INIT).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let with = |token: &str| {
        post(&url, Some(token)).header("mcp-session-id", &sid).header("mcp-protocol-version", "2025-11-25").body(ping)
    };
    // Bob holds a valid token and Ann's session id: not enough.
    let r = with("bob:read").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    // Ann, with a new token (more scopes), goes on.
    let r = with("ann:read,write").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    http.shutdown().await;
}

/// The answer of a stateless-era POST, JSON or SSE.
async fn answer_of(r: reqwest::RequestBuilder) -> Value {
    let body = r.send().await.unwrap().text().await.unwrap();
    let json = body.lines().find_map(|l| l.strip_prefix("data: ").filter(|d| d.contains("\"id\""))).unwrap_or(&body);
    serde_json::from_str(json).unwrap()
}

#[tokio::test]
async fn tasks_belong_to_one_identity_and_a_token_naming_nobody_gets_none() {
    use oxmcp::protocol::{TaskSupport, ToolExecution, TASKS_EXTENSION};
    let verify: VerifyFn = Arc::new(|token: String| {
        Box::pin(async move {
            let (subject, client_id) = match token.as_str() {
                "sub-alice" => (Some("alice".to_string()), None),
                "client-alice" => (None, Some("alice".to_string())),
                "nobody" => (None, None),
                _ => return Err(Error::new(ErrorKind::Unauthorized, "unknown token")),
            };
            Ok(AuthInfo { subject, client_id, claims: json!({}), ..Default::default() })
        })
    });
    let mut job = Tool::new("job", "", json!({"type": "object"}));
    job.execution = Some(ToolExecution { task_support: Some(TaskSupport::Optional), ..Default::default() });
    let server = Server::builder("tasks", "1")
        .tool(job, |_, _| async {
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
            Ok(CallToolResult::text("done"))
        })
        .build()
        .unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let resource = ProtectedResource::new(format!("http://{addr}/mcp"), vec![], TokenVerifier::Custom(verify));
    let config = HttpServerConfig { bind: addr, auth: Some(Arc::new(resource)), ..Default::default() };
    let http = HttpServer::bind(server, config).await.unwrap();
    let request = |token: &str, method: &str, name: Option<&str>, mut params: Value| {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
        });
        let mut r = post(&http.url(), None)
            .header("authorization", format!("Bearer {token}"))
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(name) = name {
            r = r.header("mcp-name", name);
        }
        r.body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string())
    };
    let created = answer_of(request("sub-alice", "tools/call", Some("job"), json!({"name": "job", "arguments": {}}))).await;
    let task_id = created["result"]["taskId"].as_str().expect("a task").to_string();
    let get = |token: &'static str| answer_of(request(token, "tasks/get", Some(&task_id), json!({"taskId": task_id})));
    let mine = get("sub-alice").await;
    assert_eq!(mine["result"]["taskId"], task_id.as_str(), "{mine}");
    // A client called alice is not the user alice.
    let other = get("client-alice").await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    // A token that names nobody gets no task (it would be everybody's).
    let refused = answer_of(request("nobody", "tools/call", Some("job"), json!({"name": "job", "arguments": {}}))).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(get("nobody").await["error"]["code"], -32600);
    http.shutdown().await;
}
