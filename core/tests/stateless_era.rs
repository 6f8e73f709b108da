//! The 2026-07-28 stateless era beside the session era: one server answers requests that
//! carry their version and capabilities in `_meta` (no `initialize`) and sessions that
//! began with `initialize`, over a byte stream (stdio's framing) and over Streamable HTTP.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use oxmcp::client::{Client, Era, ServerNotification};
use oxmcp::protocol::meta;
use oxmcp::protocol::{
    CallToolResult, CreateMessageRequestParams, ElicitAction, ElicitRequestFormParams, ElicitRequestParams, ElicitResult,
    LoggingLevel, ReadResourceResult, Resource, ResourceContents, SamplingMessage, Tool,
};
use oxmcp::server::{RequestContext, Server};
use oxmcp::transport::http::{HttpClientTransport, HttpServer, HttpServerConfig};
use oxmcp::transport::{MemoryTransport, MessageReader, MessageWriter, Outbound, Transport};
use oxmcp::ErrorKind;
use serde_json::{json, Value};

mod common;
use common::Raw;

fn server() -> Server {
    Server::builder("both-eras", "2.0.0")
        .instructions("Serves both eras.")
        .tool(
            Tool::new(
                "echo",
                "echo",
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            ),
            |a: oxmcp::server::Arguments, ctx: RequestContext| async move {
                ctx.log(LoggingLevel::Info, json!("echoing"))?;
                Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default()))
            },
        )
        .tool(Tool::new("greet", "asks a name, then a color", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            let ask = |key: &str, field: &str| {
                let schema = json!({"type": "object", "properties": {field: {"type": "string"}}});
                let ctx = ctx.keyed(key);
                async move { ctx.elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new("?", schema))).await }
            };
            let name = ask("name", "name").await?.content.unwrap_or_default()["name"].clone();
            let color = ask("color", "color").await?.content.unwrap_or_default()["color"].clone();
            Ok(CallToolResult::text(format!("{name} likes {color}")))
        })
        // Its region, priority and target.tenant arguments travel in Mcp-Param-* headers too.
        .tool(
            Tool::new(
                "route",
                "routes on mirrored arguments",
                json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "target": {"type": "object", "properties": {"tenant": {"type": "string", "x-mcp-header": "Tenant"}}}}}),
            ),
            |a: oxmcp::server::Arguments, _| async move { Ok(CallToolResult::text(format!("routed {}", Value::Object(a)))) },
        )
        .resource(Resource::new("test://a", "a"), |req, _| async move {
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(&req.uri, "A")],
                meta: None,
                extra: Default::default(),
            })
        })
        .build()
        .unwrap()
}

/// `_meta` of a stateless-era request.
fn request_meta() -> Value {
    json!({
        meta::PROTOCOL_VERSION: "2026-07-28",
        meta::CLIENT_CAPABILITIES: {},
        meta::CLIENT_INFO: {"name": "stateless-test", "version": "1"},
    })
}

