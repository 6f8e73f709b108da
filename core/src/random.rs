//! Unguessable identifiers. A session id, a task id or a session's key is all that stands
//! between a stranger and what it names on a server without authorization, so each is 128
//! bits from a CSPRNG (`ThreadRng`: ChaCha, seeded by the OS).

use rand::RngCore;

/// 128 random bits as 32 lowercase hex digits.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
