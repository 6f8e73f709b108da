//! A child server's process group, tied to this process: [`attach`] prepares the command
//! before it spawns, [`Armed::tie`] ties the started child, and the [`Tie`] stops the
//! group when asked. Dropping the tie, or this process dying however it dies (SIGKILL
//! included), ends the group, the server's own children with it: no child server outlives
//! its client.
//!
//! - Unix (`unix.rs`): the group is a process group led by a supervisor that watches a
//!   lifeline pipe only this process writes;
//! - Windows (`windows.rs`): the group is a Job Object that kills its processes when its
//!   last handle (this process's) closes.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

pub(crate) use imp::{attach, Tie};

/// How to stop a child's group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Asks it to end (SIGTERM; a Ctrl-Break event on Windows).
    Ask,
    /// Ends it now (SIGKILL; terminating the Job Object on Windows).
    Force,
}