fn request(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = request_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn a_byte_stream_serves_stateless_requests_without_initialize() {
    let (a, b) = MemoryTransport::pair();
    let _session = server().serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };

    let d = raw.ask(request(1, "server/discover", json!({}))).await;
    let r = &d["result"];
    assert_eq!(r["resultType"], "complete");
    assert_eq!(r["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(r["_meta"][meta::SERVER_INFO]["name"], "both-eras");
    assert_eq!(r["instructions"], "Serves both eras.");
    assert!(r["capabilities"]["tools"].is_object() && r["capabilities"]["resources"].is_object());
    assert!(r["ttlMs"].is_u64() && r["cacheScope"] == "private");

    // No log without a logLevel in _meta: the call's answer is the first thing back.
    let c = raw.ask(request(2, "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}))).await;
    assert_eq!(c["id"], 2);
    assert_eq!(c["result"]["content"][0]["text"], "hi");
    assert_eq!(c["result"]["resultType"], "complete");

    let l = raw.ask(request(3, "tools/list", json!({}))).await;
    assert_eq!(l["result"]["tools"][0]["name"], "echo");
    assert!(l["result"]["ttlMs"].is_u64());

    // Errors the era defines.
    let missing = raw
        .ask(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {
        meta::PROTOCOL_VERSION: "2026-07-28"}}}))
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(missing["error"]["message"].as_str().unwrap().contains("clientCapabilities"));
    let old = raw
        .ask(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {
        meta::PROTOCOL_VERSION: "2031-01-01", meta::CLIENT_CAPABILITIES: {}}}}))
        .await;
    assert_eq!(old["error"]["code"], -32022);
    assert_eq!(old["error"]["data"], json!({"requested": "2031-01-01", "supported": ["2026-07-28"]}));
    let ping = raw.ask(request(6, "ping", json!({}))).await;
    assert_eq!(ping["error"]["code"], -32601);
    let missing_resource = raw.ask(request(7, "resources/read", json!({"uri": "test://nope"}))).await;
    assert_eq!(missing_resource["error"]["code"], -32602);
    assert_eq!(missing_resource["error"]["data"]["uri"], "test://nope");

    // The same connection can still begin a session; its requests are session-era ones.
    let init = raw
        .ask(json!({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "old", "version": "1"}}}))
        .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "initialize never negotiates the stateless era");
    let c = raw.ask(json!({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": {"uri": "test://nope"}})).await;
    assert_eq!(c["error"]["code"], -32002, "session era keeps its resource-not-found code");
}

#[tokio::test]
async fn a_stateless_request_with_a_log_level_gets_its_logs() {
    let (a, b) = MemoryTransport::pair();
    let _session = server().serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    let mut call = request(1, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
    call["params"]["_meta"][meta::LOG_LEVEL] = json!("info");
    let first = raw.ask(call).await;
    assert_eq!(first["method"], "notifications/message");
    assert_eq!(first["params"]["data"], "echoing");
}

/// A stateless-era POST of `body` with the headers a conforming client sends:
/// `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name` when the method names something.
fn post(url: &str, body: &Value) -> reqwest::RequestBuilder {
    post_with(url, body, &[])
}

/// [`post`] with headers changed: `(name, Some(value))` sets one, `(name, None)` leaves it out.
fn post_with(url: &str, body: &Value, changes: &[(&str, Option<&str>)]) -> reqwest::RequestBuilder {
    let method = body["method"].as_str().unwrap_or_default();
    let name = match method {
        "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
        "resources/read" => body["params"]["uri"].as_str(),
        _ => None,
    };
    let mut headers: Vec<(&str, &str)> = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
    headers.extend(name.map(|n| ("mcp-name", n)));
    for (header, value) in changes {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(header));
        headers.extend(value.map(|v| (*header, v)));
    }
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (h, v) in headers {
        r = r.header(h, v);
    }
    r.body(body.to_string())
}

/// The status and the JSON body of a response.
async fn answer(r: reqwest::RequestBuilder) -> (u16, Value) {
    let r = r.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

#[tokio::test]
async fn streamable_http_serves_both_eras_at_once() {
    let http = HttpServer::bind(server(), HttpServerConfig::default()).await.unwrap();
    let url = http.url();

    let r =
        post(&url, &request(11, "tools/call", json!({"name": "echo", "arguments": {"text": "over http"}}))).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_none(), "no sessions in this era");
    assert_eq!(r.headers()["content-type"], "application/json");
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!((v["id"].clone(), v["result"]["content"][0]["text"].clone()), (json!(11), json!("over http")));

    // Headers that disagree with the body: 400, -32020, and the request's id.
    let r = post_with(
        &url,
        &request(12, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}})),
        &[("mcp-name", Some("other"))],
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(12), json!(-32020)));
    let r = post_with(&url, &request(13, "tools/list", json!({})), &[("mcp-method", Some("prompts/list"))]).send().await.unwrap();
    assert_eq!(r.status(), 400);

    // Removed methods: 404 with -32601. GET and DELETE: 405.
    let r = post(&url, &request(14, "ping", json!({}))).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(serde_json::from_str::<Value>(&r.text().await.unwrap()).unwrap()["error"]["code"], -32601);
    let r = reqwest::Client::new()
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 405);

    // Logs first: the answer comes as an SSE stream, notification then result.
    let mut call = request(15, "tools/call", json!({"name": "echo", "arguments": {"text": "streamed"}}));
    call["params"]["_meta"][meta::LOG_LEVEL] = json!("debug");
    let r = post(&url, &call).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let text = r.text().await.unwrap();
    let log = text.find("notifications/message").expect("the log");
    let answer = text.find("\"streamed\"").expect("the answer");
    assert!(log < answer, "{text}");

    // A session-era client on the same server at the same time.
    let client =
        Client::builder("session-era", "1").era(Era::Session).connect(HttpClientTransport::new(url.clone())).await.unwrap();
    assert_eq!(client.initialize_result().protocol_version, "2025-11-25");
    let res = client.call_tool("echo", json!({"text": "old"})).await.unwrap();
    assert_eq!(res.content[0].as_text(), Some("old"));
    client.close().await;
    http.shutdown().await;
}

