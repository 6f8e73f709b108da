//! Protocol versions and every rule that differs between them.
//!
//! The engine never compares version strings: it asks the negotiated [`ProtocolVersion`]
//! (`supports_batches()`, `supports_elicitation()`, ...). The 2026-07-28 stateless era
//! will add its variant and rules here.

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
}

impl ProtocolVersion {
    /// Every supported version, oldest first.
    pub const ALL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    /// The newest version; what a client asks for and a server falls back to.
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
        }
    }

    /// Parses a wire string; `None` for a version oxmcp does not know.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Server-side negotiation: the client's version if supported, else the latest.
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested).unwrap_or(Self::LATEST)
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
