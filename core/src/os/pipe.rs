//! Pipes: this process's stdin and stdout as non-blocking pipes the reactor drives, and the
//! raw reads of a pipe that a host's event loop watches ([`HostLoop`]).
//!
//! On Unix both work on descriptors. On Windows an anonymous pipe cannot be read without
//! blocking, so there is no pipe here: stdio is read and written on tokio's blocking pool,
//! and a host's loop never watches a pipe (a child's stdout is read by the reactor).
//!
//! [`HostLoop`]: crate::transport::HostLoop

use std::io;

pub use imp::{c_descriptor, OwnedPipe, RawPipe, Receiver, Sender};
pub(crate) use imp::{loop_pipe, raw, read, receiver, sender, set_nonblocking, stdio_pipe};

/// Which of this process's standard streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Std {
    In,
    Out,
}

#[cfg(unix)]
mod imp {
    use super::{io, Std};
    use std::os::fd::{AsRawFd, FromRawFd};

    /// A pipe end this process owns.
    pub type OwnedPipe = std::os::fd::OwnedFd;
    /// A pipe end as a host's loop names it.
    pub type RawPipe = std::os::fd::RawFd;
    /// A pipe's read end, driven by the reactor.
    pub type Receiver = tokio::net::unix::pipe::Receiver;
    /// A pipe's write end, driven by the reactor.
    pub type Sender = tokio::net::unix::pipe::Sender;

    /// A duplicate of this process's stdin or stdout when it is a pipe (a terminal or a
    /// file is read by tokio's blocking stdio).
    pub(crate) fn stdio_pipe(which: Std) -> Option<OwnedPipe> {
        let fd = if which == Std::In { 0 } else { 1 };
        // SAFETY: fstat fills a zeroed stat we own.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let pipe = unsafe { libc::fstat(fd, &mut st) == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFIFO };
        if !pipe {
            return None;
        }
        // SAFETY: dup(2) returns a new descriptor we alone own, or -1.
        let new = unsafe { libc::dup(fd) };
        // SAFETY: `new` is a fresh, valid descriptor when non-negative.
        (new >= 0).then(|| unsafe { OwnedPipe::from_raw_fd(new) })
    }

    /// How a host's loop names `pipe`.
    pub(crate) fn raw(pipe: &OwnedPipe) -> RawPipe {
        pipe.as_raw_fd()
    }

    /// `pipe` as a C library's `int` descriptor (libuv's `uv_poll_init`).
    pub fn c_descriptor(pipe: RawPipe) -> std::ffi::c_int {
        pipe
    }

    /// The reactor's read end of `pipe`.
    pub(crate) fn receiver(pipe: OwnedPipe) -> io::Result<Receiver> {
        Receiver::from_owned_fd(pipe)
    }

    /// The reactor's write end of `pipe`.
    pub(crate) fn sender(pipe: OwnedPipe) -> io::Result<Sender> {
        Sender::from_owned_fd(pipe)
    }

    /// Makes `pipe` non-blocking, for a host's loop to read.
    pub(crate) fn set_nonblocking(pipe: &OwnedPipe) -> io::Result<()> {
        let raw = pipe.as_raw_fd();
        // SAFETY: fcntl on a descriptor we own; no pointers.
        let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        // SAFETY: as above.
        if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// One non-blocking read: the bytes read (0 at end of input), or the error
    /// (`WouldBlock` when the pipe is empty).
    pub(crate) fn read(pipe: RawPipe, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: reads at most `buf.len()` bytes into memory we borrow mutably.
        let n = unsafe { libc::read(pipe, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(n as usize)
    }

    /// A child's stdout as a pipe a host's loop can watch.
    pub(crate) fn loop_pipe(stdout: tokio::process::ChildStdout) -> Result<io::Result<OwnedPipe>, tokio::process::ChildStdout> {
        Ok(stdout.into_owned_fd())
    }
}

#[cfg(windows)]
mod imp {
    use super::{io, Std};
    use std::pin::Pin;
    use std::task::{Context, Poll};

    /// A pipe end this process owns.
    pub type OwnedPipe = std::os::windows::io::OwnedHandle;
    /// A pipe end as a host's loop would name it (never watched on Windows): the handle's
    /// value, which may cross threads.
    pub type RawPipe = isize;

    /// No pipe is driven by the reactor on Windows: a value of this type cannot exist.
    #[derive(Debug)]
    pub enum Receiver {}
    /// No pipe is driven by the reactor on Windows: a value of this type cannot exist.
    #[derive(Debug)]
    pub enum Sender {}

    impl tokio::io::AsyncRead for Receiver {
        fn poll_read(self: Pin<&mut Self>, _: &mut Context<'_>, _: &mut tokio::io::ReadBuf<'_>) -> Poll<io::Result<()>> {
            match *self {}
        }
    }

    impl tokio::io::AsyncWrite for Sender {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
            match *self {}
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            match *self {}
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            match *self {}
        }
    }

    pub(crate) fn stdio_pipe(_: Std) -> Option<OwnedPipe> {
        None
    }

    pub(crate) fn raw(pipe: &OwnedPipe) -> RawPipe {
        std::os::windows::io::AsRawHandle::as_raw_handle(pipe) as isize
    }

    /// No C descriptor names a pipe handle: -1, which a C library refuses. Never asked for,
    /// as no host's loop watches a pipe on Windows.
    pub fn c_descriptor(_: RawPipe) -> std::ffi::c_int {
        -1
    }

    pub(crate) fn receiver(_: OwnedPipe) -> io::Result<Receiver> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "no pipe is driven by the reactor on Windows"))
    }

    pub(crate) fn sender(_: OwnedPipe) -> io::Result<Sender> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "no pipe is driven by the reactor on Windows"))
    }

    pub(crate) fn set_nonblocking(_: &OwnedPipe) -> io::Result<()> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "anonymous pipes do not read without blocking on Windows"))
    }

    pub(crate) fn read(_: RawPipe, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "anonymous pipes do not read without blocking on Windows"))
    }

    /// Windows: the child's stdout stays with the reactor.
    pub(crate) fn loop_pipe(stdout: tokio::process::ChildStdout) -> Result<io::Result<OwnedPipe>, tokio::process::ChildStdout> {
        Err(stdout)
    }
}