/// SEP-2243: every header that mirrors the body must be there and agree with it.
#[tokio::test]
async fn streamable_http_refuses_missing_or_disagreeing_mirrored_headers() {
    let http = HttpServer::bind(server(), HttpServerConfig::default()).await.unwrap();
    let url = http.url();
    let refused = |(status, body): (u16, Value), id: Value| {
        assert_eq!((status, body["error"]["code"].clone(), body["id"].clone()), (400, json!(-32020), id), "{body}");
        body["error"]["message"].as_str().unwrap().to_string()
    };
    let accepted = |(status, body): (u16, Value)| {
        assert_eq!(status, 200, "{body}");
        assert!(body.get("error").is_none(), "{body}");
        body["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    };

    // Mcp-Method and MCP-Protocol-Version: on every request, compared case-sensitively.
    let list = request(1, "tools/list", json!({}));
    assert!(
        refused(answer(post_with(&url, &list, &[("mcp-method", None)])).await, json!(1)).contains("Mcp-Method header is missing")
    );
    refused(answer(post_with(&url, &list, &[("mcp-method", Some("TOOLS/LIST"))])).await, json!(1));
    refused(answer(post_with(&url, &list, &[("mcp-protocol-version", None)])).await, json!(1));
    let (status, _) = answer(post_with(&url, &list, &[("MCP-METHOD", Some("  tools/list  "))])).await;
    assert_eq!(status, 200, "names compare without case, values are trimmed");
    let twice = post(&url, &list).header("mcp-method", "prompts/list");
    assert!(refused(answer(twice).await, json!(1)).contains("more than once"));

    // Mcp-Name: required where the body names a tool, prompt or resource; may be base64.
    let call = request(2, "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
    assert!(refused(answer(post_with(&url, &call, &[("mcp-name", None)])).await, json!(2)).contains("Mcp-Name header is missing"));
    assert_eq!(accepted(answer(post_with(&url, &call, &[("mcp-name", Some("=?base64?ZWNobw==?="))])).await), "x");
    refused(answer(post_with(&url, &call, &[("mcp-name", Some("=?base64?ZWNobw?="))])).await, json!(2));
    let read = request(3, "resources/read", json!({"uri": "test://a"}));
    refused(answer(post_with(&url, &read, &[("mcp-name", None)])).await, json!(3));
    assert_eq!(answer(post(&url, &read)).await.0, 200);

    // Mcp-Param-*: for the arguments whose schema says x-mcp-header, when they are in the body.
    let route = |args: Value| request(4, "tools/call", json!({"name": "route", "arguments": args}));
    let both = route(json!({"region": "eu-west", "priority": 3}));
    let ok = [("mcp-param-region", Some("eu-west")), ("mcp-param-priority", Some("3"))];
    assert!(accepted(answer(post_with(&url, &both, &ok)).await).starts_with("routed"));
    let m = refused(answer(post_with(&url, &both, &[ok[1]])).await, json!(4));
    assert!(m.contains("Mcp-Param-Region header is missing"), "{m}");
    let m = refused(answer(post_with(&url, &both, &[("mcp-param-region", Some("us-east")), ok[1]])).await, json!(4));
    assert!(m.contains("differs"), "{m}");
    // Base64 and numbers that print differently but agree; header names in any case.
    let encoded = [("Mcp-Param-REGION", Some("=?base64?ZXUtd2VzdA==?=")), ("mcp-param-priority", Some("3.0"))];
    accepted(answer(post_with(&url, &both, &encoded)).await);
    refused(answer(post_with(&url, &both, &[("mcp-param-region", Some("=?base64?ZXUtd2VzdA?=")), ok[1]])).await, json!(4));
    refused(answer(post_with(&url, &both, &[ok[0], ("mcp-param-priority", Some("4"))])).await, json!(4));
    // A null or absent argument needs no header, and cannot have one.
    let null = route(json!({"region": null, "priority": 3}));
    accepted(answer(post_with(&url, &null, &[ok[1]])).await);
    refused(answer(post_with(&url, &null, &ok)).await, json!(4));
    accepted(answer(post(&url, &route(json!({})))).await);
    // Nested properties count too; headers no argument declares are ignored.
    let nested = route(json!({"target": {"tenant": "acme"}}));
    assert!(refused(answer(post(&url, &nested)).await, json!(4)).contains("Mcp-Param-Tenant"));
    accepted(answer(post_with(&url, &nested, &[("mcp-param-tenant", Some("acme")), ("mcp-param-other", Some("x"))])).await);

    // Notifications carry Mcp-Method too; a refusal has no id to carry.
    let note =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9, "_meta": request_meta()}});
    assert_eq!(answer(post(&url, &note)).await.0, 202);
    refused(answer(post_with(&url, &note, &[("mcp-method", None)])).await, Value::Null);
    http.shutdown().await;
}

/// Clients drop a tool whose x-mcp-header breaks the rules; the server says so at once.
#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_refused_at_registration() {
    let tool = |prop: Value| Tool::new("bad", "bad", json!({"type": "object", "properties": {"p": prop}}));
    for prop in [
        json!({"type": "number", "x-mcp-header": "Score"}),
        json!({"type": "string", "x-mcp-header": "Has Space"}),
        json!({"type": "string", "x-mcp-header": ""}),
    ] {
        let built = Server::builder("s", "1").tool(tool(prop.clone()), |_, _| async { Ok(CallToolResult::text("")) }).build();
        let e = built.err().unwrap_or_else(|| panic!("{prop} was accepted"));
        assert!(e.message().contains("x-mcp-header"), "{}", e.message());
    }
    let server = Server::builder("s", "1").build().unwrap();
    assert!(server
        .add_tool(tool(json!({"type": "object", "x-mcp-header": "Obj"})), |_, _| async { Ok(CallToolResult::text("")) })
        .is_err());
    let good = tool(json!({"type": "string", "x-mcp-header": "P"}));
    server.add_tool(good, |_, _| async { Ok(CallToolResult::text("")) }).unwrap();
    let params = server.tool_header_params("bad").unwrap();
    assert_eq!((params[0].header.as_str(), params[0].path.clone()), ("mcp-param-p", vec!["p".to_string()]));
    assert!(server.tool_header_params("nothing").is_none());
}

