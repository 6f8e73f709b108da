//! The server's side of a session: turns MCP requests into registry lookups and handler
//! calls, and handler outcomes into MCP results.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::context::{ClientState, Inputs, OwnResources, RequestContext};
use super::handler::ResourceRequest;
use super::input_required::InputRound;
use super::listen::MAX_RESOURCE_SUBSCRIPTIONS;
use super::next::Next;
use super::registry::{page, ToolEntry};
use super::tasks::{self, TaskForm};
use super::Server;
use crate::protocol::meta::{self, RequestMeta};
use crate::protocol::{
    codes, era, methods, CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, Completion,
    DiscoverResult, ErrorObject, GetPromptRequestParams, GetSkillParams, GetSkillResult, InitializeRequestParams,
    InitializeResult, ListSkillsResult, PaginatedRequestParams, PromptsCapability, ProtocolVersion, ReadDirectoryParams,
    ReadDirectoryResult, ReadResourceRequestParams, ResourcesCapability, ServerCapabilities, SetLevelRequestParams,
    SubscribeRequestParams, TaskIdParams, TaskMetadata, TaskSupport, ToolsCapability, UnsubscribeRequestParams, UpdateTaskParams,
    RESULT_COMPLETE, SKILLS_EXTENSION, TASKS_EXTENSION,
};
use crate::session::{IncomingNotification, IncomingRequest, Peer, Service};

type Reply = Result<Value, ErrorObject>;

pub(crate) struct ServerService {
    pub(crate) server: Server,
    pub(crate) client: Arc<ClientState>,
    pub(crate) session_id: u64,
    /// On a protected HTTP server: who the session's tokens speak for.
    pub(crate) auth: Option<crate::auth::SessionAuth>,
    /// Over HTTP: each request's headers.
    pub(crate) headers: Option<crate::transport::http::headers::RequestHeaders>,
}

fn parse<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ErrorObject> {
    serde_json::from_value(params.unwrap_or_else(|| Value::Object(Map::new())))
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))
}

fn to_value<T: Serialize>(v: &T) -> Reply {
    serde_json::to_value(v).map_err(|e| ErrorObject::internal(format!("result did not serialize: {e}")))
}

fn meta_of(params: &Option<Value>) -> Option<Map<String, Value>> {
    params.as_ref()?.get("_meta")?.as_object().cloned()
}

impl Service for ServerService {
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Reply> {
        let server = self.server.clone();
        let client = self.client.clone();
        // Who the request's token speaks for, as of its arrival.
        let auth = self.auth.as_ref().and_then(|a| a.get());
        let headers = self.headers.as_ref().and_then(|h| h.take(&req.id));
        let stateless = is_stateless(&client, &req);
        if stateless && req.method == methods::SUBSCRIPTIONS_LISTEN {
            // A listen stream lives as long as the client keeps it open: its future holds
            // what listening needs, not room for the largest handler call below (about
            // 6 KB, kept per idle stream).
            return Box::pin(async move { stateless_listen(&server, req, auth).await });
        }
        Box::pin(async move {
            if stateless {
                return stateless_request(&server, req, auth, headers).await;
            }
            if req.method != methods::INITIALIZE && client.info.get().is_none() {
                return Err(ErrorObject::invalid_request(format!(
                    "{} before initialize: the client must send initialize first",
                    req.method
                )));
            }
            let version = req.peer.protocol_version().unwrap_or(ProtocolVersion::LATEST);
            let ctx = RequestContext {
                id: req.id,
                meta: meta_of(&req.params),
                peer: req.peer,
                cancel: req.cancel,
                client,
                version: Some(version),
                inputs: None,
                input_key: None,
                auth,
                headers,
                server: Some(server.inner.clone()),
                next: None,
                trace: crate::telemetry::current(),
            };
            // What changes the client's state is saved (for other nodes) before it is
            // answered.
            let changed = match req.method.as_str() {
                methods::INITIALIZE => initialize(&server, &ctx, req.params),
                methods::RESOURCES_SUBSCRIBE => subscribe(&server, &ctx, req.params, true),
                methods::RESOURCES_UNSUBSCRIBE => subscribe(&server, &ctx, req.params, false),
                // Through the middleware like a routed request (a host's middleware may watch,
                // hold or refuse it); the level is kept where the chain ends.
                methods::LOGGING_SET_LEVEL => routed(&server, ctx.clone(), methods::LOGGING_SET_LEVEL, req.params).await,
                methods::SERVER_DISCOVER | methods::SUBSCRIPTIONS_LISTEN => {
                    return Err(ErrorObject::method_not_found(&req.method))
                }
                other => return routed(&server, ctx, other, req.params).await,
            };
            let result = changed?;
            ctx.client.save(ctx.peer.protocol_version()).await?;
            Ok(result)
        })
    }

