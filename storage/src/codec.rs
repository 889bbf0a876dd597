//! Records on disk: JSON in a versioned envelope, `{"v":2,"record":{...}}`.
//!
//! The reader looks at `v` first and decodes the record as that version
//! laid it out, upgrading older layouts to the current one; a version it
//! does not know (written by a newer Kibitz) is refused with
//! [`StoreError::UnknownVersion`], and bytes that are not such an envelope
//! with [`StoreError::Corrupt`]. Either error concerns only that record.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{Result, StoreError};

/// A kind of stored record.
pub(crate) trait Record: Serialize + DeserializeOwned {
    /// The version written today.
    const VERSION: u32;

    /// Decodes an envelope of an older `version`; `None` if there never was such a version.
    fn upgrade(version: u32, bytes: &[u8]) -> Option<serde_json::Result<Self>> {
        let _ = (version, bytes);
        None
    }
}

#[derive(Serialize)]
struct EnvelopeOut<'a, T> {
    v: u32,
    record: &'a T,
}

/// An envelope of any version, decoded as layout `T`.
#[derive(Deserialize)]
pub(crate) struct Envelope<T> {
    pub(crate) record: T,
}

#[derive(Deserialize)]
struct Head {
    v: u32,
}

/// Encodes `record` in the current version's envelope; `what` names it for errors.
pub(crate) fn encode<T: Record>(what: impl FnOnce() -> String, record: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(&EnvelopeOut { v: T::VERSION, record })
        .map_err(|e| StoreError::Encode { record: what(), reason: e.to_string() })
}

/// Decodes a record of any known version; `what` names it for errors.
pub(crate) fn decode<T: Record>(what: impl FnOnce() -> String, bytes: &[u8]) -> Result<T> {
    let corrupt = |what: String, e: serde_json::Error| StoreError::Corrupt { record: what, reason: e.to_string() };
    let head: Head = match serde_json::from_slice(bytes) {
        Ok(head) => head,
        Err(e) => return Err(corrupt(what(), e)),
    };
    let decoded = if head.v == T::VERSION {
        serde_json::from_slice::<Envelope<T>>(bytes).map(|e| e.record)
    } else {
        match T::upgrade(head.v, bytes) {
            Some(decoded) => decoded,
            None if head.v > T::VERSION => {
                return Err(StoreError::UnknownVersion { record: what(), version: head.v, supported: T::VERSION });
            }
            None => {
                return Err(StoreError::Corrupt { record: what(), reason: format!("no record version {}", head.v) });
            }
        }
    };
    decoded.map_err(|e| corrupt(what(), e))
}