#[tokio::test]
async fn asking_the_client_becomes_rounds_of_input_required_results() {
    let (a, b) = MemoryTransport::pair();
    let _session = server().serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    let with_elicitation = |mut m: Value| {
        m["params"]["_meta"][meta::CLIENT_CAPABILITIES] = json!({"elicitation": {}});
        m
    };

    // Round 1: the first ask, and a sealed state.
    let r1 = raw.ask(with_elicitation(request(1, "tools/call", json!({"name": "greet"})))).await;
    let r1 = &r1["result"];
    assert_eq!(r1["resultType"], "input_required", "{r1}");
    assert_eq!(r1["inputRequests"]["name"]["method"], "elicitation/create");
    assert!(r1.get("ttlMs").is_none(), "no caching hints on an incomplete result");
    let state1 = r1["requestState"].as_str().unwrap().to_string();

    // Round 2: the name answered; the state carries it on, the next ask comes.
    let answer = |field: &str, v: &str| json!({"action": "accept", "content": {field: v}});
    let r2 = raw
        .ask(with_elicitation(request(
            2,
            "tools/call",
            json!({"name": "greet",
        "inputResponses": {"name": answer("name", "Ada")}, "requestState": state1}),
        )))
        .await;
    let r2 = &r2["result"];
    assert_eq!(r2["inputRequests"]["color"]["method"], "elicitation/create", "{r2}");
    assert!(r2["inputRequests"].get("name").is_none());
    let state2 = r2["requestState"].as_str().unwrap().to_string();

    // Round 3: complete, with the name from the state and the color from this retry.
    let r3 = raw
        .ask(with_elicitation(request(
            3,
            "tools/call",
            json!({"name": "greet",
        "inputResponses": {"color": answer("color", "green")}, "requestState": state2.clone()}),
        )))
        .await;
    assert_eq!(r3["result"]["content"][0]["text"], "\"Ada\" likes \"green\"", "{r3}");
    assert_eq!(r3["result"]["resultType"], "complete");

    // A tampered state, or one issued for another request, is refused.
    let bad = raw
        .ask(with_elicitation(request(
            4,
            "tools/call",
            json!({"name": "greet",
        "inputResponses": {"color": answer("color", "red")}, "requestState": format!("{state2}x")}),
        )))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(bad["error"]["message"].as_str().unwrap().contains("requestState"));
    let other = raw
        .ask(with_elicitation(request(
            5,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"},
        "requestState": state2}),
        )))
        .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");

    // Without the elicitation capability: -32021 naming it.
    let missing = raw.ask(request(6, "tools/call", json!({"name": "greet"}))).await;
    assert_eq!(missing["error"]["code"], -32021, "{missing}");
    assert_eq!(missing["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}));
}

/// Waits (up to 5 s) for `check` to hold.
async fn eventually(what: &str, check: impl Fn() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never: {what}");
}

#[tokio::test]
async fn subscriptions_listen_acknowledges_then_sends_what_the_filter_asks_for() {
    let server = server();
    let (a, b) = MemoryTransport::pair();
    let _session = server.serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    let filter = json!({"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["test://a"]});
    let ack = raw.ask(request(7, "subscriptions/listen", json!({"notifications": filter}))).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"][meta::SUBSCRIPTION_ID], 7);
    // No prompts on this server: the acknowledgement leaves them out.
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true, "resourceSubscriptions": ["test://a"]}));

    server.notify_resource_updated("test://elsewhere");
    server
        .add_tool(Tool::new("later", "added at run time", json!({"type": "object"})), |_, _| async {
            Ok(CallToolResult::text(""))
        })
        .unwrap();
    let change = raw.next().await;
    assert_eq!(change["method"], "notifications/tools/list_changed", "the other resource's update is not sent: {change}");
    assert_eq!(change["params"]["_meta"][meta::SUBSCRIPTION_ID], 7);
    server.notify_resource_updated("test://a");
    let updated = raw.next().await;
    assert_eq!(updated["method"], "notifications/resources/updated");
    assert_eq!(
        (updated["params"]["uri"].clone(), updated["params"]["_meta"][meta::SUBSCRIPTION_ID].clone()),
        (json!("test://a"), json!(7))
    );

    // The client ends it by cancelling the request: no answer, the subscription is gone.
    assert_eq!(server.subscription_count(), 1);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    raw.send(cancel).await;
    eventually("the cancelled subscription is removed", || server.subscription_count() == 0).await;

    // The server ends one gracefully: the answer carries the subscription's id.
    let ack = raw.ask(request(8, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}))).await;
    assert_eq!(ack["params"]["_meta"][meta::SUBSCRIPTION_ID], 8, "only the new subscription speaks: {ack}");
    server.end_subscriptions();
    let end = raw.next().await;
    assert_eq!(end["id"], 8);
    assert_eq!(end["result"], json!({"resultType": "complete", "_meta": {meta::SUBSCRIPTION_ID: 8}}));
    eventually("the ended subscription is removed", || server.subscription_count() == 0).await;
}

