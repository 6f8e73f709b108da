//! The OS edge: everything that differs between Linux, macOS and Windows, one module per
//! concern, each a small interface with its platforms' implementations behind it. The rest
//! of the engine names no platform.
//!
//! - `child`: a child server's process group, tied to this process so that it never
//!   outlives it (a supervisor and a lifeline pipe on Unix, a Job Object on Windows);
//! - `files`: files only their owner may read (the credential store);
//! - `pipe`: this process's stdio as non-blocking pipes, and the raw reads a host's event
//!   loop makes (Unix; Windows reads stdio on tokio's blocking pool);
//! - `signals`: Ctrl-C and the other signals that end a command;
//! - `sigpipe`: a write to a closed pipe or socket fails instead of ending the process;
//! - `wake`: a descriptor another thread makes readable, for a host's event loop to watch
//!   (an eventfd on Linux, a socket pair elsewhere on Unix; Windows has none).
//!
//! File locks (the credential store) need no module: the `fs4` crate locks on every
//! platform.

pub(crate) mod child;
pub(crate) mod files;
pub mod pipe;
pub mod signals;
pub(crate) mod sigpipe;
pub mod wake;
