//! One HTTP-served session's plumbing: POST bodies flow into the engine's reader; the
//! engine's output is routed to the SSE stream (or JSON body) of the POST whose request it
//! answers or belongs to, or else to the standalone GET stream.
//!
//! Streams are resumable when an event store is configured: every event is stored under an
//! id naming its stream, and a dropped connection is not a cancel. Without a store (or in
//! stateless mode) a dropped stream cancels the requests it was carrying.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::sse::{self, EventStore, StreamHandle, StreamId, StreamKey};
use super::stream_queue::{queue, QueueSender, Refused, StreamBudget};
use crate::protocol::{Message, RequestId};
use crate::store::LogEntry;
use crate::transport::{Inbound, MessageKind, MessageReader, MessageWriter, Outbound, RecvError, Route, SessionId, Transport};

/// Messages kept for a standalone GET stream that is not open yet.
const BACKLOG_LIMIT: usize = 1024;

pub(crate) struct Hub {
    /// Boxed: an unbounded channel allocates 32 slots up front, per session.
    inbound: mpsc::UnboundedSender<Box<Inbound>>,
    state: Mutex<HubState>,
    store: Option<Arc<dyn EventStore>>,
    /// This session's random tag in the event store: a `Last-Event-ID` is looked up under
    /// it, so no session can replay another's stream.
    owner: u64,
    pub(crate) last_activity: Mutex<Instant>,
    /// Fired when the engine's writer closes (the session ended).
    pub(crate) closed: CancellationToken,
    /// Legacy HTTP+SSE: everything goes to the one stream.
    legacy: bool,
    /// Who the session's tokens speak for, on a protected server.
    pub(crate) auth: Option<crate::auth::SessionAuth>,
    /// The HTTP headers of the requests on their way to the engine.
    pub(crate) headers: super::headers::RequestHeaders,
    /// A session other nodes serve too: its events go to the shared logs.
    pub(crate) shared: Option<SharedHub>,
    /// What its streams may hold queued for a client that does not read them.
    budget: Arc<StreamBudget>,
}

/// A shared session's hub: where its events go, and what its role is told.
pub(crate) struct SharedHub {
    writer: super::shared::LogWriter,
    pub(crate) session: SharedSession,
}

#[derive(Default)]
struct HubState {
    by_request: HashMap<RequestId, StreamId>,
    streams: HashMap<StreamId, Stream>,
    standalone: Option<StreamId>,
    backlog: VecDeque<Bytes>,
}

impl HubState {
    /// A fresh random stream id: event ids carry it, and a guessable one would tell a
    /// client about other sessions' traffic.
    fn new_stream_id(&self) -> StreamId {
        loop {
            let id = rand::random::<u64>() >> 1; // fits an i64 for clients that parse it so
            if id != 0 && !self.streams.contains_key(&id) {
                return id;
            }
        }
    }
}

impl Stream {
    fn new(sender: Option<QueueSender>, pending: HashSet<RequestId>, json: bool) -> Stream {
        Stream { sender, pending, seq: 0, json, raw: false, first: None }
    }
}

struct Stream {
    /// The live connection, if any (None while a resumable client reconnects).
    sender: Option<QueueSender>,
    /// Requests carried by this stream and not answered yet.
    pending: HashSet<RequestId>,
    seq: u64,
    /// JSON-response mode: raw messages instead of SSE frames, nothing stored.
    json: bool,
    /// Raw messages, notifications included: the reader frames them itself (the
    /// stateless era decides between JSON and SSE on the first message).
    raw: bool,
    /// A raw stream's reader learns here what its first message is, before the message.
    first: Option<oneshot::Sender<First>>,
}

/// What the first message on a raw request stream is (see [`Hub::open_raw_request_stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum First {
    /// Something sent while the request runs (progress, a log message).
    During,
    /// The request's answer; `Some(code)` when it is an error.
    Answer(Option<i64>),
}

/// A raw request stream: its messages, and what the first of them is.
pub(crate) struct RawStreamHandle {
    pub(crate) handle: StreamHandle,
    /// Told before the first message is sent, so it is known once that message arrives.
    pub(crate) first: oneshot::Receiver<First>,
}

