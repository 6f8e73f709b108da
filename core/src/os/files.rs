//! Files only their owner may read (the credential store's tokens).
//!
//! On Unix the file is created with mode 0600. On Windows a new file takes the ACL of its
//! folder, and the store's folder is in the user's profile, which only the user (and the
//! administrators) may read: nothing to add.

use std::fs::OpenOptions;

/// Makes a file these options create readable and writable by its owner alone.
pub(crate) fn owner_only(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    options
}
