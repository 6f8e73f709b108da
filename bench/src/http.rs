//! Streamable HTTP: the server as a child process (`oxmcp everything-server --http`), the
//! throughput round and the per-session memory round.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use oxmcp::client::Client;
use oxmcp::transport::http::HttpClientTransport;

use crate::workload::{self, Calls};

/// What the server prints on stderr once it listens.
const ANNOUNCE: &str = "oxmcp everything-server listening on ";
/// How long the server may take to start listening, and to exit after SIGTERM.
const START_TIMEOUT: Duration = Duration::from_secs(15);
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
/// Server stderr lines (other than the announcement) echoed to ours, per process.
const STDERR_ECHO_LIMIT: usize = 20;

/// A free port on 127.0.0.1: bind port 0, note the port, close the socket.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot bind 127.0.0.1:0: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| format!("cannot read the bound port: {e}"))
}

/// `oxmcp everything-server --http 127.0.0.1:PORT` running as a child process. Dropping it
/// kills the process (SIGKILL) if [`ServerProcess::stop`] was not called.
pub struct ServerProcess {
    child: Child,
    pub url: String,
    /// Server stderr lines other than the announcement.
    stderr_lines: Arc<Mutex<usize>>,
    stderr_thread: Option<JoinHandle<()>>,
}

/// How the server went away.
#[derive(Debug, Clone)]
pub struct Stopped {
    /// SIGTERM to exit.
    pub took: Duration,
    pub status: Option<ExitStatus>,
    /// Whether it had to be killed (did not exit within the timeout).
    pub killed: bool,
    /// Lines the server wrote to stderr besides its announcement (warnings, errors).
    pub stderr_lines: usize,
}

impl ServerProcess {
    /// Starts the server on a free port and waits until it announces its URL. A port taken
    /// between our probe and the server's bind is retried on another port.
    pub fn start(server: &Path) -> Result<Self, String> {
        let mut last_error = String::new();
        for _ in 0..3 {
            match Self::start_once(server) {
                Ok(p) => return Ok(p),
                Err(e) => last_error = e,
            }
        }
        Err(last_error)
    }