    fn handle_notification(&self, note: IncomingNotification) -> BoxFuture<'static, ()> {
        if note.method == methods::INITIALIZED {
            tracing::debug!("client initialized");
        }
        Box::pin(async {})
    }

    fn on_closed(&self, _peer: &Peer) {
        self.server.forget_session(self.session_id);
    }
}

/// [`route`], through the server's middleware when it has some (without, no boxed future
/// or owned method name per request).
async fn routed(server: &Server, ctx: RequestContext, method: &str, params: Option<Value>) -> Reply {
    if server.inner.middleware.is_empty() {
        return route(server, ctx, method, params).await;
    }
    through_middleware(server.clone(), ctx, method.to_string(), params, 0).await
}

/// Runs the server's middleware from the `depth`-th on, then [`route`].
fn through_middleware(
    server: Server,
    ctx: RequestContext,
    method: String,
    params: Option<Value>,
    depth: usize,
) -> BoxFuture<'static, Reply> {
    let Some(m) = server.inner.middleware.get(depth).cloned() else {
        return Box::pin(async move { route(&server, ctx, &method, params).await });
    };
    let (s, c, name) = (server.clone(), ctx.clone(), method.clone());
    let next = Next(Box::new(move |params| through_middleware(s, c, name, params, depth + 1)));
    m.handle(method, params, ctx, next)
}

/// The methods both eras share.
async fn route(server: &Server, ctx: RequestContext, method: &str, params: Option<Value>) -> Reply {
    let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
    match method {
        methods::LOGGING_SET_LEVEL => {
            let p: SetLevelRequestParams = parse(params)?;
            ctx.client.log_level.store(p.level as u8, Ordering::Relaxed);
            Ok(json!({}))
        }
        methods::TOOLS_LIST => list_tools(server, version, params),
        methods::TOOLS_CALL => call_tool(server, ctx, params).await,
        methods::RESOURCES_LIST => list_resources(server, params),
        methods::RESOURCES_TEMPLATES_LIST => list_templates(server, params),
        methods::RESOURCES_READ => read_resource(server, ctx, params).await,
        methods::PROMPTS_LIST => list_prompts(server, params),
        methods::PROMPTS_GET => get_prompt(server, ctx, params).await,
        methods::COMPLETION_COMPLETE => complete(server, ctx, params).await,
        methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL | methods::TASKS_RESULT | methods::TASKS_LIST => {
            task_request(server, &ctx, method, params).await
        }
        methods::SKILLS_LIST | methods::SKILLS_GET | methods::RESOURCES_DIRECTORY_READ if serves_skills(server) => {
            skills_request(server, method, params)
        }
        other => Err(ErrorObject::method_not_found(other)),
    }
}

fn serves_skills(server: &Server) -> bool {
    !server.inner.registry.read().unwrap().skills.is_empty()
}

