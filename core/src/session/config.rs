//! A session's limits and timeouts, and the counts that show whether anything leaked.

use std::time::Duration;

/// Limits and timeouts of a session. All have defaults; all can be changed.
///
/// ```
/// use std::time::Duration;
/// let config = oxmcp::session::SessionConfig {
///     request_timeout: Duration::from_secs(30),
///     ..Default::default()
/// };
/// ```
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Incoming requests handled at once; more wait (still cancellable) for a slot.
    pub max_concurrent_requests: usize,
    /// Incoming requests that may wait for a slot; beyond them a request is answered at
    /// once with an error saying the server is busy (memory stays bounded).
    pub max_queued_requests: usize,
    /// Outgoing requests fail with [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) after
    /// this long without a response (or, with `reset_timeout_on_progress`, without
    /// progress).
    pub request_timeout: Duration,
    /// Outgoing requests always fail after this long, whatever progress arrives.
    pub max_request_timeout: Duration,
    /// Progress notifications for a request restart its inactivity timer. When on, the
    /// engine attaches a progress token to every request that has none.
    pub reset_timeout_on_progress: bool,
    /// How long a cancelled handler may keep running to observe its token and clean up
    /// before its future is dropped. Its result is discarded either way.
    pub cancelled_handler_grace: Duration,
    /// Bytes of the peer's notifications (as they came on the wire) that may wait for the
    /// notification handler. A handler slower than the peer's stream of them stops the
    /// session reading until it catches up, and the peer is held back by the transport
    /// (a full pipe), so a flood costs this side a bounded amount of memory. (The HTTP
    /// client transport still reads its streams into a queue of its own without bound.)
    /// Responses behind the held-back notifications wait too, so a notification handler
    /// must not wait for an answer on its own session.
    pub max_queued_notification_bytes: usize,
    /// Bytes this side may have waiting for a peer that reads nothing (leaves its pipe
    /// full) for 5 seconds; a peer that reads, however slowly, may fall four times as far
    /// behind. Past that the session closes, saying why, instead of growing without end.
    /// A message with nothing ahead of it is always taken. Once a session is closed,
    /// what is still queued gets 5 seconds to go out and the transport is then dropped
    /// as it is, so closing never waits on such a peer for ever.
    pub max_queued_outbound_bytes: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            max_concurrent_requests: 256,
            max_queued_requests: 4096,
            request_timeout: Duration::from_secs(60),
            max_request_timeout: Duration::from_secs(30 * 60),
            reset_timeout_on_progress: true,
            cancelled_handler_grace: Duration::from_secs(2),
            max_queued_notification_bytes: 4 * 1024 * 1024,
            max_queued_outbound_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Counts that show whether anything leaked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionStats {
    /// Entries in the pending map (requests we sent, not yet ended).
    pub pending_requests: usize,
    /// Entries in the in-flight map (requests we received, not yet answered).
    pub in_flight_requests: usize,
}
