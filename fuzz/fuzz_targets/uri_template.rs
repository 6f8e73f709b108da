//! URI templates (resource templates match the URIs clients send): parsing and matching
//! any template against any URI never panics, and a literal-only template matches
//! exactly itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp::server::UriTemplate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, uri) = text.split_once('\n').unwrap_or((text, text));
    if let Ok(t) = UriTemplate::parse(template) {
        let _ = t.variables();
        if let Some(vars) = t.match_uri(uri) {
            for name in vars.keys() {
                assert!(t.variables().contains(&name.as_str()), "{name} is no variable of {template}");
            }
        }
        if !template.contains('{') {
            assert!(t.match_uri(template).is_some(), "a literal template matches itself");
        }
    }
});