/// `skills/list`, `skills/get` and `resources/directory/read` (the skills extension),
/// answered from the catalog the server's skills were registered into.
fn skills_request(server: &Server, method: &str, params: Option<Value>) -> Reply {
    let registry = server.inner.registry.read().unwrap();
    let skills = &registry.skills;
    let size = server.inner.config.page_size;
    match method {
        methods::SKILLS_LIST => {
            let (page, next) = page(skills.entries(), cursor(params)?.as_deref(), size)?;
            to_value(&ListSkillsResult { skills: page.into_iter().cloned().collect(), next_cursor: next, extra: Map::new() })
        }
        methods::SKILLS_GET => {
            let p: GetSkillParams = parse(params)?;
            let skill = skills.get(&p.uri).cloned().ok_or_else(|| {
                ErrorObject::invalid_params(format!("no skill is served at {}", p.uri)).with_data(json!({ "uri": p.uri }))
            })?;
            to_value(&GetSkillResult { skill, extra: Map::new() })
        }
        _ => {
            let p: ReadDirectoryParams = parse(params)?;
            let children = skills.directory(&p.uri).ok_or_else(|| {
                ErrorObject::invalid_params(format!("{} is not a directory resource", p.uri)).with_data(json!({ "uri": p.uri }))
            })?;
            let (resources, next_cursor) = page(children.into_iter(), p.cursor.as_deref(), size)?;
            to_value(&ReadDirectoryResult { resources, next_cursor, extra: Map::new() })
        }
    }
}

/// Whether the request's client declared the tasks extension: for the session (in
/// `initialize`) or for this request alone (its `_meta` client capabilities).
fn declares_tasks(ctx: &RequestContext) -> bool {
    ctx.client_capabilities().is_some_and(|c| c.has_extension(TASKS_EXTENSION))
        || ctx
            .meta
            .as_ref()
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
            .and_then(|c| c.get("extensions"))
            .is_some_and(|e| e.get(TASKS_EXTENSION).is_some())
}

/// How the request's client speaks of tasks: the extension's form if it declared the
/// extension, else the 2025-11-25 specification's if its session speaks that version.
fn task_form(ctx: &RequestContext) -> Option<TaskForm> {
    if declares_tasks(ctx) {
        Some(TaskForm::Extension)
    } else if ctx.protocol_version() == Some(ProtocolVersion::V2025_11_25) {
        Some(TaskForm::Augmentation)
    } else {
        None
    }
}

/// Whose tasks a request makes and may reach (see `tasks::owner`): its session's, in
/// the session era, and its token's on a protected server.
fn task_owner(ctx: &RequestContext) -> Result<Option<String>, ErrorObject> {
    tasks::owner(ctx.auth(), ctx.client.session_key.get().map(String::as_str))
}

/// The task methods: `tasks/get`, `tasks/update` and `tasks/cancel` for clients that
/// declared the extension (which dropped `tasks/result` and `tasks/list`), the
/// 2025-11-25 specification's set for clients of that version.
async fn task_request(server: &Server, ctx: &RequestContext, method: &str, params: Option<Value>) -> Reply {
    let dropped = matches!(method, methods::TASKS_RESULT | methods::TASKS_LIST);
    match task_form(ctx) {
        Some(TaskForm::Augmentation) => return augmented_task_request(server, ctx, method, params).await,
        Some(TaskForm::Extension) if dropped => return Err(ErrorObject::method_not_found(method)),
        None if dropped => return Err(ErrorObject::method_not_found(method)),
        None => return Err(tasks::extension_required(method)),
        Some(TaskForm::Extension) => {}
    }
    let tasks = &server.inner.tasks;
    let owner = task_owner(ctx)?;
    if method == methods::TASKS_UPDATE {
        let p: UpdateTaskParams = parse(params)?;
        return tasks.update(&p.task_id, owner.as_deref(), p.input_responses).await;
    }
    let p: TaskIdParams = parse(params)?;
    match method {
        methods::TASKS_GET => tasks.get(&p.task_id, owner.as_deref()).await,
        _ => tasks.cancel(&p.task_id, owner.as_deref()).await,
    }
}

/// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` as the 2025-11-25
/// specification defines them (`tasks/update` is the extension's).
async fn augmented_task_request(server: &Server, ctx: &RequestContext, method: &str, params: Option<Value>) -> Reply {
    let tasks = &server.inner.tasks;
    let owner = task_owner(ctx)?;
    let owner = owner.as_deref();
    match method {
        methods::TASKS_LIST => tasks.list(owner, cursor(params)?.as_deref(), server.inner.config.page_size).await,
        methods::TASKS_UPDATE => Err(ErrorObject::method_not_found(method)),
        _ => {
            let p: TaskIdParams = parse(params)?;
            match method {
                methods::TASKS_GET => tasks.get_2025(&p.task_id, owner).await,
                methods::TASKS_RESULT => tasks.result(&p.task_id, owner, ctx).await,
                _ => tasks.cancel_2025(&p.task_id, owner).await,
            }
        }
    }
}

/// A stateless-era request says who it is in its own _meta; a session serves one once
/// initialize fixed the client. Both eras can share a connection.
fn is_stateless(client: &ClientState, req: &IncomingRequest) -> bool {
    client.info.get().is_none()
        && (req.peer.protocol_version().is_some_and(ProtocolVersion::is_stateless)
            || meta::is_stateless_request(req.params.as_ref()))
}

/// `subscriptions/listen`: serves the stream until either side ends it.
async fn stateless_listen(server: &Server, req: IncomingRequest, auth: Option<Arc<crate::auth::AuthInfo>>) -> Reply {
    let request_meta = RequestMeta::from_params(req.params.as_ref())?;
    let caps = capabilities(server, request_meta.version);
    let tasks = super::listen::TaskFeed {
        events: server.inner.tasks.subscribe(),
        // A token naming nobody owns no task, and hears of none but anonymous ones.
        owner: tasks::owner(auth.as_deref(), None).unwrap_or(None),
        declared: request_meta.capabilities.has_extension(TASKS_EXTENSION),
    };
    server.inner.listeners.listen(req, &caps, tasks).await
}

/// One stateless-era (2026-07-28) request other than `subscriptions/listen`
/// ([`stateless_listen`]): the client is whoever its `_meta` says, for this request only;
/// every result says `resultType`, cacheable ones carry caching hints.
async fn stateless_request(
    server: &Server,
    req: IncomingRequest,
    auth: Option<Arc<crate::auth::AuthInfo>>,
    headers: Option<Arc<crate::transport::http::headers::Headers>>,
) -> Reply {
    if methods::REMOVED_IN_STATELESS_ERA.contains(&req.method.as_str()) {
        return Err(ErrorObject::method_not_found(&req.method));
    }
    let request_meta = RequestMeta::from_params(req.params.as_ref())?;
    let method = req.method.as_str();
    let key = &server.inner.state_key;
    let round = Arc::new(InputRound::from_params(key, method, req.params.as_ref()).await?);
    // The handler's own token: ending a round cancels it without cancelling the request
    // (a cancelled request gets no answer).
    let cancel = req.cancel.child_token();
    let ctx = RequestContext {
        id: req.id,
        meta: meta_of(&req.params),
        peer: req.peer,
        cancel: cancel.clone(),
        client: Arc::new(ClientState::for_request(&request_meta)),
        version: Some(request_meta.version),
        inputs: Some(Inputs::To(round.clone())),
        input_key: None,
        auth,
        headers,
        server: Some(server.inner.clone()),
        next: None,
        trace: crate::telemetry::current(),
    };
    let mut result = match method {
        methods::SERVER_DISCOVER => discover(server)?,
        other => {
            // The handler runs until it finishes or asks what the client has not answered
            // yet; then the round ends with an InputRequiredResult, and the request's
            // cancellation lets the handler (and a host language's task) unwind.
            let work = routed(server, ctx, other, req.params);
            tokio::pin!(work);
            tokio::select! {
                biased;
                r = &mut work => r?,
                _ = round.input_needed() => {
                    cancel.cancel();
                    let _ = tokio::time::timeout(server.inner.config.session.cancelled_handler_grace, &mut work).await;
                    key.before_sealing().await;
                    return to_value(&round.input_required(key));
                }
            }
        }
    };
    if let Value::Object(fields) = &mut result {
        fields.entry("resultType").or_insert_with(|| Value::String(RESULT_COMPLETE.into()));
        let cacheable = matches!(
            method,
            methods::SERVER_DISCOVER
                | methods::TOOLS_LIST
                | methods::RESOURCES_LIST
                | methods::RESOURCES_TEMPLATES_LIST
                | methods::RESOURCES_READ
                | methods::PROMPTS_LIST
                | methods::SKILLS_LIST
                | methods::SKILLS_GET
        );
        if cacheable {
            let config = &server.inner.config;
            fields.entry("ttlMs").or_insert_with(|| json!(config.cache_ttl_ms));
            fields.entry("cacheScope").or_insert_with(|| json!(config.cache_scope));
        }
    }
    Ok(result)
}

