//! The client side of the stdio transport: spawn a server as a child process.
//!
//! The child runs in its own group, so closing reaches its own children too (`npx` ->
//! `node`, `uv` -> `python`). Close = close stdin, wait a grace period, ask the group to
//! stop (SIGTERM), wait again, force it (SIGKILL). The group is tied to this process (see
//! `crate::os::child`: a supervisor on Unix, a Job Object on Windows) and ends if this
//! process dies without closing it (even by SIGKILL), so a server is never orphaned. A reaper task always waits on the child, so
//! it never stays a zombie. Stderr is drained continuously (a full stderr pipe would
//! deadlock the child); its last lines are kept for the error a user sees when the child
//! dies, and every line is forwarded to `tracing` at debug level.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::framing::{LineReader, LineWriter};
use super::host_loop::{HostLoop, LoopFd, Source};
use super::{MessageReader, MessageWriter, Outbound, RecvError, SendNow, Transport, DEFAULT_MAX_MESSAGE_SIZE};
use crate::drive::Home;
use crate::os::child::{self as group, Stop};

/// How to start a server process.
///
/// ```no_run
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> std::io::Result<()> {
/// use oxmcp::transport::ChildProcess;
/// let transport = ChildProcess::new("oxmcp").args(["everything-server", "--stdio"]).spawn()?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct ChildProcess {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
    grace: Duration,
    stderr_tail_lines: usize,
    stderr: ChildStderr,
    max_message_size: usize,
    read_on: Option<ReadOn>,
}

/// Where a child's stderr lines go, besides the last lines kept for error messages.
#[derive(Clone, Default)]
pub enum ChildStderr {
    /// This process's stderr, a line at a time, as the child wrote it (the default: what
    /// a server logs there is meant for its user).
    #[default]
    Forward,
    /// Nowhere (they still show at the `debug` level of `oxmcp::child::stderr`).
    Discard,
    /// A function called with each line.
    Lines(Arc<dyn Fn(&str) + Send + Sync>),
}

impl std::fmt::Debug for ChildStderr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChildStderr::Forward => "Forward",
            ChildStderr::Discard => "Discard",
            ChildStderr::Lines(_) => "Lines",
        })
    }
}

/// The host loop a child's stdout is read on.
#[derive(Clone)]
struct ReadOn(Arc<dyn HostLoop>);

impl std::fmt::Debug for ReadOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostLoop")
    }
}

impl ChildProcess {
    /// A program to run (looked up on `PATH`).
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            grace: Duration::from_secs(2),
            stderr_tail_lines: 20,
            stderr: ChildStderr::default(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            read_on: None,
        }
    }
    /// Reads the child's stdout on a host's event loop instead of the runtime's reactor
    /// (see [`HostLoop`]).
    pub fn read_on(mut self, host: Arc<dyn HostLoop>) -> Self {
        self.read_on = Some(ReadOn(host));
        self
    }
    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
    /// Sets an environment variable for the child.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
    /// Sets the child's working directory.
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }
    /// How long each close step waits for the child to exit (default 2 s).
    pub fn grace_period(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }
    /// How many stderr lines to keep for error messages (default 20).
    pub fn stderr_tail_lines(mut self, lines: usize) -> Self {
        self.stderr_tail_lines = lines;
        self
    }
    /// Where the child's stderr lines go (default: this process's stderr).
    pub fn stderr(mut self, to: ChildStderr) -> Self {
        self.stderr = to;
        self
    }
    /// Largest accepted incoming message (default 16 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Starts the child.
    pub fn spawn(&self) -> io::Result<ChildTransport> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        let armed = group::attach(&mut cmd)?;
        let mut child = cmd.spawn().map_err(|e| io::Error::new(e.kind(), format!("cannot start {:?}: {e}", self.program)))?;
        let tie = armed.tie(&child)?;
        let pid = child.id().expect("a just-spawned child has a pid") as i32;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdout = match &self.read_on {
            Some(ReadOn(host)) => match crate::os::pipe::loop_pipe(stdout) {
                Ok(pipe) => Source::Loop(LoopFd::new(pipe?, host.clone())?),
                // Windows: the reactor reads it.
                Err(stdout) => Source::Reactor(stdout),
            },
            None => Source::Reactor(stdout),
        };
        let stderr = child.stderr.take().expect("stderr is piped");

        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(self.stderr_tail_lines)));
        let (stderr_done_tx, stderr_done) = watch::channel(false);
        let keep = self.stderr_tail_lines;
        let tail_writer = tail.clone();
        let to = self.stderr.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(target: "oxmcp::child::stderr", pid, "{line}");
                match &to {
                    ChildStderr::Forward => {
                        use std::io::Write;
                        // One write per line: lines of several children do not interleave.
                        let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
                    }
                    ChildStderr::Discard => {}
                    ChildStderr::Lines(f) => f(&line),
                }
                let mut t = tail_writer.lock().unwrap();
                if t.len() == keep {
                    t.pop_front();
                }
                if keep > 0 {
                    t.push_back(line);
                }
            }
            let _ = stderr_done_tx.send(true);
        });

        let (exit_tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = exit_tx.send(status);
        });

        let state = Arc::new(ChildState {
            pid,
            program: self.program.clone(),
            tail,
            exit,
            stderr_done,
            grace: self.grace,
            stray_lines: Default::default(),
            tie,
        });
        Ok(ChildTransport {
            reader: ChildReader { lines: LineReader::new(stdout, self.max_message_size), state: state.clone() },
            writer: ChildWriter { lines: LineWriter::new(stdin), state },
            command: std::iter::once(&self.program).chain(&self.args).map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" "),
        })
    }
}

