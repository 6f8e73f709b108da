//! The signals that end a command: Ctrl-C, a request to terminate, the terminal going
//! away. Unix: SIGINT, SIGTERM, SIGHUP. Windows: Ctrl-C; Ctrl-Break, closing the console,
//! logging off and shutting down as requests to terminate.
//!
//! ```no_run
//! # async fn f() -> std::io::Result<()> {
//! let mut signals = oxmcp::os::signals::Signals::register()?;
//! let signal = signals.recv().await;
//! std::process::exit(signal.exit_code().into());
//! # }
//! ```

use std::io;

/// A signal that asks a command to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Ctrl-C (SIGINT).
    Interrupt,
    /// A request to terminate (SIGTERM; Windows: Ctrl-Break, console close, log-off, shutdown).
    Terminate,
    /// The terminal went away (SIGHUP; never on Windows).
    Hangup,
}

impl Signal {
    /// The exit code of a command the signal ended, as shells report it (128 + the signal).
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt => 130,
            Signal::Terminate => 143,
            Signal::Hangup => 129,
        }
    }
}

/// The signals, listened to from [`register`](Signals::register) on: one arriving before
/// [`recv`](Signals::recv) is not lost, and does not end the process by default.
pub struct Signals(imp::Listeners);

impl Signals {
    /// Starts listening. Needs a tokio runtime with signals enabled.
    pub fn register() -> io::Result<Signals> {
        imp::Listeners::register().map(Signals)
    }

    /// The next signal.
    pub async fn recv(&mut self) -> Signal {
        self.0.recv().await
    }
}

#[cfg(unix)]
mod imp {
    use super::{io, Signal};
    use tokio::signal::unix::{signal, SignalKind};

    pub(super) struct Listeners {
        int: tokio::signal::unix::Signal,
        term: tokio::signal::unix::Signal,
        hup: tokio::signal::unix::Signal,
    }

    impl Listeners {
        pub(super) fn register() -> io::Result<Listeners> {
            Ok(Listeners {
                int: signal(SignalKind::interrupt())?,
                term: signal(SignalKind::terminate())?,
                hup: signal(SignalKind::hangup())?,
            })
        }

        pub(super) async fn recv(&mut self) -> Signal {
            tokio::select! {
                _ = self.int.recv() => Signal::Interrupt,
                _ = self.term.recv() => Signal::Terminate,
                _ = self.hup.recv() => Signal::Hangup,
            }
        }
    }
}

#[cfg(windows)]
mod imp {
    use super::{io, Signal};
    use tokio::signal::windows;

    pub(super) struct Listeners {
        c: windows::CtrlC,
        brk: windows::CtrlBreak,
        close: windows::CtrlClose,
        logoff: windows::CtrlLogoff,
        shutdown: windows::CtrlShutdown,
    }

    impl Listeners {
        pub(super) fn register() -> io::Result<Listeners> {
            Ok(Listeners {
                c: windows::ctrl_c()?,
                brk: windows::ctrl_break()?,
                close: windows::ctrl_close()?,
                logoff: windows::ctrl_logoff()?,
                shutdown: windows::ctrl_shutdown()?,
            })
        }

        pub(super) async fn recv(&mut self) -> Signal {
            tokio::select! {
                _ = self.c.recv() => Signal::Interrupt,
                _ = self.brk.recv() => Signal::Terminate,
                _ = self.close.recv() => Signal::Terminate,
                _ = self.logoff.recv() => Signal::Terminate,
                _ = self.shutdown.recv() => Signal::Terminate,
            }
        }
    }
}