/// What the server offers, for `initialize` (session era) and `server/discover`.
fn capabilities(server: &Server, version: ProtocolVersion) -> ServerCapabilities {
    let registry = server.inner.registry.read().unwrap();
    ServerCapabilities {
        logging: Some(Map::new()),
        completions: (registry.completion.is_some() && version.has_completions_capability()).then(Map::new),
        tools: (!registry.tools.is_empty()).then(|| ToolsCapability { list_changed: Some(true), ..Default::default() }),
        resources: registry.serves_resources().then(|| ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
            ..Default::default()
        }),
        prompts: (!registry.prompts.is_empty()).then(|| PromptsCapability { list_changed: Some(true), ..Default::default() }),
        // The 2025-11-25 task augmentation, for clients of that version.
        tasks: (version == ProtocolVersion::V2025_11_25 && offers_tasks(&registry))
            .then(|| json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })),
        extensions: extensions(&registry),
        ..Default::default()
    }
}

/// Whether some tool may run as a task.
fn offers_tasks(registry: &super::registry::Registry) -> bool {
    registry.tools.values().any(|t| task_support(t) != TaskSupport::Forbidden)
}

fn task_support(tool: &ToolEntry) -> TaskSupport {
    tool.tool.execution.as_ref().and_then(|e| e.task_support).unwrap_or(TaskSupport::Forbidden)
}

/// The extensions the server's registrations make it offer.
fn extensions(registry: &super::registry::Registry) -> Option<Map<String, Value>> {
    let mut offered = Map::new();
    if offers_tasks(registry) {
        offered.insert(TASKS_EXTENSION.into(), json!({}));
    }
    if !registry.skills.is_empty() {
        offered.insert(SKILLS_EXTENSION.into(), json!({ "directoryRead": true }));
    }
    (!offered.is_empty()).then_some(offered)
}

fn discover(server: &Server) -> Reply {
    let mut meta = Map::new();
    meta.insert(meta::SERVER_INFO.into(), to_value(&server.inner.info)?);
    to_value(&DiscoverResult {
        result_type: Some(RESULT_COMPLETE.into()),
        supported_versions: vec![ProtocolVersion::STATELESS.as_str().into()],
        capabilities: capabilities(server, ProtocolVersion::STATELESS),
        instructions: server.inner.instructions.clone(),
        ttl_ms: None,
        cache_scope: None,
        meta: Some(meta),
        extra: Map::new(),
    })
}