#[tokio::test]
async fn a_listen_stream_follows_only_so_many_resources() {
    let server = server();
    let (a, b) = MemoryTransport::pair();
    let _session = server.serve(a);
    let (rx, tx) = b.split();
    let mut raw = Raw { rx, tx };
    let filter = json!({"resourceSubscriptions": ["test://a", "test://b"]});
    let ack = raw.ask(request(1, "subscriptions/listen", json!({"notifications": filter}))).await;
    assert_eq!(ack["params"]["notifications"], json!({"resourceSubscriptions": ["test://a", "test://b"]}), "{ack}");
    let most = oxmcp::server::MAX_RESOURCE_SUBSCRIPTIONS;
    let uris: Vec<String> = (0..=most).map(|i| format!("test://a{i}")).collect();
    let refused = raw.ask(request(2, "subscriptions/listen", json!({"notifications": {"resourceSubscriptions": uris}}))).await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], oxmcp::protocol::codes::INVALID_PARAMS, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains(&most.to_string()), "{refused}");
    assert_eq!(server.subscription_count(), 1, "the refused stream is not kept");
}

#[tokio::test]
async fn an_http_listen_stream_carries_changes_until_the_client_drops_it() {
    let server = server();
    let http = HttpServer::bind(server.clone(), HttpServerConfig::default()).await.unwrap();
    let listen = request(21, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let mut r = post(&http.url(), &listen).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut seen = String::new();
    async fn more(r: &mut reqwest::Response, seen: &mut String) {
        let chunk = tokio::time::timeout(Duration::from_secs(5), r.chunk()).await.expect("an event").unwrap().expect("open");
        seen.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    while !seen.contains("\n\n") {
        more(&mut r, &mut seen).await;
    }
    assert!(seen.contains("notifications/subscriptions/acknowledged"), "the first event is the ack: {seen}");
    server.remove_tool("greet");
    while !seen.contains("list_changed") {
        more(&mut r, &mut seen).await;
    }
    assert!(seen.contains(r#""io.modelcontextprotocol/subscriptionId":21"#), "{seen}");
    assert_eq!(server.subscription_count(), 1);
    drop(r);
    eventually("a dropped stream ends its subscription", || server.subscription_count() == 0).await;
    http.shutdown().await;
}

#[tokio::test]
async fn the_http_client_subscribes_through_its_listen_stream() {
    let server = server();
    let http = HttpServer::bind(server.clone(), HttpServerConfig::default()).await.unwrap();
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let client = Client::builder("c", "1")
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .connect(HttpClientTransport::new(http.url()))
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Stateless);
    // The callback asked for list changes: a listen stream is open from the start.
    assert_eq!(server.subscription_count(), 1);
    client.subscribe("test://a").await.unwrap();
    server.notify_resource_updated("test://a");
    let seen = notes.clone();
    eventually("the update", || {
        seen.lock().unwrap().iter().any(|n| matches!(n, ServerNotification::ResourceUpdated(u) if u.uri == "test://a"))
    })
    .await;
    server.remove_tool("greet");
    eventually("the list change", || seen.lock().unwrap().contains(&ServerNotification::ToolListChanged)).await;
    // The replaced stream was closed: one subscription on the server again.
    eventually("one stream", || server.subscription_count() == 1).await;
    client.unsubscribe("test://a").await.unwrap();
    eventually("one stream after unsubscribe", || server.subscription_count() == 1).await;
    server.notify_resource_updated("test://a");
    client.ping().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let updates = notes.lock().unwrap().iter().filter(|n| matches!(n, ServerNotification::ResourceUpdated(_))).count();
    assert_eq!(updates, 1, "no update after unsubscribe");
    client.close().await;
    eventually("closing the client ends its stream", || server.subscription_count() == 0).await;
    http.shutdown().await;
}

#[tokio::test]
async fn a_subscription_the_server_ended_is_reopened_by_subscribing_again() {
    let server = server();
    let (a, b) = MemoryTransport::pair();
    let _session = server.serve(a);
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = notes.clone();
    let client = Client::builder("c", "1").on_notification(move |n| sink.lock().unwrap().push(n)).connect(b).await.unwrap();
    client.subscribe("test://a").await.unwrap();
    assert_eq!(server.subscription_count(), 1);
    server.end_subscriptions();
    eventually("the server ended the stream", || server.subscription_count() == 0).await;
    let peer = client.peer().clone();
    eventually("the client saw its answer", || peer.stats().pending_requests == 0).await;
    tokio::time::sleep(Duration::from_millis(20)).await; // the stream's own task notes the end
                                                         // Nothing changed on the client's side, but the stream is gone: subscribing opens one.
    client.subscribe("test://a").await.unwrap();
    assert_eq!(server.subscription_count(), 1);
    server.notify_resource_updated("test://a");
    let seen = notes.clone();
    eventually("the update", || seen.lock().unwrap().iter().any(|n| matches!(n, ServerNotification::ResourceUpdated(_)))).await;
    client.close().await;
}

#[tokio::test]
async fn subscribing_fails_clearly_when_the_server_does_not_take_it() {
    // A server whose acknowledgement leaves the resource out (it offers no subscriptions).
    let (a, b) = MemoryTransport::pair();
    let (mut rx, mut tx) = a.split();
    tokio::spawn(async move {
        while let Ok(bytes) = rx.recv().await {
            let m: Value = serde_json::from_slice(&bytes).unwrap();
            let (Some(id), Some(method)) = (m.get("id"), m["method"].as_str()) else { continue };
            let out = match method {
                "server/discover" => {
                    vec![
                        json!({"jsonrpc": "2.0", "id": id, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {"resources": {}}}}),
                    ]
                }
                // Acknowledged with nothing honoured; the stream stays open.
                "subscriptions/listen" => vec![json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"notifications": {}, "_meta": {"io.modelcontextprotocol/subscriptionId": id}}})],
                _ => vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})],
            };
            for o in out {
                tx.send(Outbound { bytes: Bytes::from(o.to_string()), route: Default::default() }).await.unwrap();
            }
            tx.flush().await.unwrap();
        }
    });
    let client = Client::builder("c", "1").connect(b).await.unwrap();
    let e = client.subscribe("test://a").await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CapabilityMissing, "{e}");
    assert!(e.message().contains("test://a"), "{e}");
    // Nothing is left open for a subscription that did not happen.
    eventually("no listen request left", || client.peer().stats().pending_requests == 0).await;
    client.close().await;
}