impl Hub {
    /// A session's hub; `budget`: the bytes its streams may hold queued.
    pub(crate) fn new(
        store: Option<Arc<dyn EventStore>>,
        legacy: bool,
        protected: bool,
        budget: usize,
    ) -> (Arc<Hub>, HttpSessionTransport) {
        let (tx, rx) = mpsc::unbounded_channel();
        let hub = Arc::new(Hub {
            inbound: tx,
            state: Mutex::default(),
            store,
            owner: rand::random(),
            last_activity: Mutex::new(Instant::now()),
            closed: CancellationToken::new(),
            legacy,
            auth: protected.then(crate::auth::SessionAuth::default),
            headers: Default::default(),
            shared: None,
            budget: StreamBudget::new(budget),
        });
        let transport = HttpSessionTransport { rx, hub: hub.clone(), session_id: None };
        (hub, transport)
    }

    /// A hub for a session several nodes serve: `owner` and `standalone` are the session's
    /// (from its shared record), so every node's hub writes the same logs.
    pub(crate) fn new_shared(
        node: Arc<super::shared::Node>,
        owner: u64,
        standalone: StreamId,
        protected: bool,
        session: SharedSession,
        budget: usize,
    ) -> (Arc<Hub>, HttpSessionTransport) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = HubState::default();
        // Messages tied to no request go to the standalone stream's log, read by whichever
        // node holds the client's GET.
        state.streams.insert(standalone, Stream::new(None, HashSet::new(), false));
        state.standalone = Some(standalone);
        let writer = node.writer();
        let hub = Arc::new(Hub {
            inbound: tx,
            state: Mutex::new(state),
            store: None,
            owner,
            last_activity: Mutex::new(Instant::now()),
            closed: CancellationToken::new(),
            legacy: false,
            auth: protected.then(crate::auth::SessionAuth::default),
            headers: Default::default(),
            shared: Some(SharedHub { writer, session }),
            budget: StreamBudget::new(budget),
        });
        let transport = HttpSessionTransport { rx, hub: hub.clone(), session_id: None };
        (hub, transport)
    }

    /// The log of this session's stream `stream` (shared sessions).
    pub(crate) fn log_of(&self, stream: StreamId) -> String {
        super::shared::log_name(self.owner, stream)
    }

    pub(crate) fn resumable(&self) -> bool {
        self.store.is_some() || self.shared.is_some()
    }

    /// Whether a client connection is reading one of this session's streams now.
    pub(crate) fn has_live_stream(&self) -> bool {
        self.state.lock().unwrap().streams.values().any(|s| s.sender.is_some())
    }

    pub(crate) fn touch(&self) {
        *self.last_activity.lock().unwrap() = Instant::now();
    }

    /// Hands what a POST carried to the engine, its requests' headers kept for their
    /// handlers.
    pub(crate) fn deliver_posted(&self, ids: &[RequestId], headers: &axum::http::HeaderMap, inbound: Inbound) {
        self.headers.put(ids, headers);
        self.deliver(inbound);
    }

    /// Hands a message from the client (parsed once, by the HTTP handler) to the engine.
    pub(crate) fn deliver(&self, inbound: Inbound) {
        self.touch();
        let _ = self.inbound.send(Box::new(inbound));
    }

    /// Opens the stream that will carry the responses to `requests` (registered before the
    /// body reaches the engine, so no response can miss it).
    pub(crate) fn open_request_stream(&self, requests: &[RequestId], json: bool) -> StreamHandle {
        let (tx, rx) = queue(self.budget.clone());
        let mut st = self.state.lock().unwrap();
        let id = st.new_stream_id();
        for r in requests {
            st.by_request.insert(r.clone(), id);
        }
        let pending = requests.iter().cloned().collect();
        // A shared session's events reach this connection once its log has them (see
        // `emit`): a client resuming elsewhere then finds every event it was sent.
        st.streams.insert(id, Stream::new(Some(tx), pending, json));
        StreamHandle { id, rx }
    }

    /// Like [`Hub::open_request_stream`], but every message related to the request comes
    /// unframed (raw JSON), notifications included, and the reader learns what the first
    /// message is without reading it.
    pub(crate) fn open_raw_request_stream(&self, request: &RequestId) -> RawStreamHandle {
        let handle = self.open_request_stream(std::slice::from_ref(request), false);
        let (tx, first) = oneshot::channel();
        if let Some(s) = self.state.lock().unwrap().streams.get_mut(&handle.id) {
            s.raw = true;
            s.first = Some(tx);
        }
        RawStreamHandle { handle, first }
    }

    /// Opens the standalone stream (GET without Last-Event-ID); `None` if one is open.
    pub(crate) fn open_standalone(&self) -> Option<StreamHandle> {
        let (tx, rx) = queue(self.budget.clone());
        let mut st = self.state.lock().unwrap();
        if let Some(existing) = st.standalone {
            if st.streams.get(&existing).is_some_and(|s| s.sender.is_some()) {
                return None;
            }
            st.streams.remove(&existing);
        }
        let id = st.new_stream_id();
        st.streams.insert(id, Stream::new(Some(tx), HashSet::new(), false));
        st.standalone = Some(id);
        let backlog: Vec<Bytes> = st.backlog.drain(..).collect();
        for bytes in backlog {
            self.emit(&mut st, id, &bytes, First::During);
        }
        Some(StreamHandle { id, rx })
    }

    /// The priming event (id, empty data, retry) that lets a client resume a stream
    /// before its first message.
    pub(crate) fn prime(&self, stream: StreamId, retry_ms: Option<u64>) {
        let st = self.state.lock().unwrap();
        let Some(s) = st.streams.get(&stream) else { return };
        if let Some(shared) = &self.shared {
            shared.writer.write(stream, self.log_of(stream), LogEntry::Prime, s.sender.clone());
            return;
        }
        let frame = sse::priming(&sse::event_id(stream, 0), retry_ms);
        if let Some(store) = &self.store {
            store.append(self.key(stream), 0, frame.clone());
        }
        if let Some(tx) = &s.sender {
            let _ = tx.send(frame);
        }
    }

    fn key(&self, stream: StreamId) -> StreamKey {
        StreamKey { owner: self.owner, stream }
    }

    /// Resumes a stream of this session after `Last-Event-ID`: replays what followed and
    /// attaches the new connection if the stream is still going. `None` if it cannot be
    /// resumed, or is not this session's.
    pub(crate) fn resume(&self, stream: StreamId, after: u64) -> Option<StreamHandle> {
        let store = self.store.as_ref()?;
        let mut st = self.state.lock().unwrap();
        let replay = store.after(self.key(stream), after)?;
        let (tx, rx) = queue(self.budget.clone());
        for frame in replay {
            let _ = tx.push(frame); // stored already: sharing the bytes costs nothing
        }
        let no_standalone = st.standalone.is_none();
        if let Some(s) = st.streams.get_mut(&stream) {
            s.sender = Some(tx);
            if no_standalone && s.pending.is_empty() {
                st.standalone = Some(stream);
            }
        }
        // A finished stream: the replay is all there is; dropping tx ends the response.
        Some(StreamHandle { id: stream, rx })
    }

    /// The connection carrying `stream` went away.
    pub(crate) fn stream_dropped(&self, stream: StreamId) {
        let mut st = self.state.lock().unwrap();
        let Some(s) = st.streams.get_mut(&stream) else { return };
        s.sender = None;
        if self.resumable() && !s.json {
            return; // the client may come back with Last-Event-ID
        }
        self.orphan(&mut st, stream, "the client closed the response stream");
    }

    /// Ends the connection of the stream carrying `request` without ending the request:
    /// the client reconnects with `Last-Event-ID` (2025-11-25 polling).
    fn end_connection_of(&self, request: &RequestId) {
        let mut st = self.state.lock().unwrap();
        let Some(&sid) = st.by_request.get(request) else { return };
        if let Some(shared) = &self.shared {
            // Whichever node reads the stream ends its connection there (this one too: the
            // writer drops the connection's last sender).
            let local = st.streams.get_mut(&sid).and_then(|s| s.sender.take());
            shared.writer.write(sid, self.log_of(sid), LogEntry::Disconnect, local);
            return;
        }
        if let Some(s) = st.streams.get_mut(&sid) {
            if self.store.is_some() && !s.json {
                s.sender = None;
            }
        }
    }

    fn emit(&self, st: &mut HubState, stream: StreamId, bytes: &[u8], what: First) {
        let Some(s) = st.streams.get_mut(&stream) else { return };
        if let Some(first) = s.first.take() {
            let _ = first.send(what);
        }
        if let (Some(shared), false) = (&self.shared, s.json || s.raw) {
            let entry = LogEntry::Message(Bytes::copy_from_slice(bytes));
            shared.writer.write(stream, self.log_of(stream), entry, s.sender.clone());
            return;
        }
        s.seq += 1;
        let frame = if s.json || s.raw {
            Bytes::copy_from_slice(bytes)
        } else {
            let id = sse::event_id(stream, s.seq);
            let frame = sse::frame(Some(&id), Some("message"), bytes);
            if let Some(store) = &self.store {
                store.append(self.key(stream), s.seq, frame.clone());
            }
            frame
        };
        let Some(tx) = &s.sender else { return };
        match tx.send(frame) {
            Ok(()) => {}
            Err(Refused::Gone) => s.sender = None,
            Err(Refused::OverBudget) => {
                tracing::warn!(
                    "an SSE response was cut: its client fell behind, its session's streams holding over {} bytes unread",
                    self.budget.limit()
                );
                self.cut(st, stream);
            }
        }
    }

    /// A stream whose client stopped reading: its connection ends as if the client had
    /// dropped it (a resumable stream waits for its `Last-Event-ID`; otherwise its
    /// requests are cancelled, as nobody can receive their answers).
    fn cut(&self, st: &mut HubState, stream: StreamId) {
        let Some(s) = st.streams.get_mut(&stream) else { return };
        s.sender = None;
        if self.resumable() && !s.json {
            return;
        }
        self.orphan(st, stream, "the client did not read its response stream");
    }

    /// Ends `stream` for good, cancelling the requests it carried.
    fn orphan(&self, st: &mut HubState, stream: StreamId, why: &str) {
        let Some(s) = st.streams.get_mut(&stream) else { return };
        let orphans: Vec<RequestId> = s.pending.drain().collect();
        st.streams.remove(&stream);
        if st.standalone == Some(stream) {
            st.standalone = None;
        }
        for id in orphans {
            st.by_request.remove(&id);
            // Nobody can receive the answer any more: cancel the handler.
            let _ = self.inbound.send(Box::new(Inbound::Cancelled { request: id, reason: why.to_string() }));
        }
    }

    fn route(&self, out: Outbound, kind: Option<MessageKind>) {
        let mut st = self.state.lock().unwrap();
        if self.legacy {
            let target = st.standalone;
            match target {
                Some(sid) => self.emit(&mut st, sid, &out.bytes, First::During),
                None => push_backlog(&mut st, out.bytes),
            }
            return;
        }
        let (target, answered): (Option<StreamId>, Vec<RequestId>) = match &out.route {
            Route::Answers(id) => (st.by_request.get(id).copied(), vec![id.clone()]),
            Route::AnswersBatch(ids) => (ids.iter().find_map(|id| st.by_request.get(id).copied()), ids.clone()),
            Route::During(id) => (st.by_request.get(id).copied(), Vec::new()),
            Route::EndConnectionOf(id) => {
                drop(st);
                self.end_connection_of(id);
                return;
            }
            Route::Unanswered(id) => {
                self.forget_request(&mut st, id);
                self.headers.forget(std::slice::from_ref(id));
                return;
            }
            Route::Unrelated => (None, Vec::new()),
        };
        // A request the engine answered without a handler (ping, a duplicate id, over the
        // concurrency limit) left its headers waiting: drop them, or they would fill the
        // session's share and starve later handlers of theirs.
        self.headers.forget(&answered);
        // In JSON-response mode only responses can go in the body; the rest is unrelated.
        let target = target.filter(|sid| !answered.is_empty() || st.streams.get(sid).is_some_and(|s| !s.json));
        let what = match (answered.is_empty(), kind) {
            (true, _) => First::During,
            (false, Some(MessageKind::Error(code))) => First::Answer(Some(code)),
            (false, _) => First::Answer(None),
        };
        match target.or(st.standalone) {
            Some(sid) => self.emit(&mut st, sid, &out.bytes, what),
            None if answered.is_empty() => push_backlog(&mut st, out.bytes),
            None => {} // the stream of this request is gone (cancelled): nothing to deliver
        }
        if target.is_some() {
            // Answered: the stream stops waiting for these; stored events stay for replay.
            for id in &answered {
                self.forget_request(&mut st, id);
            }
        }
    }

    /// A request that is answered, or will get no answer (cancelled): its stream stops
    /// waiting for it, and ends if it waited for nothing else.
    fn forget_request(&self, st: &mut HubState, id: &RequestId) {
        let Some(sid) = st.by_request.remove(id) else { return };
        let standalone = st.standalone;
        let finished = st.streams.get_mut(&sid).is_some_and(|s| {
            s.pending.remove(id);
            s.pending.is_empty() && Some(sid) != standalone
        });
        if finished {
            // Dropping the sender ends the HTTP response (a shared session's once its
            // writer has passed on what came before), and the log's end its readers'.
            let ended = st.streams.remove(&sid);
            if let Some(shared) = &self.shared {
                shared.writer.write(sid, self.log_of(sid), LogEntry::End, ended.and_then(|s| s.sender));
            }
        }
    }

    fn close_all(&self) {
        let mut st = self.state.lock().unwrap();
        st.streams.clear();
        st.by_request.clear();
        st.standalone = None;
        if let Some(store) = &self.store {
            store.forget_owner(self.owner);
        }
    }
}