fn initialize(server: &Server, ctx: &RequestContext, params: Option<Value>) -> Reply {
    let p: InitializeRequestParams = parse(params)?;
    let version = ProtocolVersion::negotiate(&p.protocol_version);
    if ctx.client.info.set((p.client_info, p.capabilities)).is_err() {
        return Err(ErrorObject::invalid_request("initialize was already received on this session"));
    }
    ctx.client.open_session();
    ctx.peer.set_protocol_version(version);
    let capabilities = capabilities(server, version);
    let mut result = InitializeResult::new(version.as_str(), capabilities, server.inner.info.clone());
    result.instructions = server.inner.instructions.clone();
    to_value(&result)
}

fn cursor(params: Option<Value>) -> Result<Option<String>, ErrorObject> {
    let p: PaginatedRequestParams = parse(params)?;
    Ok(p.cursor)
}

fn paged<T: Clone + Serialize>(items: Vec<T>, key: &str, params: Option<Value>, size: usize) -> Reply {
    let (items, next) = page(items.into_iter(), cursor(params)?.as_deref(), size)?;
    let mut out = Map::new();
    out.insert(key.into(), to_value(&items)?);
    if let Some(next) = next {
        out.insert("nextCursor".into(), Value::String(next));
    }
    Ok(Value::Object(out))
}

fn list_tools(server: &Server, version: ProtocolVersion, params: Option<Value>) -> Reply {
    let mut tools: Vec<_> = server.inner.registry.read().unwrap().tools.values().map(|e| e.tool.clone()).collect();
    tools.iter_mut().for_each(|t| era::adapt_tool(t, version));
    paged(tools, "tools", params, server.inner.config.page_size)
}

fn list_resources(server: &Server, params: Option<Value>) -> Reply {
    let registry = server.inner.registry.read().unwrap();
    let items: Vec<_> = registry.resources.values().map(|e| e.resource.clone()).chain(registry.skills.manifests()).collect();
    drop(registry);
    paged(items, "resources", params, server.inner.config.page_size)
}

fn list_templates(server: &Server, params: Option<Value>) -> Reply {
    let items: Vec<_> = server.inner.registry.read().unwrap().templates.values().map(|e| e.template.clone()).collect();
    paged(items, "resourceTemplates", params, server.inner.config.page_size)
}

fn list_prompts(server: &Server, params: Option<Value>) -> Reply {
    let items: Vec<_> = server.inner.registry.read().unwrap().prompts.values().map(|e| e.prompt.clone()).collect();
    paged(items, "prompts", params, server.inner.config.page_size)
}

