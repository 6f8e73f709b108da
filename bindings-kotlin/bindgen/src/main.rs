//! uniffi's generator: `uniffi-bindgen generate --library target/debug/liboxmcp_kotlin.so
//! --language kotlin --out-dir DIR` (bindings-kotlin/generate.sh builds and runs it).
fn main() {
    uniffi::uniffi_bindgen_main()
}