#[tokio::test]
async fn a_missing_capability_is_the_same_kind_to_handlers_in_both_eras() {
    // The handler lets the error through: an isError result in a session, the request's
    // -32021 error (naming the capability) in the stateless era.
    let server = Server::builder("caps", "1")
        .tool(Tool::new("sample", "asks the model", json!({"type": "object"})), |_, ctx: RequestContext| async move {
            let asked = ctx.create_message(CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 5)).await;
            let Err(e) = asked else { panic!("the client cannot sample") };
            assert_eq!(e.kind(), ErrorKind::CapabilityMissing, "{e}");
            Err(e)
        })
        .build()
        .unwrap();
    for era in [Era::Session, Era::Stateless] {
        let (a, b) = MemoryTransport::pair();
        let _session = server.serve(a);
        let client = Client::builder("c", "1").era(era).connect(b).await.unwrap();
        let answer = client.call_tool("sample", json!({})).await;
        match era {
            Era::Session => assert!(answer.unwrap().is_error()),
            _ => {
                let e = answer.unwrap_err();
                assert_eq!(e.code(), Some(-32021), "{e}");
                assert_eq!(e.rpc().unwrap().data.as_ref().unwrap()["requiredCapabilities"], json!({"sampling": {}}));
            }
        }
        client.close().await;
    }
}

#[tokio::test]
async fn an_auto_client_speaks_the_stateless_era_to_a_server_that_does() {
    let server = server();
    let (a, b) = MemoryTransport::pair();
    let _session = server.serve(a);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::builder("auto", "1")
        .on_elicitation(move |p, _| {
            let seen = seen.clone();
            async move {
                let ElicitRequestParams::Form(form) = p else { panic!("a form") };
                let field = form.requested_schema["properties"].as_object().unwrap().keys().next().unwrap().clone();
                seen.lock().unwrap().push(field.clone());
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content =
                    Some(json!({ field.clone(): if field == "name" { "Ada" } else { "blue" } }).as_object().unwrap().clone());
                Ok(r)
            }
        })
        .connect(b)
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(client.server_info().name, "both-eras");
    assert_eq!(client.instructions(), Some("Serves both eras."));
    // Two rounds of input: the handler asked twice, the tool finished with both answers.
    let r = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("\"Ada\" likes \"blue\""));
    assert_eq!(*asked.lock().unwrap(), ["name", "color"]);
    assert_eq!(server.session_count(), 1, "one connection, and no initialize on it");
    client.ping().await.unwrap();
    // Removed methods keep their meaning through the raw entry point too (subscribing
    // opens a listen stream for a uri, so it needs one).
    let e = client.request("resources/subscribe", Some(json!({})), Default::default()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    let e = client.request("logging/setLevel", Some(json!({"level": "loud"})), Default::default()).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    client.close().await;
}

/// A scripted server on a byte stream: answers each request with `reply(method, params)`
/// (`Err` = a JSON-RPC error object, see [`rpc_error`]) and logs the requests' methods.
fn scripted(reply: impl Fn(&str, &Value) -> Result<Value, Value> + Send + 'static) -> (MemoryTransport, Arc<Mutex<Vec<String>>>) {
    let (a, b) = MemoryTransport::pair();
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    let (mut rx, mut tx) = a.split();
    tokio::spawn(async move {
        while let Ok(bytes) = rx.recv().await {
            let m: Value = serde_json::from_slice(&bytes).unwrap();
            let (Some(id), Some(method)) = (m.get("id"), m["method"].as_str()) else { continue };
            seen.lock().unwrap().push(method.to_string());
            let answer = match reply(method, &m["params"]) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            tx.send(Outbound { bytes: Bytes::from(answer.to_string()), route: Default::default() }).await.unwrap();
            tx.flush().await.unwrap();
        }
    });
    (b, log)
}