struct ChildState {
    pid: i32,
    program: OsString,
    tail: Arc<Mutex<VecDeque<String>>>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr_done: watch::Receiver<bool>,
    grace: Duration,
    /// Stray stdout lines warned about so far (see `warn_if_not_json`).
    stray_lines: std::sync::atomic::AtomicUsize,
    /// The group: stopped through it, and ended when it drops or this process dies.
    tie: group::Tie,
}

/// Stray stdout lines a child gets a warning each for; then one more says the rest are not
/// shown (a server printing its log to stdout must not flood the user's terminal).
const STRAY_LINES_SHOWN: usize = 16;

impl ChildState {
    async fn wait_exit(&self, within: Duration) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(within, exit.wait_for(|s| s.is_some())).await;
        waited.ok().and_then(|r| r.ok().and_then(|s| *s))
    }

    fn stop_group(&self, how: Stop) {
        self.tie.stop(how);
    }

    /// Says so when the server wrote something on stdout that is no JSON-RPC message (a
    /// log line printed to stdout by mistake): the session can only answer it with a parse
    /// error to the server, so without this the user never learns why. Only the first byte
    /// is looked at, so messages are not parsed twice.
    fn warn_if_not_json(&self, line: &[u8]) {
        if matches!(line.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'[')) {
            return;
        }
        let n = self.stray_lines.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n == STRAY_LINES_SHOWN {
            tracing::warn!(target: "oxmcp::child::stdout", pid = self.pid, "server process {:?} wrote more lines that are not JSON-RPC to stdout: not shown", self.program);
        }
        if n >= STRAY_LINES_SHOWN {
            return;
        }
        const SHOWN: usize = 200;
        let text = String::from_utf8_lossy(line);
        let cut = text.char_indices().nth(SHOWN).map_or(text.len(), |(i, _)| i);
        let more = if cut < text.len() { "..." } else { "" };
        tracing::warn!(
            target: "oxmcp::child::stdout",
            pid = self.pid,
            "server process {:?} wrote a line that is not JSON-RPC to stdout (logs belong on stderr): {}{more}",
            self.program,
            &text[..cut],
        );
    }

    /// The message a user sees when the child's output ends.
    async fn describe_end(&self) -> String {
        let status = self.wait_exit(self.grace).await;
        // Let the stderr drain catch the last lines the child wrote before dying.
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(Duration::from_millis(200), done.wait_for(|d| *d)).await;
        let mut msg = match status {
            Some(s) => format!("server process {:?} (pid {}) exited: {s}", self.program, self.pid),
            None => format!("server process {:?} (pid {}) closed its stdout", self.program, self.pid),
        };
        let tail = self.tail.lock().unwrap();
        if !tail.is_empty() {
            msg.push_str("; last stderr lines:\n");
            msg.push_str(&tail.iter().cloned().collect::<Vec<_>>().join("\n"));
        }
        msg
    }
}

