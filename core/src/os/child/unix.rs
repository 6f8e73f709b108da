//! Ties a child server's life to this process (Unix: Linux and macOS).
//!
//! Between fork and exec the forked process forks once more: the inner process goes on to
//! exec the server, the outer one stays behind as its supervisor, in the same process
//! group. The supervisor watches two things:
//! - the server: when it exits, the supervisor exits the same way (same code, or the same
//!   signal), so this process sees the server's exit status as if it were its child;
//! - a pipe whose only writer is this process, the lifeline: when this process dies, even
//!   by SIGKILL, the kernel closes it, the supervisor reads end-of-file and ends the group
//!   (SIGTERM, then SIGKILL two seconds later), the server's own children included.
//!
//! On Linux the server gets SIGKILL if its supervisor dies (a parent-death signal), so
//! killing the pid this process knows ends the server as before; macOS has no such signal,
//! and the group's signals reach both. The supervisor learns of the server's exit from a
//! pidfd on Linux 5.3 and later, else by looking every 100 ms. The supervisor ignores SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to the group (they are
//! meant for the server); the group's SIGKILL ends it with everything else. It runs in a
//! forked copy of a multi-threaded process, so it makes only async-signal-safe system
//! calls: no allocation, no locks.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use tokio::process::Command;

use super::Stop;

/// The server's group, and this process's end of the lifeline: dropping it (or dying)
/// ends the group.
pub(crate) struct Tie {
    group: libc::pid_t,
    _write: OwnedFd,
}

impl Tie {
    /// Signals the group: SIGTERM to ask, SIGKILL to force.
    pub(crate) fn stop(&self, how: Stop) {
        let signal = match how {
            Stop::Ask => libc::SIGTERM,
            Stop::Force => libc::SIGKILL,
        };
        // SAFETY: kill(2) with a negative pid signals the process group we created.
        unsafe {
            libc::kill(-self.group, signal);
        }
    }
}

/// Makes `cmd` start the server in a group of its own, under a supervisor. Call
/// [`Armed::tie`] once `cmd` has spawned.
pub(crate) fn attach(cmd: &mut Command) -> io::Result<Armed> {
    let (read, write) = lifeline()?;
    let lifeline = read.as_raw_fd();
    cmd.process_group(0);
    // SAFETY: `split` makes only async-signal-safe calls, as a pre_exec closure must.
    unsafe {
        cmd.pre_exec(move || split(lifeline));
    }
    Ok(Armed { _read: read, write })
}

/// A pipe whose ends close on exec, so no program this process starts holds the lifeline
/// (supervisors close every descriptor they do not need).
fn lifeline() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills both descriptors.
    #[cfg(target_os = "linux")]
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0;
    // SAFETY: pipe fills both descriptors, marked close-on-exec right after. macOS has no
    // pipe2: a program another thread of this process execs in between inherits the write
    // end (the engine's own children do not: their supervisors close it), and while it
    // lives the lifeline cannot close.
    #[cfg(not(target_os = "linux"))]
    let made = unsafe {
        libc::pipe(fds.as_mut_ptr()) == 0
            && libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC) == 0
            && libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC) == 0
    };
    if !made {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptors were just created and are owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Both ends of the lifeline until the child has started.
pub(crate) struct Armed {
    _read: OwnedFd,
    write: OwnedFd,
}

impl Armed {
    /// Closes this process's copy of the read end (only the supervisor reads it).
    pub(crate) fn tie(self, child: &tokio::process::Child) -> io::Result<Tie> {
        let group = child.id().ok_or_else(|| io::Error::other("the child has exited already"))? as libc::pid_t;
        Ok(Tie { group, _write: self.write })
    }
}

/// Runs in the forked process before exec: forks the server off, and stays behind as its
/// supervisor (never returning), or returns `Ok` in the server so that it execs.
fn split(lifeline: libc::c_int) -> io::Result<()> {
    // SAFETY: plain system calls on this process; see the module comment.
    unsafe {
        // Its own group, as `process_group(0)` asks, whatever order the steps run in.
        libc::setpgid(0, 0);
        let supervisor = libc::getpid();
        match libc::fork() {
            -1 => Err(io::Error::last_os_error()),
            0 => {
                // The server dies with its supervisor: killing the pid this process knows
                // (`ChildTransport::pid`) still ends the server.
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != supervisor {
                    libc::_exit(1); // it is gone already
                }
                Ok(())
            }
            server => supervise(server, lifeline),
        }
    }
}

unsafe fn supervise(server: libc::pid_t, lifeline: libc::c_int) -> ! {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
        libc::signal(signal, libc::SIG_IGN);
    }
    // Hold nothing that the parent or the server waits on to close: stdio goes to
    // /dev/null, and every descriptor but the lifeline (moved to 3) is closed, among them
    // std's exec-error pipe, whose end the parent waits for.
    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
    if null >= 0 {
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
    }
    const LIFELINE: libc::c_int = 3;
    if lifeline != LIFELINE {
        libc::dup2(lifeline, LIFELINE);
    }
    close_from(LIFELINE + 1);
    // Readable when the server exits (Linux 5.3 and later); else poll with a timeout.
    #[cfg(target_os = "linux")]
    let pidfd = libc::syscall(libc::SYS_pidfd_open, server, 0) as libc::c_int;
    #[cfg(not(target_os = "linux"))]
    let pidfd: libc::c_int = -1;
    loop {
        let mut fds = [
            libc::pollfd { fd: LIFELINE, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: pidfd, events: libc::POLLIN, revents: 0 },
        ];
        let (count, timeout) = if pidfd >= 0 { (2, -1) } else { (1, 100) };
        libc::poll(fds.as_mut_ptr(), count, timeout);
        let mut status = 0;
        if libc::waitpid(server, &mut status, libc::WNOHANG) == server {
            exit_as(status);
        }
        if fds[0].revents != 0 {
            let mut byte = 0u8;
            let read = libc::read(LIFELINE, (&mut byte as *mut u8).cast(), 1);
            // Nobody ever writes: anything but "try again" means the parent is gone.
            let interrupted = || io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
            if read == 0 || (read < 0 && !interrupted()) {
                end_group(server);
            }
        }
    }
}

/// The parent died: SIGTERM to the group, two seconds for the server to go, then SIGKILL
/// to whatever is left, this supervisor included.
unsafe fn end_group(server: libc::pid_t) -> ! {
    libc::kill(0, libc::SIGTERM);
    let step = libc::timespec { tv_sec: 0, tv_nsec: 50_000_000 };
    for _ in 0..40 {
        let mut status = 0;
        if libc::waitpid(server, &mut status, libc::WNOHANG) == server {
            break;
        }
        libc::nanosleep(&step, std::ptr::null_mut());
    }
    libc::kill(0, libc::SIGKILL);
    libc::_exit(1)
}

/// Exits as the server did: with its code, or killed by its signal (without a core dump).
unsafe fn exit_as(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(libc::WEXITSTATUS(status))
}

unsafe fn close_from(first: libc::c_int) {
    #[cfg(target_os = "linux")]
    if libc::syscall(libc::SYS_close_range, first as libc::c_uint, libc::c_uint::MAX, 0) == 0 {
        return;
    }
    // Kernels before 5.9: one by one, up to the descriptor limit.
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    let top =
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 { limit.rlim_cur.min(65_536) as libc::c_int } else { 1024 };
    for fd in first..top {
        libc::close(fd);
    }
}
