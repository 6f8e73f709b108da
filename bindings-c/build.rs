//! Regenerates `include/oxmcp.h` from the `extern "C"` items of this crate with cbindgen
//! (the header is committed; `run-tests.sh` fails when the committed one differs), with
//! `src/helpers.h` (the typed `static inline` helpers written on the doors) at its end, so the
//! one header a package ships has both.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let mut config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml is valid");
    let helpers = std::fs::read_to_string(format!("{dir}/src/helpers.h")).expect("src/helpers.h is readable");
    config.trailer = Some(helpers);
    match cbindgen::Builder::new().with_crate(&dir).with_config(config).generate() {
        // Writes only when the text changed, so an unchanged header keeps its mtime.
        Ok(bindings) => {
            bindings.write_to_file(format!("{dir}/include/oxmcp.h"));
        }
        Err(e) => panic!("cbindgen could not generate include/oxmcp.h: {e}"),
    }
}
