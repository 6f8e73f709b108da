//! `HttpApp`: the engine's HTTP server answering the requests a Java web framework (a
//! servlet container, Spring Boot) hands in, exchange by exchange, named by ids Java picks
//! ([`HttpExchanges`]); `dev.oxmcp.McpServlet` does the framework side.

use jni::objects::{JByteArray, JClass, JString};
use jni::sys::{jboolean, jlong};
use jni::EnvUnowned;
use oxmcp::host::{HttpExchanges, HttpOptions};
use oxmcp::{Error, ErrorKind};

use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{self, entry, req_str};

static APPS: Registry<HttpExchanges> = Registry::new();

fn closed() -> Error {
    Error::new(ErrorKind::Closed, "the HTTP endpoint is closed")
}

/// Makes the endpoint of `server` with the options JSON ([`HttpOptions`]; where it would
/// bind is ignored); completes with its handle and `{"maxBodyBytes"}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverHttpApp<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    options: JString<'l>,
    call_id: jlong,
) {
    entry(env, |env| {
        let options = req_str(env, &options)?;
        let s = crate::server::server_of(server);
        spawn_call(call_id, async move {
            let s = s.ok_or_else(|| Error::new(ErrorKind::Closed, "the server is closed"))?;
            let app = s.http_app(HttpOptions::from_json(&options)?)?;
            let json = serde_json::json!({ "maxBodyBytes": app.max_body_bytes() }).to_string();
            Ok(Done { json: Some(json), handle: APPS.insert(HttpExchanges::new(app)) })
        });
        Ok(())
    })
}

/// Answers exchange `id` (unused by any open exchange of `app`): `headersJson` is
/// `[[name, value]...]`, `body` the whole request body. Completes with the answer's head
/// (JSON `{"status", "headers", "maxBodyBytes"}`), whose body `httpAppNext` reads, or with
/// null when `httpAppNext(id, stop)` ended the exchange first.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_oxmcp_Native_httpAppHandle<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    app: jlong,
    id: jlong,
    method: JString<'l>,
    target: JString<'l>,
    headers: JString<'l>,
    body: JByteArray<'l>,
    call_id: jlong,
) {
    entry(env, |env| {
        let (method, target, headers) = (req_str(env, &method)?, req_str(env, &target)?, req_str(env, &headers)?);
        let body = if body.is_null() { Vec::new() } else { env.convert_byte_array(&body)? };
        let headers: Vec<(String, String)> = match serde_json::from_str(&headers) {
            Ok(headers) => headers,
            Err(e) => {
                let e = Error::new(ErrorKind::InvalidInput, format!("invalid headers: {e}"));
                spawn_call(call_id, async move { Err(e) });
                return Ok(());
            }
        };
        // Open from here on: an `httpAppNext(id, stop)` right after this call ends it.
        let answer = APPS.get(app).map(|exchanges| exchanges.handle(id as u64, &method, &target, &headers, body));
        spawn_call(call_id, async move {
            let head = answer.ok_or_else(closed)?.await?;
            Ok(Done { json: head, handle: 0 })
        });
        Ok(())
    })
}

/// The next chunk of exchange `id`'s body, through `Native.onChunk` (null once the body
/// has ended). `stop` ends the exchange now (the client went away).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_httpAppNext<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    app: jlong,
    id: jlong,
    stop: jboolean,
    call_id: jlong,
) {
    let Some(exchanges) = APPS.get(app) else {
        jvm::on_chunk(call_id, None);
        return;
    };
    let chunk = exchanges.next(id as u64, stop);
    let spawned = crate::runtime::spawn(async move { jvm::on_chunk(call_id, chunk.await.as_deref()) });
    if !spawned {
        jvm::on_chunk(call_id, None);
    }
}

/// Ends the endpoint in the background: its sessions and streams end (calls in flight get
/// the engine's grace period, their answers still read through `httpAppNext`), then it is
/// forgotten.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_httpAppFree<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, app: jlong) {
    if let Some(exchanges) = APPS.get(app) {
        crate::runtime::spawn(async move {
            exchanges.app().shutdown().await;
            APPS.remove(app);
        });
    }
}

/// Ends every endpoint (at shutdown).
pub async fn close_all() {
    futures::future::join_all(APPS.drain().iter().map(|e| async move { e.app().shutdown().await })).await;
}
