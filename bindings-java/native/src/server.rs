//! `McpServer`: a core [`StagedServer`] whose handlers are Java handlers, known there by
//! id. The core builds the server, checks definitions and runs the calls; this module only
//! translates arguments and hands each call to Java ([`crate::context`]).

use std::sync::Arc;

use jni::objects::{JClass, JObject, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::EnvUnowned;
use oxmcp::host::{HandlerKind, HttpOptions, StagedServer};
use oxmcp::{Error, ErrorKind};

use crate::context;
use crate::handles::{spawn_call, Done, Registry};
use crate::jvm::{entry, req_str, rstring, sync_result};

static SERVERS: Registry<StagedServer> = Registry::new();

fn closed() -> Error {
    Error::new(ErrorKind::Closed, "the server is closed")
}

/// The server behind `handle`, if it is still open.
pub fn server_of(handle: i64) -> Option<Arc<StagedServer>> {
    SERVERS.get(handle)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverNew<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    name: JString<'l>,
    version: JString<'l>,
    instructions: JString<'l>,
) -> jlong {
    entry(env, |env| {
        let server = StagedServer::new(req_str(env, &name)?, req_str(env, &version)?);
        if let Some(text) = rstring(env, &instructions)? {
            // Cannot fail: nothing serves yet.
            let _ = server.set_instructions(text);
        }
        Ok(SERVERS.insert(server))
    })
}

/// Registers the Java handler `handlerId` for `kind` (`tool`, `resource`,
/// `resource template`, `prompt`, `completion`) with its definition JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverRegister<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    kind: JString<'l>,
    definition: JString<'l>,
    handler_id: jlong,
) -> JObject<'l> {
    sync_result(env, |env| {
        let kind = req_str(env, &kind)?;
        let definition = req_str(env, &definition)?;
        let Some(s) = SERVERS.get(server) else { return Ok(Err(closed())) };
        let calls = s.calls().clone();
        let f = Arc::new(move |id, input: String| context::deliver(&calls, id, handler_id, &input, None));
        Ok(HandlerKind::from_name(&kind).and_then(|kind| s.register(kind, &definition, f)))
    })
}

/// Checks a protected listener's access tokens with the Java handler `handlerId`: it gets
/// `{"token"}` and answers who the token speaks for, or fails to refuse it.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverVerifyTokens<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    handler_id: jlong,
) -> JObject<'l> {
    sync_result(env, |_env| {
        let Some(s) = SERVERS.get(server) else { return Ok(Err(closed())) };
        let calls = s.calls().clone();
        s.verify_tokens_with(Arc::new(move |id, input: String| context::deliver(&calls, id, handler_id, &input, None)));
        Ok(Ok(()))
    })
}

/// Sets how the server keeps its tasks (the core's task options JSON: `ttlMs`,
/// `pollIntervalMs`, `maxTasks`, `maxRunning`); before serving.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverSetTaskOptions<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    options: JString<'l>,
) -> JObject<'l> {
    sync_result(env, |env| {
        let options = req_str(env, &options)?;
        let Some(s) = SERVERS.get(server) else { return Ok(Err(closed())) };
        Ok(s.set_task_options(&options))
    })
}

/// Serves a skill: `filesJson` maps each file's path in it to its text.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverAddSkill<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    skill_path: JString<'l>,
    files: JString<'l>,
) -> JObject<'l> {
    sync_result(env, |env| {
        let skill_path = req_str(env, &skill_path)?;
        let files = req_str(env, &files)?;
        let Some(s) = SERVERS.get(server) else { return Ok(Err(closed())) };
        Ok(s.add_skill(&skill_path, &files))
    })
}

/// Serves every skill under the directory `root`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverAddSkillsDir<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    root: JString<'l>,
) -> JObject<'l> {
    sync_result(env, |env| {
        let root = req_str(env, &root)?;
        let Some(s) = SERVERS.get(server) else { return Ok(Err(closed())) };
        Ok(s.add_skills_dir(&root))
    })
}

