//! What a server offers around its handlers: middleware around its requests (both eras),
//! and handlers reading the server's own resources.

use std::sync::{Arc, Mutex};

use oxmcp::client::{Client, Era};
use oxmcp::protocol::{CallToolResult, ErrorObject, Tool};
use oxmcp::server::{Arguments, Next, RequestContext, Server};
use oxmcp::transport::MemoryTransport;
use oxmcp::ErrorKind;
use serde_json::{json, Value};

fn server(log: Arc<Mutex<Vec<String>>>) -> Server {
    let (outer, inner) = (log.clone(), log);
    Server::builder("mw", "1")
        // Outermost: records every request and what came back.
        .middleware(move |method: String, params: Option<Value>, _ctx: RequestContext, next: Next| {
            let log = outer.clone();
            async move {
                log.lock().unwrap().push(format!("outer {method}"));
                let reply = next.run(params).await;
                log.lock().unwrap().push(format!("outer done {}", if reply.is_ok() { "ok" } else { "error" }));
                reply
            }
        })
        // Inner: refuses one tool by itself and shouts every echo.
        .middleware(move |method: String, params: Option<Value>, _ctx: RequestContext, next: Next| {
            let log = inner.clone();
            async move {
                log.lock().unwrap().push(format!("inner {method}"));
                let mut params = params;
                if method == "tools/call" {
                    let p = params.as_mut().unwrap();
                    if p["name"] == "secret" {
                        return Err(ErrorObject::new(-32001, "the middleware says no"));
                    }
                    if let Some(text) = p["arguments"]["text"].as_str() {
                        p["arguments"]["text"] = json!(text.to_uppercase());
                    }
                }
                next.run(params).await
            }
        })
        .tool(
            Tool::new("echo", "", json!({"type": "object", "properties": {"text": {"type": "string"}}})),
            |a: Arguments, _| async move { Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default())) },
        )
        .tool(Tool::new("secret", "", json!({"type": "object"})), |_, _| async { Ok(CallToolResult::text("leaked")) })
        .build()
        .unwrap()
}

#[tokio::test]
async fn middleware_wraps_every_routed_request_in_both_eras() {
    for era in [Era::Session, Era::Stateless] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (a, b) = MemoryTransport::pair();
        let _served = server(log.clone()).serve(a);
        let client = Client::builder("c", "1").era(era).connect(b).await.unwrap();
        log.lock().unwrap().clear();

        let r = client.call_tool("echo", json!({"text": "quiet"})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("QUIET"), "{era:?}: the inner middleware changed the arguments");
        assert_eq!(
            *log.lock().unwrap(),
            ["outer tools/call", "inner tools/call", "outer done ok"],
            "{era:?}: outermost first, and it sees the answer"
        );

        let e = client.call_tool("secret", json!({})).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Rpc, "{era:?}");
        assert_eq!(e.rpc().unwrap().code, -32001, "{era:?}: the middleware answered by itself");
        assert!(log.lock().unwrap().ends_with(&["outer done error".to_string()]));

        log.lock().unwrap().clear();
        assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
        assert!(log.lock().unwrap().contains(&"outer tools/list".to_string()), "{era:?}: lists go through it too");
        if era == Era::Session {
            // A middleware may watch or hold a level change too (the stateless era has none).
            log.lock().unwrap().clear();
            client.set_log_level(oxmcp::protocol::LoggingLevel::Error).await.unwrap();
            assert_eq!(*log.lock().unwrap(), ["outer logging/setLevel", "inner logging/setLevel", "outer done ok"]);
        }
        client.close().await;
    }
}

