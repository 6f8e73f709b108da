//! Where the tests find the MCP specification's files (schemas, examples): `$OXMCP_SPEC_DIR`,
//! else `<workspace>/../shared/spec`.

use std::path::PathBuf;

pub const SPEC_DIR_VAR: &str = "OXMCP_SPEC_DIR";

pub fn spec_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(SPEC_DIR_VAR).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() { Ok(dir) } else { Err(format!("{SPEC_DIR_VAR}={} is not a folder", dir.display())) };
    }
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let default = workspace.join("..").join("shared").join("spec");
    if default.is_dir() {
        Ok(default)
    } else {
        Err(format!("no spec folder at {} and {SPEC_DIR_VAR} is not set", default.display()))
    }
}

/// Whether this is a CI run (`CI` set to anything but empty, `0` or `false`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}