/// A JSON-RPC error object with `code`.
fn rpc_error(code: i64) -> Value {
    json!({"code": code, "message": "no"})
}

#[tokio::test]
async fn an_auto_client_falls_back_to_initialize_when_discover_is_unknown() {
    let (transport, log) = scripted(|method, _| match method {
        "server/discover" => Err(rpc_error(-32601)),
        "initialize" => Ok(
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "old", "version": "1"}}),
        ),
        "tools/list" => Ok(json!({"tools": []})),
        _ => Err(rpc_error(-32601)),
    });
    let client = Client::builder("auto", "1").connect(transport).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(client.protocol_version().as_str(), "2025-06-18");
    assert_eq!(client.server_info().name, "old");
    assert!(client.list_tools(None).await.unwrap().tools.is_empty());
    assert_eq!(*log.lock().unwrap(), ["server/discover", "initialize", "tools/list"]);
    // A server that answers any method with some result is an older server as well.
    let (transport, _) = scripted(|method, _| match method {
        "initialize" => {
            Ok(json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "lax", "version": "1"}}))
        }
        _ => Ok(json!({})),
    });
    let client = Client::builder("auto", "1").connect(transport).await.unwrap();
    assert_eq!((client.era(), client.server_info().name.as_str()), (Era::Session, "lax"));
    // Asked for the stateless era only, the same server is refused.
    let (transport, _) = scripted(|_, _| Err(rpc_error(-32601)));
    let e = Client::builder("new", "1").era(Era::Stateless).connect(transport).await.err().expect("refused");
    assert_eq!(e.kind(), ErrorKind::Protocol);
}

#[tokio::test]
async fn an_auto_client_asks_again_when_refused_a_version_the_server_lists() {
    // Refused once with -32022 although 2026-07-28 is among the versions it speaks:
    // the client asks again and settles on the stateless era.
    let refused = Arc::new(Mutex::new(false));
    let (transport, log) = scripted(move |method, _| match method {
        "server/discover" if !std::mem::replace(&mut *refused.lock().unwrap(), true) => {
            Err(json!({"code": -32022, "message": "unsupported", "data": {"supported": ["2026-07-28"], "requested": "x"}}))
        }
        "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"], "capabilities": {}})),
        _ => Err(rpc_error(-32601)),
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(*log.lock().unwrap(), ["server/discover", "server/discover"]);
    // Refused with only session-era versions listed: an older server, no second ask.
    let (transport, log) = scripted(|method, _| match method {
        "server/discover" => Err(json!({"code": -32022, "message": "unsupported", "data": {"supported": ["2025-11-25"]}})),
        "initialize" => {
            Ok(json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}))
        }
        _ => Err(rpc_error(-32601)),
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(*log.lock().unwrap(), ["server/discover", "initialize"]);
}

#[tokio::test]
async fn a_stateless_client_leaves_out_tools_with_invalid_mirrored_headers() {
    let tool = |name: &str, annotation: Value, ty: &str| json!({"name": name, "inputSchema": {"type": "object", "properties": {"p": {"type": ty, "x-mcp-header": annotation}}}});
    let tools = json!([
        tool("fine", json!("Region"), "string"),
        tool("empty_name", json!(""), "string"),
        tool("on_a_number", json!("Score"), "number"),
        tool("with_a_space", json!("My Region"), "string"),
        {"name": "plain", "inputSchema": {"type": "object"}},
    ]);
    let (transport, _) = scripted(move |method, _| match method {
        "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})),
        "tools/list" => Ok(json!({"tools": tools})),
        _ => Err(rpc_error(-32601)),
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    let names: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(names, ["fine", "plain"]);
    // The raw request sees the same list.
    let raw = client.request("tools/list", None, Default::default()).await.unwrap();
    assert_eq!(raw["tools"].as_array().unwrap().len(), 2);
}

/// A byte-stream transport that names its endpoint, as HTTP and child processes do.
struct Named(MemoryTransport, &'static str);

impl Transport for Named {
    type Reader = <MemoryTransport as Transport>::Reader;
    type Writer = <MemoryTransport as Transport>::Writer;
    fn split(self) -> (Self::Reader, Self::Writer) {
        self.0.split()
    }
    fn endpoint(&self) -> Option<String> {
        Some(self.1.to_string())
    }
}

#[tokio::test]
async fn an_auto_client_remembers_an_older_server_by_its_endpoint() {
    let older = |method: &str, _: &Value| match method {
        "initialize" => {
            Ok(json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}))
        }
        _ => Err(rpc_error(-32601)),
    };
    let (transport, log) = scripted(older);
    let client = Client::builder("c", "1").connect(Named(transport, "test://remembered-older")).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(*log.lock().unwrap(), ["server/discover", "initialize"]);
    // The same endpoint again: no probe.
    let (transport, log) = scripted(older);
    let client = Client::builder("c", "1").connect(Named(transport, "test://remembered-older")).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(*log.lock().unwrap(), ["initialize"]);
    // Another endpoint is probed; asking for the stateless era always probes.
    let (transport, log) = scripted(older);
    Client::builder("c", "1").connect(Named(transport, "test://another")).await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["server/discover", "initialize"]);
    let (transport, log) = scripted(older);
    assert!(Client::builder("c", "1").era(Era::Stateless).connect(Named(transport, "test://remembered-older")).await.is_err());
    assert_eq!(*log.lock().unwrap(), ["server/discover"]);
    // The server was upgraded and refuses initialize now: forgotten, probed next time.
    let (transport, _) = scripted(|_, _| Err(rpc_error(-32601)));
    assert!(Client::builder("c", "1").connect(Named(transport, "test://remembered-older")).await.is_err());
    let (transport, log) = scripted(|method, _| match method {
        "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"], "capabilities": {}})),
        _ => Err(rpc_error(-32601)),
    });
    let client = Client::builder("c", "1").connect(Named(transport, "test://remembered-older")).await.unwrap();
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(*log.lock().unwrap(), ["server/discover"]);
}

