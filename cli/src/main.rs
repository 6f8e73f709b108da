//! `oxmcp`: run the everything server, inspect a server, call a tool, read a resource,
//! get a prompt. Client commands start the server as a child process given after `--`.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Parser, Subcommand};
use oxmcp::protocol::CallToolResult;
use oxmcp::session::RequestOptions;
use oxmcp::transport::http::{HttpServer, HttpServerConfig};
use oxmcp::ErrorKind;
use oxmcp_cli::target::Server;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(name = "oxmcp", version, about = "Model Context Protocol tools on the oxmcp engine")]
struct Cli {
    /// Send spans and metrics to this OTLP/HTTP endpoint (e.g. http://127.0.0.1:4318);
    /// without it the standard OTEL_EXPORTER_OTLP_* variables decide, and nothing set
    /// leaves telemetry off.
    #[arg(long, global = true, value_name = "URL")]
    otlp: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the demo server that exercises every MCP feature.
    EverythingServer {
        /// Serve on stdin/stdout.
        #[arg(long, conflicts_with = "http")]
        stdio: bool,
        /// Serve Streamable HTTP (and legacy SSE) on this address, e.g. 127.0.0.1:8000 or
        /// localhost:8000.
        #[arg(long, value_name = "ADDR", value_parser = oxmcp_cli::bind::parse)]
        http: Option<std::net::SocketAddr>,
        /// With --http: no sessions, every POST independent.
        #[arg(long, requires = "http")]
        stateless: bool,
        /// With --http: answer with JSON bodies instead of SSE streams.
        #[arg(long, requires = "http")]
        json_response: bool,
        /// With --http: share sessions, streams and keys with every node using this store
        /// (`redis://HOST:PORT`), so that nodes behind a load balancer act as one server.
        #[arg(long, requires = "http", value_name = "URL")]
        redis: Option<String>,
        /// With --stdio: add a `crash` tool that ends the process (for fault-handling tests).
        #[arg(long, requires = "stdio")]
        with_crash_tool: bool,
        /// Also serve every skill under this directory (each directory holding a
        /// `SKILL.md`, at its path relative to DIR); links leaving DIR are not served.
        #[arg(long, value_name = "DIR")]
        skills_dir: Option<std::path::PathBuf>,
        /// With --auth-issuer: also a `whoami` tool naming the token's subject.
        #[command(flatten)]
        serve_auth: oxmcp_cli::oauth::ServeAuthArgs,
    },
    /// Show a server's info, capabilities, tools, resources, templates and prompts.
    Inspect {
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: oxmcp_cli::target::ServerArgs,
        #[command(flatten)]
        connect: oxmcp_cli::connect::ConnectArgs,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// The server: a URL, or a command and its arguments (after `--` or not).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        server: Vec<String>,
    },
    /// Call a tool and print its result; Ctrl-C cancels the call.
    Call {
        /// The tool's name.
        tool: String,
        /// Print the raw result as JSON.
        #[arg(long)]
        json: bool,
        /// Give up after this many seconds without a response or progress.
        #[arg(long, default_value_t = 60.0)]
        timeout: f64,
        #[command(flatten)]
        target: oxmcp_cli::target::ServerArgs,
        #[command(flatten)]
        connect: oxmcp_cli::connect::ConnectArgs,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// `[ARGUMENTS] SERVER...`: the arguments as a JSON object or `KEY=VALUE` words
        /// (none when left out), then the server: a URL, or a command and its arguments
        /// (after `--` or not).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        server: Vec<String>,
    },
    /// Read a resource and print its contents.
    Read {
        /// The resource URI.
        uri: String,
        /// Print the raw result as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: oxmcp_cli::target::ServerArgs,
        #[command(flatten)]
        connect: oxmcp_cli::connect::ConnectArgs,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// The server: a URL, or a command and its arguments (after `--` or not).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        server: Vec<String>,
    },
    /// Connect clients on one transport to a server on another: `--http ADDR -- COMMAND`
    /// serves a stdio server over Streamable HTTP (a child per session); `--stdio -- URL`
    /// gives a stdio host a remote HTTP server.
    Proxy {
        /// Serve clients on stdin/stdout.
        #[arg(long, conflicts_with = "http")]
        stdio: bool,
        /// Serve clients over Streamable HTTP on this address, e.g. localhost:8000 (port 0
        /// picks a free one).
        #[arg(long, value_name = "ADDR", value_parser = oxmcp_cli::bind::parse)]
        http: Option<std::net::SocketAddr>,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// With --http: the proxy's clients need tokens for the proxy itself (it relays
        /// with its own credentials, never theirs).
        #[command(flatten)]
        serve_auth: oxmcp_cli::oauth::ServeAuthArgs,
        /// With --http: share sessions with every proxy node using this store
        /// (`redis://HOST:PORT`); each node relays to a server connection of its own.
        #[arg(long, requires = "http", value_name = "URL")]
        redis: Option<String>,
        /// The server: a URL, or a command and its arguments (after `--` or not).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        server: Vec<String>,
    },
    /// Authorize oxmcp at a protected server's authorization server (the browser flow,
    /// redirected to 127.0.0.1) and keep the tokens for the other commands.
    Login {
        /// The server's URL.
        url: String,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// The redirect listener's port (0: a free one; a pre-registered client needs the
        /// one it registered).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Client side of the official conformance suite: runs the scenario named by
    /// MCP_CONFORMANCE_SCENARIO against URL.
    ConformanceClient {
        /// The mock server's URL (the suite passes it last).
        url: String,
    },
    /// Get a prompt and print its messages.
    Prompt {
        /// The prompt's name.
        name: String,
        /// Print the raw result as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        target: oxmcp_cli::target::ServerArgs,
        #[command(flatten)]
        connect: oxmcp_cli::connect::ConnectArgs,
        #[command(flatten)]
        auth: oxmcp_cli::oauth::AuthArgs,
        /// `[ARGUMENTS] SERVER...`: the arguments as `KEY=VALUE` words or a JSON object of
        /// strings (none when left out), then the server: a URL, or a command and its
        /// arguments (after `--` or not).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "SERVER")]
        server: Vec<String>,
    },
}

/// Writes a line to stdout, as `println!` does, but gives the error back: a reader that
/// went away (`oxmcp inspect … | head`) ends the command quietly instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

fn main() -> ExitCode {
    // SIGPIPE stays ignored, as Rust sets it up: a write to a closed socket or pipe is an
    // error the code handles (a server keeps its other sessions, a client reports the
    // child's exit), never a silent death. A closed stdout ends the command quietly.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("OXMCP_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    // Named after the command, so a trace across several oxmcp processes tells them apart.
    let service = format!("oxmcp-{}", std::env::args().nth(1).filter(|a| !a.starts_with('-')).unwrap_or_default());
    let telemetry = match &cli.otlp {
        Some(url) => oxmcp::telemetry::Telemetry::otlp(url, &service).map(Some),
        None => oxmcp::telemetry::Telemetry::from_env(&service),
    };
    let telemetry = match telemetry {
        Ok(t) => t,
        Err(e) => {
            eprintln!("oxmcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The HTTP servers shut down gracefully on their own signals; everything else ends at
    // once on one, and so must never leave a child server behind.
    let serves_http =
        matches!(cli.command, Command::EverythingServer { http: Some(_), .. } | Command::Proxy { http: Some(_), .. });
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let code = runtime.block_on(async {
        if serves_http {
            return finish(run(cli).await);
        }
        let interrupts = Interrupts::register();
        tokio::select! {
            done = run(cli) => finish(done),
            code = interrupts.abort() => code,
        }
    });
    // Drops every task still running: each child transport left open kills its server's
    // process group. Blocking reads of stdin are not waited for.
    runtime.shutdown_timeout(Duration::from_millis(500));
    // Sends what is batched before the process ends.
    drop(telemetry);
    code
}

fn finish(done: Result<ExitCode>) -> ExitCode {
    match done {
        Ok(code) => code,
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("oxmcp: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Where the first Ctrl-C goes while a call runs: it cancels the call (the server hears
/// `notifications/cancelled`); without one, Ctrl-C ends the command.
static CANCEL_ON_CTRL_C: std::sync::Mutex<Option<CancellationToken>> = std::sync::Mutex::new(None);

/// SIGINT, SIGTERM and SIGHUP (their Windows counterparts), listened to from the start: a
/// signal during connect must not kill the command before it can stop its child (which
/// runs in its own process group, out of the terminal's reach).
struct Interrupts(oxmcp::os::signals::Signals);

impl Interrupts {
    fn register() -> Interrupts {
        Interrupts(oxmcp::os::signals::Signals::register().expect("signal handler"))
    }

    /// Resolves when the command must end now, with its exit code (128 + the signal).
    async fn abort(mut self) -> ExitCode {
        loop {
            let signal = self.0.recv().await;
            if signal == oxmcp::os::signals::Signal::Interrupt {
                if let Some(cancel) = CANCEL_ON_CTRL_C.lock().unwrap().take() {
                    eprintln!("cancelling... (Ctrl-C again stops at once)");
                    cancel.cancel();
                    continue;
                }
                eprintln!("oxmcp: interrupted");
            }
            return ExitCode::from(signal.exit_code());
        }
    }
}

/// The shared store `--redis` names, connected.
async fn shared_store(url: Option<&str>) -> Result<Option<std::sync::Arc<dyn oxmcp::store::SharedStore>>> {
    let Some(url) = url else { return Ok(None) };
    let store = oxmcp::store::connect(url).await.with_context(|| format!("cannot use the shared store at {url}"))?;
    Ok(Some(store))
}

async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::EverythingServer { stdio, http, stateless, json_response, redis, with_crash_tool, skills_dir, serve_auth } => {
            if !stdio && http.is_none() {
                bail!("choose a transport: --stdio or --http ADDR");
            }
            let store = shared_store(redis.as_deref()).await?;
            let mut server_config = oxmcp::server::ServerConfig::default();
            if let Some(store) = &store {
                // The requestState key and the tasks, shared by every node.
                server_config = server_config.shared_through(store).await?;
            }
            let server = oxmcp_cli::everything::server_with(server_config, skills_dir.as_deref())
                .context("cannot serve the skills directory")?;
            let ticker = server.clone();
            // Subscribers of test://watched-resource hear about an update every few seconds.
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(3)).await;
                    ticker.notify_resource_updated("test://watched-resource");
                }
            });
            if let Some(addr) = http {
                let mut config = HttpServerConfig { bind: addr, stateless, json_response, store, ..Default::default() };
                config.auth = serve_auth.resource(addr)?;
                if config.auth.is_some() {
                    oxmcp_cli::everything::add_whoami_tool(&server);
                }
                if config.store.is_some() {
                    oxmcp_cli::everything::add_touch_tool(&server);
                }
                let http = HttpServer::bind(server, config).await?;
                eprintln!("oxmcp everything-server listening on {}", http.url());
                stop_signal().await;
                http.shutdown().await;
            } else {
                if with_crash_tool {
                    oxmcp_cli::everything::add_crash_tool(&server);
                }
                server.serve_stdio().await?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Inspect { json, target, connect, auth, server } => {
            inspect(json, &target.resolve(&server)?, &auth, &connect).await
        }
        Command::Proxy { stdio, http, auth, serve_auth, redis, server } => {
            let mut target = oxmcp_cli::proxy::Target::parse(&server).ok_or_else(|| anyhow!("give the server after --"))?;
            if let oxmcp_cli::proxy::Target::Url(_, oauth) = &mut target {
                // A protected remote server: the proxy's own tokens (`oxmcp login`, or
                // client credentials), never its clients'.
                *oauth = Some(oxmcp_cli::oauth::for_command(&auth).await?);
            }
            match (stdio, http) {
                (_, Some(addr)) => {
                    let backend = std::sync::Arc::new(oxmcp_cli::proxy::PerSessionTarget::new(target));
                    let store = shared_store(redis.as_deref()).await?;
                    let config = HttpServerConfig { bind: addr, auth: serve_auth.resource(addr)?, store, ..Default::default() };
                    let http = HttpServer::bind_backend(backend, config).await?;
                    eprintln!("oxmcp proxy listening on {}", http.url());
                    stop_signal().await;
                    http.shutdown().await;
                }
                (true, None) => oxmcp_cli::proxy::stdio(target).await?,
                (false, None) => bail!("choose where clients connect: --stdio or --http ADDR"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::ConformanceClient { url } => oxmcp_cli::conformance::run(&url).await.map(|()| ExitCode::SUCCESS),
        Command::Login { url, auth, port } => oxmcp_cli::oauth::login(&url, &auth, port).await.map(|()| ExitCode::SUCCESS),
        Command::Call { tool, json, timeout, target, connect, auth, server } => {
            // With --config the server's name comes first: `call --config F SERVER TOOL ...`.
            let (name, tool, words) = named_first(&target, tool, server)?;
            let (arguments, words) = oxmcp_cli::arguments::split(words)?;
            let server = target.resolve(name.as_ref().map_or(&words, std::slice::from_ref))?;
            let calling = call(&tool, arguments, json, timeout, &server, &auth, &connect);
            // Telemetry on: connecting, listing and calling are one trace, whose id is printed.
            let Some(root) = oxmcp::telemetry::is_enabled().then(|| root_span(&format!("oxmcp call {tool}"))) else {
                return calling.await;
            };
            let cx = opentelemetry::trace::TraceContextExt::current_with_span(root);
            if let Some(tc) = oxmcp::telemetry::trace_context_of(&cx) {
                eprintln!("trace id: {}", tc.trace_id());
            }
            let outcome = opentelemetry::trace::FutureExt::with_context(calling, cx.clone()).await;
            opentelemetry::trace::TraceContextExt::span(&cx).end();
            outcome
        }
        Command::Read { uri, json, target, connect, auth, server } => {
            let (name, uri, words) = named_first(&target, uri, server)?;
            let server = target.resolve(name.as_ref().map_or(&words, std::slice::from_ref))?;
            let client = oxmcp_cli::connect::connect(&server, false, &auth, &connect).await?;
            let result = client.read_resource(&uri).await;
            client.close().await;
            let result = result?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&result)?)?;
            } else {
                for c in &result.contents {
                    match serde_json::to_value(c)? {
                        Value::Object(o) if o.contains_key("text") => outln!("{}", o["text"].as_str().unwrap_or_default())?,
                        other => outln!("{other}")?,
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Prompt { name, json, target, connect, auth, server } => {
            let (server_name, name, words) = named_first(&target, name, server)?;
            let (arguments, words) = oxmcp_cli::arguments::split(words)?;
            let args = arguments.into_strings()?;
            let server = target.resolve(server_name.as_ref().map_or(&words, std::slice::from_ref))?;
            let client = oxmcp_cli::connect::connect(&server, false, &auth, &connect).await?;
            let result = client.get_prompt(&name, args).await;
            client.close().await;
            let result = result?;
            if json {
                outln!("{}", serde_json::to_string_pretty(&result)?)?;
            } else {
                for m in &result.messages {
                    outln!("[{:?}] {}", m.role, oxmcp_cli::show::describe(&m.content))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// With `--config`, a command's first word names the server and the words after it are
/// the command's own: `(Some(server name), first of those words, the rest)`. Without,
/// `(None, first, rest)` as given.
fn named_first(
    target: &oxmcp_cli::target::ServerArgs,
    first: String,
    mut rest: Vec<String>,
) -> Result<(Option<String>, String, Vec<String>)> {
    if !target.from_config() {
        return Ok((None, first, rest));
    }
    if rest.first().is_some_and(|w| w == "--") {
        rest.remove(0);
    }
    if rest.is_empty() {
        bail!("with --config, give the server's name, then what to do with it");
    }
    let own = rest.remove(0);
    Ok((Some(first), own, rest))
}

/// Resolves on Ctrl-C, SIGTERM or SIGHUP (their Windows counterparts), so servers shut
/// down cleanly (and stop their children).
async fn stop_signal() {
    let mut signals = oxmcp::os::signals::Signals::register().expect("signal handler");
    signals.recv().await;
}

async fn inspect(
    as_json: bool,
    server: &Server,
    auth: &oxmcp_cli::oauth::AuthArgs,
    how: &oxmcp_cli::connect::ConnectArgs,
) -> Result<ExitCode> {
    let client = oxmcp_cli::connect::connect(server, false, auth, how).await?;
    let caps = client.server_capabilities().clone();
    let tools = if caps.tools.is_some() { client.list_all_tools().await? } else { vec![] };
    let resources = if caps.resources.is_some() { client.list_all_resources().await? } else { vec![] };
    let templates = if caps.resources.is_some() { client.list_all_resource_templates().await? } else { vec![] };
    let prompts = if caps.prompts.is_some() { client.list_all_prompts().await? } else { vec![] };
    let info = client.server_info().clone();
    let version = client.protocol_version();
    let instructions = client.instructions().map(str::to_string);
    client.close().await;
    if as_json {
        let doc = json!({
            "protocolVersion": version.as_str(),
            "serverInfo": info,
            "capabilities": caps,
            "instructions": instructions,
            "tools": tools,
            "resources": resources,
            "resourceTemplates": templates,
            "prompts": prompts,
        });
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!("{} {} (protocol {version})", info.name, info.version)?;
    if let Some(i) = instructions {
        outln!("instructions: {i}")?;
    }
    outln!("capabilities: {}", serde_json::to_string(&caps)?)?;
    outln!("\ntools ({}):", tools.len())?;
    for t in &tools {
        outln!("  {} - {}", t.name, t.description.as_deref().unwrap_or(""))?;
        for line in oxmcp_cli::show::schema_lines(&t.input_schema, 4) {
            outln!("{line}")?;
        }
    }
    outln!("\nresources ({}):", resources.len())?;
    for r in &resources {
        outln!("  {} ({}){}", r.uri, r.name, r.mime_type.as_ref().map(|m| format!(" [{m}]")).unwrap_or_default())?;
    }
    outln!("\nresource templates ({}):", templates.len())?;
    for t in &templates {
        outln!("  {} ({})", t.uri_template, t.name)?;
    }
    outln!("\nprompts ({}):", prompts.len())?;
    for p in &prompts {
        let args: Vec<String> = p
            .arguments
            .iter()
            .flatten()
            .map(|a| format!("{}{}", a.name, if a.required == Some(true) { "*" } else { "" }))
            .collect();
        outln!("  {}({}) - {}", p.name, args.join(", "), p.description.as_deref().unwrap_or(""))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A root span of the CLI's own, for what a command does in one trace.
fn root_span(name: &str) -> opentelemetry::global::BoxedSpan {
    use opentelemetry::trace::Tracer;
    opentelemetry::global::tracer(oxmcp::telemetry::SCOPE).start(name.to_owned())
}

async fn call(
    tool: &str,
    arguments: oxmcp_cli::arguments::Given,
    as_json: bool,
    timeout: f64,
    server: &Server,
    auth: &oxmcp_cli::oauth::AuthArgs,
    how: &oxmcp_cli::connect::ConnectArgs,
) -> Result<ExitCode> {
    let client = oxmcp_cli::connect::connect(server, true, auth, how).await?;
    // KEY=VALUE values are read by the tool's input schema.
    let schema = match arguments.needs_schema() {
        true => client.list_all_tools().await?.into_iter().find(|t| t.name == tool).map(|t| t.input_schema),
        false => None,
    };
    let arguments = match arguments.into_value(schema.as_ref()) {
        Ok(a) => a,
        Err(e) => {
            client.close().await;
            return Err(e);
        }
    };
    let cancel = CancellationToken::new();
    *CANCEL_ON_CTRL_C.lock().unwrap() = Some(cancel.clone());
    let options =
        RequestOptions::default().timeout(Duration::from_secs_f64(timeout)).cancel_token(cancel).on_progress(|p| {
            match (p.total, &p.message) {
                (Some(t), Some(m)) => eprintln!("progress {}/{t}: {m}", p.progress),
                (Some(t), None) => eprintln!("progress {}/{t}", p.progress),
                (None, Some(m)) => eprintln!("progress {}: {m}", p.progress),
                (None, None) => eprintln!("progress {}", p.progress),
            }
        });
    let outcome = client.call_tool_with(tool, arguments, options).await;
    CANCEL_ON_CTRL_C.lock().unwrap().take();
    client.close().await;
    let result: CallToolResult = match outcome {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::Cancelled => {
            eprintln!("oxmcp: {e}");
            return Ok(ExitCode::from(130));
        }
        Err(e) => return Err(e.into()),
    };
    if as_json {
        outln!("{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        for line in oxmcp_cli::show::result_lines(&result) {
            outln!("{line}")?;
        }
    }
    Ok(if result.is_error() { ExitCode::from(2) } else { ExitCode::SUCCESS })
}
