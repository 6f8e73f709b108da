//! C ABI of the oxmcp engine (work in progress).
