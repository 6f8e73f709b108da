//! Ties a child server's life to this process (Windows): the server runs in a Job Object
//! that kills every process in it when its last handle closes. This process holds the only
//! handle, so when it ends, however it ends, the server and its children end too. The
//! server starts in a process group of its own, so a Ctrl-Break event reaches it alone.

use std::io;

use tokio::process::Command;
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::Console::{GenerateConsoleCtrlEvent, CTRL_BREAK_EVENT};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation, SetInformationJobObject, TerminateJobObject,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP;

use super::Stop;

/// A Job Object handle, closed on drop (which kills what is left in the job).
struct Job(HANDLE);

// SAFETY: a job handle may be used and closed from any thread.
unsafe impl Send for Job {}
// SAFETY: as above; the calls made through `&Job` are thread-safe.
unsafe impl Sync for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// The server's job: dropping it ends the server and its children.
pub(crate) struct Tie {
    job: Job,
    pid: u32,
}

impl Tie {
    /// Asks with Ctrl-Break (which a console server can handle), forces by terminating the
    /// job.
    pub(crate) fn stop(&self, how: Stop) {
        // SAFETY: plain calls on a process group id and a job handle we own.
        unsafe {
            match how {
                Stop::Ask => {
                    GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, self.pid);
                }
                Stop::Force => {
                    TerminateJobObject(self.job.0, 1);
                }
            }
        }
    }
}

/// Makes `cmd` start the server in a process group of its own, and makes the job it will
/// run in (a job that cannot be made fails the start, not a later kill).
pub(crate) fn attach(cmd: &mut Command) -> io::Result<Armed> {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP);
    // SAFETY: an anonymous job with default security; the handle is checked below.
    let job = Job(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) });
    if job.0.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a zeroed limit structure is valid; only the kill-on-close flag is set.
    let set = unsafe {
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if set == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Armed(job))
}

/// The job, until the child has started.
pub(crate) struct Armed(Job);

impl Armed {
    /// Puts the started child in the job.
    pub(crate) fn tie(self, child: &tokio::process::Child) -> io::Result<Tie> {
        let handle = child.raw_handle().ok_or_else(|| io::Error::other("the child has exited already"))?;
        let pid = child.id().ok_or_else(|| io::Error::other("the child has exited already"))?;
        // SAFETY: both handles are live: the job's is ours, the child's is held by `child`.
        if unsafe { AssignProcessToJobObject(self.0 .0, handle as HANDLE) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tie { job: self.0, pid })
    }
}
