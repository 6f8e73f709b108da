//! JNI library of the oxmcp engine (work in progress).