impl Drop for ChildState {
    fn drop(&mut self) {
        // Last resort when the transport is dropped without close(): never orphan the group.
        if self.exit.borrow().is_none() {
            self.stop_group(Stop::Force);
        }
    }
}

/// A running child process as a [`Transport`].
pub struct ChildTransport {
    reader: ChildReader,
    writer: ChildWriter,
    /// The command line, as the endpoint's name.
    command: String,
}

impl ChildTransport {
    /// The child's process id, also its process group id. On Unix this is the supervisor
    /// that runs the server as its own child, in the same group, and exits as it does.
    pub fn pid(&self) -> u32 {
        self.reader.state.pid as u32
    }
}

/// Reading half of a [`ChildTransport`] (the child's stdout).
pub struct ChildReader {
    lines: LineReader<Source<ChildStdout>>,
    state: Arc<ChildState>,
}

/// Writing half of a [`ChildTransport`] (the child's stdin); closing it stops the child.
pub struct ChildWriter {
    lines: LineWriter<ChildStdin>,
    state: Arc<ChildState>,
}

impl Transport for ChildTransport {
    type Reader = ChildReader;
    type Writer = ChildWriter;
    fn split(self) -> (ChildReader, ChildWriter) {
        (self.reader, self.writer)
    }
    fn endpoint(&self) -> Option<String> {
        Some(format!("stdio:{}", self.command))
    }
}

impl MessageReader for ChildReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        match self.lines.next_line().await {
            Ok(Some(r)) => {
                if let Ok(line) = &r {
                    self.state.warn_if_not_json(line);
                }
                r
            }
            Ok(None) => Err(RecvError::Closed(self.state.describe_end().await)),
            Err(e) => Err(RecvError::Closed(format!("reading the server's stdout failed: {e}"))),
        }
    }
    fn home(&self) -> Option<Home> {
        self.lines.get_ref().home()
    }
}

impl MessageWriter for ChildWriter {
    async fn send(&mut self, message: Outbound) -> io::Result<()> {
        if message.bytes.is_empty() {
            return Ok(()); // a routing hint, not a message
        }
        self.lines.send(&message.bytes).await
    }
    async fn flush(&mut self) -> io::Result<()> {
        self.lines.flush().await
    }
    fn try_send_now(&mut self, message: &Outbound) -> SendNow {
        if message.bytes.is_empty() {
            return SendNow::Written; // a routing hint, not a message
        }
        self.lines.try_send_now(&message.bytes)
    }
    async fn close(self) {
        let ChildWriter { lines, state } = self;
        lines.close().await; // EOF on the child's stdin: a polite server exits now
        if state.wait_exit(state.grace).await.is_some() {
            return;
        }
        tracing::debug!(pid = state.pid, "server did not exit after stdin closed; sending SIGTERM");
        state.stop_group(Stop::Ask);
        if state.wait_exit(state.grace).await.is_some() {
            return;
        }
        tracing::warn!(pid = state.pid, "server ignored SIGTERM; sending SIGKILL");
        state.stop_group(Stop::Force);
        state.wait_exit(state.grace).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stderr_lines_reach_their_sink_while_the_child_runs() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        // Writes two lines, then waits for stdin to close: it is alive throughout.
        let child = ChildProcess::new("sh")
            .args(["-c", "echo first >&2; echo second >&2; exec cat >/dev/null"])
            .stderr(ChildStderr::Lines(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string()))))
            .spawn()
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while seen.lock().unwrap().len() < 2 {
            assert!(tokio::time::Instant::now() < deadline, "the lines never came: {:?}", seen.lock().unwrap());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(*seen.lock().unwrap(), ["first", "second"]);
        drop(child);
    }
}
