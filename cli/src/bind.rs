//! Where a serving command (`everything-server --http`, `proxy --http`) listens.

use std::net::{SocketAddr, ToSocketAddrs};

/// Parses `HOST:PORT` into the address to listen on: an IP address as given, a host name
/// (`localhost:8000`) resolved. Of a name's addresses the first IPv4 one is taken: clients
/// told `localhost` try each of its addresses, while clients told `127.0.0.1` (the usual
/// spelling in MCP configs) would miss a server bound to `::1` alone.
pub fn parse(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    let expected = "expected HOST:PORT, e.g. 127.0.0.1:8000 or localhost:8000";
    let addrs: Vec<SocketAddr> = text.to_socket_addrs().map_err(|e| format!("{e} ({expected})"))?.collect();
    addrs.iter().find(|a| a.is_ipv4()).or(addrs.first()).copied().ok_or_else(|| format!("{text} names no address ({expected})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_resolve_and_addresses_stay() {
        assert_eq!(parse("localhost:8000").unwrap(), "127.0.0.1:8000".parse().unwrap());
        assert_eq!(parse("[::1]:0").unwrap(), "[::1]:0".parse().unwrap());
        assert!(parse("localhost").unwrap_err().contains("HOST:PORT"));
    }
}