/// Removes the tool or prompt named `key`, or the resource at `key` (`kind`: `tool`,
/// `prompt`, `resource`), staged or live; whether it existed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverRemove<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    kind: JString<'l>,
    key: JString<'l>,
) -> jboolean {
    entry(env, |env| {
        let (kind, key) = (req_str(env, &kind)?, req_str(env, &key)?);
        // The kind is one of McpServer's own names: one that cannot be removed removes nothing.
        let target = HandlerKind::from_name(&kind).ok().zip(SERVERS.get(server));
        Ok(target.is_some_and(|(kind, s)| s.remove_named(kind, &key).unwrap_or(false)))
    })
}

/// Live sessions (0 before serving).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverSessionCount<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
) -> jlong {
    SERVERS.get(server).map_or(0, |s| s.session_count() as jlong)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverNotifyResourceUpdated<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    uri: JString<'l>,
) {
    entry(env, |env| {
        let uri = req_str(env, &uri)?;
        if let Some(s) = SERVERS.get(server) {
            s.notify_resource_updated(&uri);
        }
        Ok(())
    })
}

/// Serves `other`'s tools, prompts, resources and templates under `prefix`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverMount<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    prefix: JString<'l>,
    other: jlong,
) -> JObject<'l> {
    sync_result(env, |env| {
        let prefix = req_str(env, &prefix)?;
        let (Some(s), Some(other)) = (SERVERS.get(server), SERVERS.get(other)) else { return Ok(Err(closed())) };
        Ok(s.mount(&prefix, &other))
    })
}

/// Serves what `client`'s server offers under `prefix`, each call forwarded.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverMountClient<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    prefix: JString<'l>,
    client: jlong,
    call_id: jlong,
) {
    entry(env, |env| {
        let prefix = req_str(env, &prefix)?;
        let (s, c) = (SERVERS.get(server), crate::client::client_of(client));
        spawn_call(call_id, async move {
            let (Some(s), Some(c)) = (s, c) else { return Err(closed()) };
            s.mount_client(&prefix, c).await?;
            Ok(Done::empty())
        });
        Ok(())
    })
}

/// Serves stdio until stdin closes; cancelling the call stops serving.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverServeStdio<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    call_id: jlong,
) {
    let s = SERVERS.get(server);
    spawn_call(call_id, async move {
        s.ok_or_else(closed)?.serve_stdio()?.await?;
        Ok(Done::empty())
    });
}

/// Starts HTTP; completes with the endpoint's URL.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_oxmcp_Native_serverStartHttp<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    host: JString<'l>,
    port: jint,
    path: JString<'l>,
    stateless: jboolean,
    json_response: jboolean,
    call_id: jlong,
) {
    entry(env, |env| {
        let host = req_str(env, &host)?;
        let path = req_str(env, &path)?;
        let s = SERVERS.get(server);
        spawn_call(call_id, async move {
            let s = s.ok_or_else(closed)?;
            let port = u16::try_from(port).map_err(|_| Error::new(ErrorKind::InvalidInput, format!("invalid port: {port}")))?;
            let options = HttpOptions { host, port, path, stateless, json_response, ..Default::default() };
            Ok(Done::json(s.start_http(options).await?))
        });
        Ok(())
    })
}

/// Starts HTTP with the listen options JSON ([`HttpOptions`], `auth` included); completes
/// with the endpoint's URL.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverStartHttpOptions<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    options: JString<'l>,
    call_id: jlong,
) {
    entry(env, |env| {
        let options = req_str(env, &options)?;
        let s = SERVERS.get(server);
        spawn_call(call_id, async move {
            let s = s.ok_or_else(closed)?;
            Ok(Done::json(s.start_http(HttpOptions::from_json(&options)?).await?))
        });
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverStopHttp<'l>(
    _env: EnvUnowned<'l>,
    _class: JClass<'l>,
    server: jlong,
    call_id: jlong,
) {
    let s = SERVERS.get(server);
    spawn_call(call_id, async move {
        if let Some(s) = s {
            s.stop_http().await;
        }
        Ok(Done::empty())
    });
}

/// Forgets the server; it stops serving in the background.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_oxmcp_Native_serverFree<'l>(_env: EnvUnowned<'l>, _class: JClass<'l>, server: jlong) {
    if let Some(s) = SERVERS.remove(server) {
        crate::runtime::spawn(async move { s.close().await });
    }
}

/// Stops every server (at shutdown).
pub async fn close_all() {
    futures::future::join_all(SERVERS.drain().iter().map(|s| s.close())).await;
}
