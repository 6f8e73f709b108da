//! The JSON-RPC envelope: any frame is a message, a batch or a rejection with a
//! JSON-RPC error code, never a panic; a message written back parses to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp::protocol::jsonrpc::Incoming;
use oxmcp::protocol::Message;

fuzz_target!(|data: &[u8]| {
    match Message::parse(data) {
        Ok(Incoming::Single(m)) => {
            assert!(std::str::from_utf8(data).is_ok(), "accepted invalid UTF-8");
            let again = Message::parse_single(&m.to_bytes()).expect("what oxmcp writes, it reads");
            assert_eq!(again.to_bytes(), m.to_bytes());
        }
        Ok(Incoming::Batch(items)) => {
            for m in items.into_iter().flatten() {
                let again = Message::parse_single(&m.to_bytes()).expect("what oxmcp writes, it reads");
                assert_eq!(again.to_bytes(), m.to_bytes());
            }
        }
        Err(rejected) => assert!((-32700..=-32600).contains(&rejected.error.code), "code {}", rejected.error.code),
    }
});