fn push_backlog(st: &mut HubState, bytes: Bytes) {
    if st.backlog.len() == BACKLOG_LIMIT {
        st.backlog.pop_front();
    }
    st.backlog.push_back(bytes);
}

/// What a backend learns of a session that several server nodes serve (the server has a
/// shared store): the role saves its state of the session through `saver` before
/// answering the request that changed it, and a node taking the session on finds that
/// state in `restored`.
#[derive(Clone, Debug)]
pub struct SharedSession {
    /// Saves the role's state of the session where every node finds it.
    pub saver: crate::store::StateSaver,
    /// The state another node saved, when this node takes on a session it did not start.
    pub restored: Option<serde_json::Value>,
    /// How many connections read the session's standalone stream on this node: what a
    /// backend sends there for every node (a list change) is sent by the node(s) where it
    /// is read, so the client gets it once.
    pub readers: Arc<std::sync::atomic::AtomicUsize>,
}

/// One HTTP-served session as a [`Transport`]: what a [`super::Backend`] runs a session
/// over. Messages arrive from POSTs, parsed; what the session writes goes to the right
/// response stream.
pub struct HttpSessionTransport {
    rx: mpsc::UnboundedReceiver<Box<Inbound>>,
    hub: Arc<Hub>,
    session_id: Option<SessionId>,
}

