//! Regenerates `include/oxmcp.h` from the `extern "C"` items of this crate with cbindgen
//! (the header is committed; `run-tests.sh` fails when the committed one differs).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml is valid");
    match cbindgen::Builder::new().with_crate(&dir).with_config(config).generate() {
        // Writes only when the text changed, so an unchanged header keeps its mtime.
        Ok(bindings) => {
            bindings.write_to_file(format!("{dir}/include/oxmcp.h"));
        }
        Err(e) => panic!("cbindgen could not generate include/oxmcp.h: {e}"),
    }
}
