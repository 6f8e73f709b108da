//! SIGPIPE on the threads that write. On Unix a write to a pipe or socket whose reader is
//! gone raises SIGPIPE, whose default action ends the process, and a C program keeps that
//! default. With the signal blocked on the writing thread, the write fails with EPIPE
//! instead, which the engine handles (the child's exit is reported, the connection ends).
//! Windows has no such signal: the write fails with an error already.

/// Blocks SIGPIPE on the calling thread, whatever the process does with the signal
/// elsewhere (nothing to do on Windows). Call it on every thread of a runtime that runs
/// the engine in a host that may keep SIGPIPE's default action (the C ABI's runtime
/// does). The signal a failed write raises then stays pending on that thread, harmlessly;
/// child processes start with it cleared.
///
/// ```
/// let runtime = tokio::runtime::Builder::new_multi_thread()
///     .on_thread_start(oxmcp::transport::block_sigpipe_on_this_thread)
///     .enable_all()
///     .build()
///     .unwrap();
/// # drop(runtime);
/// ```
pub fn block_sigpipe_on_this_thread() {
    #[cfg(unix)]
    // SAFETY: changes only this thread's signal mask, with a set built right here.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
