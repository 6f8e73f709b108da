//! No code: the crate exists for its dependency list (Cargo.toml).