#[tokio::test]
async fn a_handler_reads_its_own_servers_resources() {
    use oxmcp::protocol::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
    use oxmcp::server::ResourceRequest;
    let server = Server::builder("r", "1")
        .resource(Resource::new("memo://note", "note"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "a note")]))
        })
        .resource_template(ResourceTemplate::new("memo://{name}/upper", "upper"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, r.variables["name"].to_uppercase())]))
        })
        .tool(
            Tool::new("quote", "", json!({"type": "object", "properties": {"uri": {"type": "string"}}})),
            |a: Arguments, ctx: RequestContext| async move {
                match ctx.read_resource(a["uri"].as_str().unwrap()).await {
                    Ok(r) => Ok(CallToolResult::text(
                        serde_json::to_value(&r.contents[0]).unwrap()["text"].as_str().unwrap_or_default(),
                    )),
                    Err(e) => Ok(CallToolResult::text(format!("error {}", e.rpc().map_or(0, |r| r.code)))),
                }
            },
        )
        .build()
        .unwrap();
    for era in [Era::Session, Era::Stateless] {
        let (a, b) = MemoryTransport::pair();
        let _served = server.serve(a);
        let client = Client::builder("c", "1").era(era).connect(b).await.unwrap();
        let quote = |uri: &'static str| {
            let client = &client;
            async move { client.call_tool("quote", json!({"uri": uri})).await.unwrap().content[0].as_text().unwrap().to_string() }
        };
        assert_eq!(quote("memo://note").await, "a note");
        assert_eq!(quote("memo://ada/upper").await, "ADA", "templates too");
        assert!(quote("memo://none").await.starts_with("error -3"), "{era:?}: an unknown one is the protocol's error");
        client.close().await;
    }
}

fn weather() -> Server {
    use oxmcp::protocol::{
        GetPromptResult, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
    };
    use oxmcp::server::{PromptArguments, ResourceRequest};
    Server::builder("weather", "1")
        .tool(
            Tool::new("forecast", "", json!({"type": "object", "properties": {"city": {"type": "string"}}})),
            |a: Arguments, _| async move { Ok(CallToolResult::text(format!("sunny in {}", a["city"].as_str().unwrap_or("?")))) },
        )
        .prompt(Prompt::new("advice"), |_: PromptArguments, _| async {
            Ok(GetPromptResult::new(vec![PromptMessage::text(Role::User, "take an umbrella")]))
        })
        .resource(Resource::new("weather://today", "today"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(r.uri, "rain")]))
        })
        .resource_template(ResourceTemplate::new("weather://city/{name}", "city"), |r: ResourceRequest, _| async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                r.uri.clone(),
                format!("{} from {}", r.variables["name"], r.uri),
            )]))
        })
        .build()
        .unwrap()
}

/// What a client of `main` sees of the weather server mounted under `w`.
async fn check_mounted(main: &Server, era: Era) {
    let (a, b) = MemoryTransport::pair();
    let _served = main.serve(a);
    let client = Client::builder("c", "1").era(era).connect(b).await.unwrap();
    let tools: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert!(tools.contains(&"w_forecast".to_string()), "{era:?}: {tools:?}");
    let r = client.call_tool("w_forecast", json!({"city": "Oslo"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("sunny in Oslo"));
    let p = client.get_prompt("w_advice", Vec::<(String, String)>::new()).await.unwrap();
    assert!(serde_json::to_string(&p).unwrap().contains("umbrella"));
    let text = |r: oxmcp::protocol::ReadResourceResult| {
        serde_json::to_value(&r.contents[0]).unwrap()["text"].as_str().unwrap().to_string()
    };
    assert_eq!(text(client.read_resource("weather://w/today").await.unwrap()), "rain");
    // The mounted template's handler gets the URI its own server knows.
    assert_eq!(text(client.read_resource("weather://w/city/oslo").await.unwrap()), "oslo from weather://city/oslo");
    client.close().await;
}

#[tokio::test]
async fn a_server_mounts_another_under_a_prefix_local_or_through_a_client() {
    let main = Server::builder("main", "1").mount("w", &weather()).unwrap().build().unwrap();
    for era in [Era::Session, Era::Stateless] {
        check_mounted(&main, era).await;
    }

    // Mounted while serving, the other server reached through a client.
    let (a, b) = MemoryTransport::pair();
    let _remote = weather().serve(a);
    let upstream = std::sync::Arc::new(Client::builder("proxy", "1").connect(b).await.unwrap());
    let main = Server::builder("main", "1").build().unwrap();
    main.mount_client("w", upstream).await.unwrap();
    for era in [Era::Session, Era::Stateless] {
        check_mounted(&main, era).await;
    }
    assert!(main.mount("not a prefix", &weather()).is_err());
}
