//! Protocol versions and every rule that differs between them.
//!
//! The engine never compares version strings: it asks the negotiated [`ProtocolVersion`]
//! (`supports_batches()`, `supports_elicitation()`, ...).
//!
//! Two eras: the session era (2024-11-05 to 2025-11-25: `initialize`, then a session) and
//! the stateless era (2026-07-28: no `initialize`; every request carries its version,
//! client capabilities and client info in `_meta`, see [`super::meta`]).

use std::fmt;

/// A protocol version oxmcp speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05: the first release (HTTP+SSE transport).
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, JSON-RPC batches, audio content, tool annotations.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation, resource links; batches removed.
    V2025_06_18,
    /// 2025-11-25: icons, URL elicitation, sampling with tools, SSE polling.
    V2025_11_25,
    /// 2026-07-28: the stateless era (per-request `_meta`, `server/discover`,
    /// `InputRequiredResult`, `subscriptions/listen`, `resultType` on every result).
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every session-era version (negotiated by `initialize`), oldest first.
    pub const ALL: [ProtocolVersion; 4] =
        [ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26, ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25];
    /// The stateless-era version oxmcp speaks (no `initialize`; see [`Self::is_stateless`]).
    pub const STATELESS: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest session-era version; what `initialize` asks for and falls back to.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2025_11_25;
    /// The version an HTTP server assumes when `MCP-Protocol-Version` is absent.
    pub const HTTP_DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The version's wire string, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire string (either era); `None` for a version oxmcp does not know.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().chain([Self::STATELESS]).find(|v| v.as_str() == s)
    }

    /// Server-side `initialize` negotiation: the client's version if it is a supported
    /// session-era one, else the latest (the stateless era has no `initialize`).
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested).filter(|v| !v.is_stateless()).unwrap_or(Self::LATEST)
    }

    /// The stateless era: no `initialize`, no session, no `ping`, no server-to-client
    /// requests (they become `InputRequiredResult`s), `resultType` on every result.
    pub fn is_stateless(self) -> bool {
        self >= ProtocolVersion::V2026_07_28
    }

    /// JSON-RPC batches (arrays of messages) are allowed only in 2025-03-26.
    pub fn supports_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }
    /// Audio content blocks and tool annotations exist from 2025-03-26.
    pub fn supports_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }
    /// `structuredContent`/`outputSchema`, elicitation and resource links exist from 2025-06-18.
    pub fn supports_structured_content(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }
    /// `elicitation/create` exists from 2025-06-18.
    pub fn supports_elicitation(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }
    /// The `completions` server capability is declared from 2025-03-26.
    pub fn has_completions_capability(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_known_and_falls_back_to_latest() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::negotiate(v.as_str()), v);
        }
        assert_eq!(ProtocolVersion::negotiate("1999-01-01"), ProtocolVersion::LATEST);
        assert_eq!(ProtocolVersion::parse("2026-99-99"), None);
    }

    #[test]
    fn batches_only_in_2025_03_26() {
        let allowed: Vec<_> = ProtocolVersion::ALL.into_iter().filter(|v| v.supports_batches()).collect();
        assert_eq!(allowed, vec![ProtocolVersion::V2025_03_26]);
    }
}
