//! uniffi's generator: `cargo run -p oxmcp-kotlin --features bindgen --bin uniffi-bindgen --
//! generate --library target/debug/liboxmcp_kotlin.so --language kotlin --out-dir DIR`
//! (bindings-kotlin/generate.sh runs it).
fn main() {
    uniffi::uniffi_bindgen_main()
}
