//! [`PalletError`]: everything that can go wrong writing or reading a `.pallet`.

use std::io;

/// An error writing or reading a `.pallet`.
///
/// Reader errors name the file (`<in-memory pallet>` / `<embedded pallet>` when there is
/// no file), the place (an absolute byte offset into the file and, for entries, the
/// entry's path) and what was expected there. Writer errors name the entry path or the
/// manifest field at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PalletError {
    /// The file could not be opened, mapped, read or written.
    #[error("{file}: cannot {action}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What was being attempted ("open", "map", "write", ...).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },

    /// A section of the file ends before a field it must contain.
    #[error("{file}: byte {offset}: {section} ends early: expected {expected} ({need} bytes), but only {have} remain")]
    Truncated {
        /// The file.
        file: String,
        /// Absolute byte offset at which the field should start.
        offset: u64,
        /// The section being read (header, manifest, entry table, ...).
        section: &'static str,
        /// The field that was expected.
        expected: String,
        /// Bytes the field needs.
        need: u64,
        /// Bytes that remain in the section.
        have: u64,
    },

    /// A field of the header, manifest or entry table holds a value the format forbids.
    #[error("{file}: byte {offset}: {what} is {found}; expected {expected}")]
    Malformed {
        /// The file.
        file: String,
        /// Absolute byte offset of the field.
        offset: u64,
        /// The field.
        what: String,
        /// The value found.
        found: String,
        /// What the format requires.
        expected: String,
    },

    /// An entry's table record is inconsistent (bad path, range, codec, lengths, order).
    #[error("{file}: entry `{path}` (table record at byte {offset}): {what} is {found}; expected {expected}")]
    BadEntry {
        /// The file.
        file: String,
        /// The entry's path (lossily decoded if it is not UTF-8).
        path: String,
        /// Absolute byte offset of the entry's table record.
        offset: u64,
        /// The field.
        what: &'static str,
        /// The value found.
        found: String,
        /// What the format requires.
        expected: String,
    },

    /// An entry's bytes do not match the CRC32 its table record claims.
    #[error("{file}: entry `{path}` (data at byte {offset}): CRC32 is {found:08x}; expected {expected:08x} from the entry table")]
    ChecksumMismatch {
        /// The file.
        file: String,
        /// The entry's path.
        path: String,
        /// Absolute byte offset of the entry's data.
        offset: u64,
        /// The CRC32 recorded in the table.
        expected: u32,
        /// The CRC32 of the bytes read.
        found: u32,
    },

    /// The manifest's `buildInfo.contentChecksum` does not match the manifest and table.
    #[error("{file}: manifest buildInfo.contentChecksum is {found}; expected {expected} (recomputed from the manifest and entry table)")]
    ContentChecksumMismatch {
        /// The file.
        file: String,
        /// The value recomputed from the manifest and the table.
        expected: String,
        /// The value stored in the manifest.
        found: String,
    },

    /// An LZ4 entry does not decompress to its recorded raw length.
    #[error("{file}: entry `{path}` (data at byte {offset}): LZ4 data does not decode: {detail}; expected {raw_len} raw bytes")]
    Decompress {
        /// The file.
        file: String,
        /// The entry's path.
        path: String,
        /// Absolute byte offset of the entry's data.
        offset: u64,
        /// The raw length recorded in the table.
        raw_len: u64,
        /// What the decoder said.
        detail: String,
    },

    /// Memory for a decompressed entry could not be reserved.
    #[error("{file}: entry `{path}`: cannot reserve {raw_len} bytes to decompress it")]
    OutOfMemory {
        /// The file.
        file: String,
        /// The entry's path.
        path: String,
        /// The raw length recorded in the table.
        raw_len: u64,
    },

    /// No entry has this path.
    #[error("{file}: no entry `{path}`")]
    NotFound {
        /// The file.
        file: String,
        /// The path asked for.
        path: String,
    },

    /// A range read asked for an LZ4 entry, which has no plain byte range.
    #[error("{file}: entry `{path}` is LZ4-compressed; a range read needs a stored entry")]
    NotStored {
        /// The file.
        file: String,
        /// The entry's path.
        path: String,
    },

    /// The writer was given a path the container does not accept.
    #[error("invalid entry path `{path}`: {reason}; expected a relative `/`-separated path with no empty, `.` or `..` segments")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// The writer was given the same path twice.
    #[error("duplicate entry path `{path}`: every path in a pallet is unique")]
    DuplicatePath {
        /// The repeated path.
        path: String,
    },

    /// An entry is over the 1 GiB entry cap.
    #[error("entry `{path}` is {len} bytes ({what}), over the {cap}-byte (1 GiB) entry cap; voxel payloads shard at 256 MiB (`<payload>.<n>`)")]
    EntryTooLarge {
        /// The entry's path.
        path: String,
        /// Its length.
        len: u64,
        /// Which length (raw or LZ4-compressed).
        what: &'static str,
        /// The cap.
        cap: u64,
    },

    /// The writer was given more entries than a pallet may hold.
    #[error(
        "entry `{path}` would be entry number {count}, over the cap of {cap} entries per pallet"
    )]
    TooManyEntries {
        /// The entry that went over.
        path: String,
        /// The count it would make.
        count: u64,
        /// The cap.
        cap: u64,
    },

    /// An entry that must be read by range was asked to be compressed.
    #[error("entry `{path}` must be stored (it is a voxel payload, read by range through a memory map); LZ4 was requested")]
    MustBeStored {
        /// The entry's path.
        path: String,
    },

    /// An entry's metadata is not writable.
    #[error("entry `{path}`: metadata field `{field}`: {reason}")]
    InvalidMeta {
        /// The entry's path.
        path: String,
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },

    /// The manifest handed to the writer is not writable.
    #[error("manifest field `{field}`: {reason}")]
    InvalidManifest {
        /// The field (`id`, `dependencies[2]`, ...).
        field: String,
        /// What is wrong with it, and what was expected.
        reason: String,
    },

    /// The pallet would be larger than this platform can address.
    #[error("the pallet would be {len} bytes, more than this platform can address")]
    TooLarge {
        /// The total length.
        len: u64,
    },
}

#[cfg(test)]
mod tests {
    #[test]
    fn error_stays_small() {
        // clippy's `result_large_err` threshold; keeps `Result<_, PalletError>` cheap.
        assert!(std::mem::size_of::<super::PalletError>() <= 128);
    }
}