/// Reading half of an [`HttpSessionTransport`].
pub struct HubReader(mpsc::UnboundedReceiver<Box<Inbound>>);
/// Writing half of an [`HttpSessionTransport`].
pub struct HubWriter(Arc<Hub>, Option<SessionId>);

impl HttpSessionTransport {
    /// The transport of the session the client knows as `id` (its `Mcp-Session-Id`, or a
    /// legacy SSE session's `sessionId`).
    pub(crate) fn named(mut self, id: &str) -> Self {
        self.session_id = Some(SessionId::of(id));
        self
    }

    /// Who the session's tokens speak for, when the server is protected: what a backend
    /// hands its handlers.
    pub fn auth(&self) -> Option<crate::auth::SessionAuth> {
        self.hub.auth.clone()
    }

    /// The HTTP headers of each request, for its handler.
    pub fn request_headers(&self) -> super::headers::RequestHeaders {
        self.hub.headers.clone()
    }

    /// Set when other server nodes serve this session too: how the backend saves its
    /// state of the session for them, and the state it takes on.
    pub fn shared(&self) -> Option<SharedSession> {
        self.hub.shared.as_ref().map(|s| s.session.clone())
    }
}

impl Transport for HttpSessionTransport {
    type Reader = HubReader;
    type Writer = HubWriter;
    fn split(self) -> (HubReader, HubWriter) {
        (HubReader(self.rx), HubWriter(self.hub, self.session_id))
    }
}

impl MessageReader for HubReader {
    async fn recv(&mut self) -> Result<Bytes, RecvError> {
        self.recv_inbound().await.map(Inbound::into_bytes)
    }

    /// The POST bodies' messages as the HTTP handlers parsed them, and a cancel for each
    /// request whose response stream went away.
    async fn recv_inbound(&mut self) -> Result<Inbound, RecvError> {
        self.0.recv().await.map(|b| *b).ok_or_else(|| RecvError::Closed("the HTTP session ended".into()))
    }
}

impl MessageWriter for HubWriter {
    async fn send(&mut self, message: Outbound) -> io::Result<()> {
        self.0.route(message, None);
        Ok(())
    }
    async fn send_kind(&mut self, message: Outbound, kind: MessageKind) -> io::Result<()> {
        self.0.route(message, Some(kind));
        Ok(())
    }
    async fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    async fn close(self) {
        self.0.close_all();
        self.0.closed.cancel();
    }
    fn session_id(&self) -> Option<SessionId> {
        self.1.clone()
    }
}

/// The ids of the requests in a parsed POST body.
pub(crate) fn request_ids<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<RequestId> {
    messages
        .into_iter()
        .filter_map(|m| match m {
            Message::Request { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}
