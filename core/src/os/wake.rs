//! A descriptor another thread makes readable: how the engine's threads wake a host's event
//! loop (Python's `add_reader`) without entering the host's runtime.
//!
//! Linux has one descriptor for it (an eventfd); other Unix systems use a socket pair, one
//! byte a wake-up. Windows has none: asyncio's default loop there (the proactor) watches no
//! descriptor, so [`Wake::new`] says `Unsupported` and the host wakes its loop its own way
//! (`call_soon_threadsafe`).
//!
//! ```
//! # #[cfg(unix)] {
//! use oxmcp::os::wake::Wake;
//!
//! let wake = Wake::new().unwrap();
//! wake.wake();
//! wake.wake(); // bursts coalesce
//! assert!(wake.clear(), "was readable");
//! assert!(!wake.clear(), "drained");
//! # }
//! ```

use std::io;

use super::pipe::RawPipe;

/// A descriptor a host's loop watches for readability; [`Wake::wake`] makes it readable
/// from any thread, [`Wake::clear`] drains it on the loop's thread.
#[derive(Debug)]
pub struct Wake(imp::Wake);

impl Wake {
    /// A new, unreadable one. `Unsupported` on Windows.
    pub fn new() -> io::Result<Self> {
        imp::Wake::new().map(Wake)
    }

    /// The descriptor to watch.
    pub fn fd(&self) -> RawPipe {
        self.0.fd()
    }

    /// Makes the descriptor readable (it stays so until cleared). Never blocks.
    pub fn wake(&self) {
        self.0.wake()
    }

    /// Makes it unreadable again; whether it was readable.
    pub fn clear(&self) -> bool {
        self.0.clear()
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use super::{io, RawPipe};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    #[derive(Debug)]
    pub struct Wake(OwnedFd);

    impl Wake {
        pub fn new() -> io::Result<Self> {
            // SAFETY: eventfd has no pointer arguments; a valid descriptor is owned from here on.
            let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `fd` was just created and is owned by nothing else.
            Ok(Wake(unsafe { OwnedFd::from_raw_fd(fd) }))
        }

        pub fn fd(&self) -> RawPipe {
            self.0.as_raw_fd()
        }

        pub fn wake(&self) {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes from a live u64 to our own eventfd. It cannot fail short
            // of the counter overflowing, which a drained eventfd never reaches.
            unsafe { libc::write(self.0.as_raw_fd(), (&one as *const u64).cast(), 8) };
        }

        pub fn clear(&self) -> bool {
            let mut counter: u64 = 0;
            // SAFETY: reads at most 8 bytes into a live u64 (EAGAIN when already clear).
            unsafe { libc::read(self.0.as_raw_fd(), (&mut counter as *mut u64).cast(), 8) == 8 }
        }
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
mod imp {
    use super::{io, RawPipe};
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;

    /// The loop watches the first end; a wake-up is a byte written to the second.
    #[derive(Debug)]
    pub struct Wake(UnixStream, UnixStream);

    impl Wake {
        pub fn new() -> io::Result<Self> {
            let (read, write) = UnixStream::pair()?;
            read.set_nonblocking(true)?;
            write.set_nonblocking(true)?;
            Ok(Wake(read, write))
        }

        pub fn fd(&self) -> RawPipe {
            self.0.as_raw_fd()
        }

        pub fn wake(&self) {
            // A full buffer (WouldBlock) is already readable: nothing lost.
            let _ = (&self.1).write(&[1]);
        }

        pub fn clear(&self) -> bool {
            let mut buf = [0u8; 64];
            let mut was = false;
            while let Ok(n) = (&self.0).read(&mut buf) {
                if n == 0 {
                    break;
                }
                was = true;
            }
            was
        }
    }
}

#[cfg(windows)]
mod imp {
    use super::{io, RawPipe};

    /// Cannot exist on Windows.
    #[derive(Debug)]
    pub enum Wake {}

    impl Wake {
        pub fn new() -> io::Result<Self> {
            Err(io::Error::new(io::ErrorKind::Unsupported, "no descriptor wakes an event loop on Windows"))
        }

        pub fn fd(&self) -> RawPipe {
            match *self {}
        }

        pub fn wake(&self) {
            match *self {}
        }

        pub fn clear(&self) -> bool {
            match *self {}
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::Wake;
    use std::sync::Arc;

    /// Readable exactly while woken and not cleared, whichever thread wakes it.
    #[test]
    fn a_wake_from_another_thread_makes_the_descriptor_readable_until_cleared() {
        let wake = Arc::new(Wake::new().unwrap());
        let readable = |w: &Wake| {
            let mut p = libc::pollfd { fd: w.fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: poll(2) on one pollfd we own, no wait.
            unsafe { libc::poll(&mut p, 1, 0) == 1 }
        };
        assert!(!readable(&wake));
        let other = wake.clone();
        std::thread::spawn(move || (0..1000).for_each(|_| other.wake())).join().unwrap();
        assert!(readable(&wake));
        assert!(wake.clear());
        assert!(!readable(&wake));
        assert!(!wake.clear());
    }
}