#[tokio::test]
async fn a_stateless_client_honours_ttl_and_checks_result_type() {
    let (transport, log) = scripted(|method, params| {
        assert_eq!(params["_meta"][meta::PROTOCOL_VERSION], "2026-07-28", "every request carries its _meta");
        match method {
            "server/discover" => Ok(json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "prompts": {}}})),
            "tools/list" => Ok(json!({"resultType": "complete", "tools": [], "ttlMs": 60000, "cacheScope": "private"})),
            "prompts/list" => Ok(json!({"resultType": "complete", "prompts": [], "ttlMs": 0})),
            _ => Ok(json!({"resultType": "partial_nonsense"})),
        }
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    assert_eq!(client.era(), Era::Stateless);
    client.list_tools(None).await.unwrap();
    client.list_tools(None).await.unwrap(); // within ttlMs: from the cache
    client.list_prompts(None).await.unwrap();
    client.list_prompts(None).await.unwrap(); // ttlMs 0: asked again
    let e = client.call_tool("x", json!({})).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Protocol);
    assert!(e.message().contains("unknown resultType"), "{e}");
    assert_eq!(*log.lock().unwrap(), ["server/discover", "tools/list", "prompts/list", "prompts/list", "tools/call"]);
}

#[tokio::test]
async fn the_http_client_mirrors_names_and_annotated_arguments_into_headers() {
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "n": {"type": "integer", "x-mcp-header": "N"}
    }, "required": ["region"]});
    let server = Server::builder("headers", "1")
        .tool(Tool::new("routed", "routed by region", schema), |a: oxmcp::server::Arguments, _| async move {
            Ok(CallToolResult::text(format!(
                "{} {}",
                a["region"].as_str().unwrap_or_default(),
                a.get("n").cloned().unwrap_or_default()
            )))
        })
        .build()
        .unwrap();
    let http = HttpServer::bind(server, HttpServerConfig::default()).await.unwrap();
    let client = Client::builder("c", "1").era(Era::Stateless).connect(HttpClientTransport::new(http.url())).await.unwrap();
    client.list_tools(None).await.unwrap();
    // The server refuses a call whose Mcp-Param-* headers are missing or disagree, so the
    // answer proves the client sent them (a non-ASCII value in the base64 sentinel).
    let r = client.call_tool("routed", json!({"region": "Zürich", "n": 7})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("Zürich 7"));
    let r = client.call_tool("routed", json!({"region": "eu-west"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("eu-west null"));
    client.close().await;
    http.shutdown().await;
}

#[tokio::test]
async fn a_server_slow_to_start_is_waited_for_in_the_era_it_answers() {
    // The server starts reading well after the probe's liveness check: it answers the
    // probe then, and the client takes the era of that answer (it used to give up after
    // the check and offer initialize instead).
    let (a, b) = MemoryTransport::pair();
    let slow = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        server().serve(a)
    });
    let client = Client::builder("t", "1").discover_timeout(Duration::from_millis(100)).connect(b).await.unwrap();
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(client.server_info().name, "both-eras");
    client.close().await;
    drop(slow.await);
}

#[tokio::test]
async fn a_live_server_ignoring_the_probe_is_taken_for_an_older_one() {
    let (a, b) = MemoryTransport::pair();
    let (mut rx, mut tx) = a.split();
    // An older server that leaves unknown methods unanswered, but answers ping and
    // initialize.
    let older = tokio::spawn(async move {
        while let Ok(bytes) = rx.recv().await {
            let m: Value = serde_json::from_slice(&bytes).unwrap();
            let result = match m["method"].as_str() {
                Some("ping") => json!({}),
                Some("initialize") => json!({"protocolVersion": "2025-06-18", "capabilities": {},
                                            "serverInfo": {"name": "older", "version": "1"}}),
                _ => continue,
            };
            let answer = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
            tx.send(Outbound { bytes: Bytes::from(answer.to_string()), route: Default::default() }).await.unwrap();
            tx.flush().await.unwrap();
        }
    });
    let client = Client::builder("t", "1").discover_timeout(Duration::from_millis(100)).connect(b).await.unwrap();
    assert_eq!(client.era(), Era::Session);
    assert_eq!(client.server_info().name, "older");
    client.close().await;
    older.abort();
}