async fn call_tool(server: &Server, ctx: RequestContext, params: Option<Value>) -> Reply {
    let p =
        CallToolRequestParams::from_params(params).map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))?;
    let entry = server.inner.registry.read().unwrap().tools.get(&p.name).cloned();
    let Some(entry) = entry else {
        return Err(ErrorObject::invalid_params(format!("unknown tool: {}", p.name)));
    };
    let support = task_support(&entry);
    let form = task_form(&ctx);
    let takes_tasks = form == Some(TaskForm::Augmentation) && offers_tasks(&server.inner.registry.read().unwrap());
    // A 2025-11-25 client asks for a task itself (`params.task`); a server taking no
    // task-augmented calls ignores the field, as that version asks.
    let asked = match p.extra.get("task") {
        Some(task) if takes_tasks => {
            let task: TaskMetadata = serde_json::from_value(task.clone())
                .map_err(|e| ErrorObject::invalid_params(format!("invalid params.task: {e}")))?;
            Some(task)
        }
        _ => None,
    };
    let as_task = match form {
        Some(TaskForm::Extension) => support != TaskSupport::Forbidden,
        Some(TaskForm::Augmentation) if takes_tasks => match (&asked, support) {
            (Some(_), TaskSupport::Forbidden) => {
                let why = format!("tool {} does not run as a task: its execution.taskSupport is forbidden", p.name);
                return Err(ErrorObject::new(codes::METHOD_NOT_FOUND, why));
            }
            (None, TaskSupport::Required) => {
                let why = format!("tool {} runs only as a task: call it with params.task", p.name);
                return Err(ErrorObject::new(codes::METHOD_NOT_FOUND, why));
            }
            (asked, _) => asked.is_some(),
        },
        _ if support == TaskSupport::Required => return Err(tasks::extension_required(&format!("tool {}", p.name))),
        _ => false,
    };
    let arguments = Value::Object(p.arguments.unwrap_or_default());
    if let Err(problems) = entry.input.validate(&arguments) {
        // Invalid arguments are a tool error the model can read and correct, not a protocol error.
        let text = format!("invalid arguments for tool {}: {problems}", p.name);
        return to_value(&CallToolResult::error_text(text));
    }
    let Value::Object(arguments) = arguments else { unreachable!("built as an object above") };
    if !as_task {
        return run_tool(entry, p.name, arguments, ctx).await;
    }
    if entry.escalating && asked.is_none() {
        // Inline until the handler escalates; then the task adopts it.
        let owner = task_owner(&ctx)?;
        return tasks::escalating_call(&server.inner.tasks, owner, ctx, move |ctx| {
            Box::pin(run_tool(entry, p.name, arguments, ctx))
        })
        .await;
    }
    // The handler runs after this request is answered: with the task's cancellation, and
    // its questions to the client going into the task's inputRequests.
    let owner = task_owner(&ctx)?;
    let shape = match asked {
        Some(task) => (TaskForm::Augmentation, task.ttl.map(std::time::Duration::from_millis)),
        None => (TaskForm::Extension, None),
    };
    server
        .inner
        .tasks
        .start(owner, shape, move |cancel, inputs| {
            let ctx = RequestContext { cancel, inputs: Some(Inputs::To(inputs)), ..ctx };
            Box::pin(run_tool(entry, p.name, arguments, ctx))
        })
        .await
}

/// Runs a tool's handler and checks its result against the tool's output schema.
async fn run_tool(entry: Arc<ToolEntry>, name: String, arguments: Map<String, Value>, ctx: RequestContext) -> Reply {
    let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
    let mut result = match entry.handler.call(arguments, ctx).await {
        Ok(result) => result,
        Err(e) if e.rpc().is_some() => return Err(e.to_error_object()),
        Err(e) => CallToolResult::error_text(e.message().to_string()),
    };
    if let (Some(schema), false) = (&entry.output, result.is_error()) {
        let Some(structured) = &result.structured_content else {
            return Err(ErrorObject::internal(format!("tool {name} declares an outputSchema but returned no structuredContent")));
        };
        if let Err(problems) = schema.validate(structured) {
            return Err(ErrorObject::internal(format!(
                "tool {name} returned structuredContent that does not match its outputSchema: {problems}"
            )));
        }
    }
    era::adapt_call_tool_result(&mut result, version);
    to_value(&result)
}

async fn read_resource(server: &Server, ctx: RequestContext, params: Option<Value>) -> Reply {
    let p: ReadResourceRequestParams = parse(params)?;
    let found = {
        let registry = server.inner.registry.read().unwrap();
        match registry.resources.get(&p.uri) {
            Some(e) => Some((e.handler.clone(), Default::default())),
            None => registry.templates.values().find_map(|t| t.matcher.match_uri(&p.uri).map(|vars| (t.handler.clone(), vars))),
        }
    };
    if found.is_none() {
        if let Some(result) = server.inner.registry.read().unwrap().skills.read(&p.uri) {
            return to_value(&result);
        }
    }
    let Some((handler, variables)) = found else {
        // The stateless era reports an unknown resource as invalid params (SEP-2164).
        let stateless = ctx.protocol_version().is_some_and(ProtocolVersion::is_stateless);
        let code = if stateless { codes::INVALID_PARAMS } else { codes::RESOURCE_NOT_FOUND };
        return Err(ErrorObject::new(code, format!("resource not found: {}", p.uri)).with_data(json!({ "uri": p.uri })));
    };
    let result = handler.read(ResourceRequest { uri: p.uri, variables }, ctx).await.map_err(|e| e.to_error_object())?;
    to_value(&result)
}

