//! Node.js binding of the oxmcp engine (work in progress).
