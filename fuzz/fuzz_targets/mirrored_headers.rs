//! Mirrored headers (2026-07-28 `Mcp-Name`, `Mcp-Param-*`): decoding any value never
//! panics, and every string survives `encode` then `decode`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp::protocol::mirrored_headers::{decode, encode};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = decode(text);
    let encoded = encode(text);
    assert_eq!(decode(&encoded).expect("what encode writes, decode reads"), text);
});