/// A request's context reads its own server's resources through this (see
/// `RequestContext::read_resource`): implemented on the server's shared part, so a
/// context holds the server as cheaply as a `Server` clone, and names no server type.
impl OwnResources for super::Inner {
    fn read_own<'a>(
        self: Arc<Self>,
        ctx: RequestContext,
        uri: &'a str,
    ) -> BoxFuture<'a, crate::Result<crate::protocol::ReadResourceResult>> {
        let server = Server { inner: self };
        Box::pin(async move {
            let value = read_resource(&server, ctx, Some(json!({ "uri": uri }))).await.map_err(crate::Error::from_rpc)?;
            Ok(serde_json::from_value(value)?)
        })
    }
}

fn subscribe(server: &Server, ctx: &RequestContext, params: Option<Value>, on: bool) -> Reply {
    let uri = if on { parse::<SubscribeRequestParams>(params)?.uri } else { parse::<UnsubscribeRequestParams>(params)?.uri };
    let registry = server.inner.registry.read().unwrap();
    if !registry.serves_resources() {
        return Err(ErrorObject::method_not_found(if on {
            methods::RESOURCES_SUBSCRIBE
        } else {
            methods::RESOURCES_UNSUBSCRIBE
        }));
    }
    if !on {
        ctx.client.subscriptions.lock().unwrap().remove(&uri);
        return Ok(json!({}));
    }
    // What a session follows is kept for its life: a bounded number of URIs, so a client
    // cannot grow the server's memory at will. (Any URI: a middleware may serve resources
    // the registry does not know, and a server may tell of updates to any.)
    let mut subs = ctx.client.subscriptions.lock().unwrap();
    if subs.len() >= MAX_RESOURCE_SUBSCRIPTIONS && !subs.contains(&uri) {
        return Err(ErrorObject::invalid_params(format!(
            "this session follows {MAX_RESOURCE_SUBSCRIPTIONS} resources already, the most it may; unsubscribe from one first"
        )));
    }
    subs.insert(uri);
    Ok(json!({}))
}

async fn get_prompt(server: &Server, ctx: RequestContext, params: Option<Value>) -> Reply {
    let p: GetPromptRequestParams = parse(params)?;
    let entry = server.inner.registry.read().unwrap().prompts.get(&p.name).cloned();
    let Some(entry) = entry else {
        return Err(ErrorObject::invalid_params(format!("unknown prompt: {}", p.name)));
    };
    let arguments = p.arguments.unwrap_or_default();
    for arg in entry.prompt.arguments.iter().flatten() {
        if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
            return Err(ErrorObject::invalid_params(format!("prompt {}: missing required argument {:?}", p.name, arg.name)));
        }
    }
    let version = ctx.protocol_version().unwrap_or(ProtocolVersion::LATEST);
    let mut result = entry.handler.get(arguments, ctx).await.map_err(|e| e.to_error_object())?;
    era::adapt_prompt_result(&mut result, version);
    to_value(&result)
}

async fn complete(server: &Server, ctx: RequestContext, params: Option<Value>) -> Reply {
    let p: CompleteRequestParams = parse(params)?;
    let handler = server.inner.registry.read().unwrap().completion.clone();
    let completion = match handler {
        Some(h) => h.complete(p, ctx).await.map_err(|e| e.to_error_object())?,
        None => Completion::default(),
    };
    let mut completion = completion;
    // The specification caps a completion at 100 values.
    if completion.values.len() > 100 {
        completion.total.get_or_insert(completion.values.len() as u64);
        completion.values.truncate(100);
        completion.has_more = Some(true);
    }
    to_value(&CompleteResult { completion, meta: None, extra: Map::new() })
}
