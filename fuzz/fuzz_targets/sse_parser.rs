//! The SSE parser (the HTTP client reads every server stream with it): the same events
//! however the bytes are split, and an event written by `sse::frame` reads back as itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp::transport::http::sse::{self, Parser};

fuzz_target!(|data: &[u8]| {
    let Some((&step, data)) = data.split_first() else { return };
    let whole = Parser::default().push(data).expect("far within the event limit");
    let mut parser = Parser::default();
    let mut pieces = Vec::new();
    for chunk in data.chunks(step as usize % 13 + 1) {
        pieces.extend(parser.push(chunk).expect("far within the event limit"));
    }
    assert_eq!(whole, pieces, "the events depend on how the bytes arrived");
    // A small limit: an event that ends within it comes out whatever the chunks; once an
    // unended event passes it, the parser refuses rather than grows.
    let mut small = Parser::with_limit(64);
    for chunk in data.chunks(step as usize % 13 + 1) {
        if small.push(chunk).is_err() {
            break;
        }
    }

    // Round trip: a payload without CR framed by oxmcp is one event with that payload.
    if let Ok(text) = std::str::from_utf8(data) {
        if !text.contains('\r') {
            let events = Parser::default().push(&sse::frame(Some("1-1"), Some("message"), text.as_bytes())).unwrap();
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].data, text);
        }
    }
});