    fn start_once(server: &Path) -> Result<Self, String> {
        let addr = format!("127.0.0.1:{}", free_port()?);
        let mut child = Command::new(server)
            .args(["everything-server", "--http", &addr])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the server {}: {e}", server.display()))?;
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, rx) = mpsc::channel::<String>();
        let counted = Arc::new(Mutex::new(0usize));
        let count = counted.clone();
        let pid = child.id();
        // Reads the server's stderr to its end: the announcement goes to `tx`, anything
        // else is counted and (the first few lines) echoed, so warnings are not lost.
        let thread = std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix(ANNOUNCE) {
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(url.trim().to_string());
                        continue;
                    }
                }
                let mut n = count.lock().unwrap();
                *n += 1;
                if *n <= STDERR_ECHO_LIMIT {
                    eprintln!("  [server {pid} stderr] {line}");
                } else if *n == STDERR_ECHO_LIMIT + 1 {
                    eprintln!("  [server {pid} stderr] (further lines counted, not shown)");
                }
            }
        });
        let mut process = ServerProcess { child, url: String::new(), stderr_lines: counted, stderr_thread: Some(thread) };
        match rx.recv_timeout(START_TIMEOUT) {
            Ok(url) => {
                if !url.contains(&addr) {
                    return Err(format!("the server announced {url}, expected it on {addr}"));
                }
                process.url = url;
                Ok(process)
            }
            Err(_) => {
                let status = process.child.try_wait().ok().flatten();
                Err(match status {
                    Some(s) => format!("the server on {addr} exited before listening ({s})"),
                    None => format!("the server on {addr} did not announce its URL within {START_TIMEOUT:?}"),
                })
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's resident set size in KiB (`VmRSS` of /proc/PID/status).
    pub fn rss_kb(&self) -> Result<u64, String> {
        let path = format!("/proc/{}/status", self.pid());
        let status = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
        vm_rss_kb(&status).ok_or_else(|| format!("no VmRSS line in {path}"))
    }

    /// How many file descriptors the server has open (its sockets show up here).
    pub fn open_fds(&self) -> Option<usize> {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid())).ok().map(|d| d.count())
    }

    /// SIGTERM, then waits for the exit (SIGKILL after [`STOP_TIMEOUT`]).
    pub fn stop(mut self) -> Stopped {
        let started = Instant::now();
        // SAFETY: kill(2) on our own child's pid, which we have not reaped yet.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let mut status = None;
        let mut killed = false;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s);
                    break;
                }
                Ok(None) if started.elapsed() < STOP_TIMEOUT => std::thread::sleep(Duration::from_millis(2)),
                Ok(None) => {
                    let _ = self.child.kill();
                    status = self.child.wait().ok();
                    killed = true;
                    break;
                }
                Err(_) => break,
            }
        }
        let took = started.elapsed();
        if let Some(t) = self.stderr_thread.take() {
            let _ = t.join();
        }
        let stderr_lines = *self.stderr_lines.lock().unwrap();
        Stopped { took, status, killed, stderr_lines }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn vm_rss_kb(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line["VmRSS:".len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// Reports what looked wrong when a server stopped; `Err` only if it had to be killed.
fn check_stop(stopped: &Stopped, what: &str) -> Result<(), String> {
    if stopped.killed {
        return Err(format!("{what}: the server did not exit within {STOP_TIMEOUT:?} of SIGTERM and was killed"));
    }
    if !stopped.status.is_some_and(|s| s.success()) {
        eprintln!("  warning: {what}: the server exited with {:?} after SIGTERM", stopped.status);
    }
    if stopped.took > Duration::from_secs(1) {
        eprintln!("  warning: {what}: the server took {:.2} s to exit after SIGTERM", stopped.took.as_secs_f64());
    }
    Ok(())
}

async fn connect(url: &str, get_stream: bool) -> Result<Client, String> {
    Client::builder("oxmcp-bench", env!("CARGO_PKG_VERSION"))
        .era(oxmcp::client::Era::Session)
        .connect(HttpClientTransport::new(url).open_get_stream(get_stream))
        .await
        .map_err(|e| format!("connect to {url} failed: {e}"))
}

#[derive(Debug, Clone, Default)]
pub struct HttpRound {
    /// Spawn to "listening".
    pub start: Duration,
    /// `initialize` handshake over HTTP.
    pub connect: Duration,
    pub seq: Calls,
    pub conc: Calls,
    /// Server RSS after the workloads (KiB), and its time to exit after SIGTERM.
    pub rss_after_kb: u64,
    pub stop: Duration,
    pub server_stderr_lines: usize,
}

pub struct HttpParams<'a> {
    pub server: &'a Path,
    pub warmup: usize,
    pub seq: usize,
    pub concurrent: usize,
    pub in_flight: usize,
    /// Whether clients open the standalone GET stream (the transport's default: yes).
    pub get_stream: bool,
    /// A server already running (e.g. a load balancer's URL): measured as it is, with no
    /// start, stop or memory reading.
    pub url: Option<&'a str>,
}

/// One round: fresh server, connect, warm up, sequential, K in flight, close, SIGTERM.
pub async fn run_round(p: &HttpParams<'_>, base: &str) -> Result<HttpRound, String> {
    if let Some(url) = p.url {
        return run_round_at(p, base, url).await;
    }
    let mut round = HttpRound::default();
    let started = Instant::now();
    let server = ServerProcess::start(p.server)?;
    round.start = started.elapsed();

    let started = Instant::now();
    let client = Arc::new(connect(&server.url, p.get_stream).await?);
    round.connect = started.elapsed();

    for i in 0..p.warmup {
        workload::echo(&client, base, i).await?;
    }
    round.seq = workload::sequential(&client, base, p.seq).await?;
    round.conc = workload::concurrent(&client, base, p.concurrent, p.in_flight).await?;
    round.rss_after_kb = server.rss_kb()?;

    match Arc::try_unwrap(client) {
        Ok(client) => client.close().await,
        Err(_) => return Err("the client is still shared after the workloads".into()),
    }
    let stopped = server.stop();
    check_stop(&stopped, "http round")?;
    round.stop = stopped.took;
    round.server_stderr_lines = stopped.stderr_lines;
    Ok(round)
}

/// One round against a running server: connect, warm up, sequential, K in flight, close.
async fn run_round_at(p: &HttpParams<'_>, base: &str, url: &str) -> Result<HttpRound, String> {
    let mut round = HttpRound::default();
    let started = Instant::now();
    let client = Arc::new(connect(url, p.get_stream).await?);
    round.connect = started.elapsed();
    for i in 0..p.warmup {
        workload::echo(&client, base, i).await?;
    }
    round.seq = workload::sequential(&client, base, p.seq).await?;
    round.conc = workload::concurrent(&client, base, p.concurrent, p.in_flight).await?;
    match Arc::try_unwrap(client) {
        Ok(client) => client.close().await,
        Err(_) => return Err("the client is still shared after the workloads".into()),
    }
    Ok(round)
}

/// Server RSS with 0, 1 and N sessions.
#[derive(Debug, Clone, Default)]
pub struct MemoryRound {
    pub sessions: usize,
    pub rss_start_kb: u64,
    pub rss_one_kb: u64,
    pub rss_all_kb: u64,
    pub fds_start: Option<usize>,
    pub fds_one: Option<usize>,
    pub fds_all: Option<usize>,
    /// Time to open the N-1 extra sessions (connect + one echo each).
    pub open_extra: Duration,
    pub stop: Duration,
}

impl MemoryRound {
    /// KiB per session beyond the first: (RSS_N - RSS_1) / (N - 1).
    pub fn kb_per_session(&self) -> f64 {
        (self.rss_all_kb as f64 - self.rss_one_kb as f64) / (self.sessions.max(2) - 1) as f64
    }
}

/// One memory round on a fresh server: RSS at start, with one initialized session that
/// made one `echo` call, and with `sessions` of them, all kept open. `settle` is waited
/// before each reading (each client opens its standalone GET stream in the background).
pub async fn run_memory_round(
    server: &Path,
    sessions: usize,
    base: &str,
    settle: Duration,
    get_stream: bool,
) -> Result<MemoryRound, String> {
    let mut round = MemoryRound { sessions, ..Default::default() };
    let process = ServerProcess::start(server)?;
    tokio::time::sleep(settle).await;
    round.rss_start_kb = process.rss_kb()?;
    round.fds_start = process.open_fds();

    let mut clients = Vec::with_capacity(sessions);
    let first = connect(&process.url, get_stream).await?;
    workload::echo(&first, base, 0).await?;
    clients.push(first);
    tokio::time::sleep(settle).await;
    round.rss_one_kb = process.rss_kb()?;
    round.fds_one = process.open_fds();

    let started = Instant::now();
    for i in 1..sessions {
        let client = connect(&process.url, get_stream).await.map_err(|e| format!("session {}: {e}", i + 1))?;
        workload::echo(&client, base, i).await?;
        clients.push(client);
    }
    round.open_extra = started.elapsed();
    tokio::time::sleep(settle).await;
    round.rss_all_kb = process.rss_kb()?;
    round.fds_all = process.open_fds();

    // Close every session (DELETE each), then stop the server.
    futures::future::join_all(clients.into_iter().map(Client::close)).await;
    let stopped = process.stop();
    check_stop(&stopped, "memory round")?;
    round.stop = stopped.took;
    Ok(round)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vm_rss() {
        let status = "Name:\toxmcp\nVmPeak:\t  123 kB\nVmRSS:\t    8512 kB\nRssAnon:\t 3000 kB\n";
        assert_eq!(vm_rss_kb(status), Some(8512));
        assert_eq!(vm_rss_kb("Name: x\n"), None);
    }

    #[test]
    fn free_ports_are_nonzero() {
        assert_ne!(free_port().unwrap(), 0);
    }
}
