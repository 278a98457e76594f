//! [`PayloadError`]: everything that can go wrong writing or reading a `.dh-vox.bin`.

/// An error writing or reading a voxel payload.
///
/// Reader errors name the shard file (`<payload>` or the name given to
/// [`super::PayloadReader::open_named`], `<payload>.<n>` for shard n), the absolute byte
/// offset in it and what was expected there. Writer errors name the part of the model at
/// fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PayloadError {
    /// A section ends before a field it must contain.
    #[error("{file}: byte {offset}: {section} ends early: expected {expected} ({need} bytes), but only {have} remain")]
    Truncated {
        /// The shard file.
        file: String,
        /// Absolute byte offset in the shard at which the field should start.
        offset: u64,
        /// The section being read (header, palette, region index, chunk table, ...).
        section: &'static str,
        /// The field that was expected.
        expected: String,
        /// Bytes the field needs.
        need: u64,
        /// Bytes that remain in the section.
        have: u64,
    },

    /// A field holds a value the format forbids.
    #[error("{file}: byte {offset}: {what} is {found}; expected {expected}")]
    Malformed {
        /// The shard file.
        file: String,
        /// Absolute byte offset of the field in the shard.
        offset: u64,
        /// The section and field.
        what: String,
        /// The value found.
        found: String,
        /// What the format requires.
        expected: String,
    },

    /// The shards handed to the reader do not match the ones the region index names.
    #[error("{file}: {problem}")]
    Shards {
        /// The payload (shard 0).
        file: String,
        /// What does not match.
        problem: String,
    },

    /// A caller asked for a region or chunk the payload does not have.
    #[error("{file}: no {what} {index}: the payload has {count}")]
    OutOfRange {
        /// The payload (shard 0).
        file: String,
        /// What was asked for ("region", "chunk of region 3").
        what: String,
        /// The index asked for.
        index: usize,
        /// How many there are.
        count: usize,
    },

    /// The model handed to the writer breaks a rule of the format.
    #[error("cannot write the payload: {place} {problem}")]
    Invalid {
        /// The part of the model (`palette entry 3 property 1 key`, `grid 2 'roof'`).
        place: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl PayloadError {
    /// Marks an error found in an LZ4-decoded chunk body, whose offsets count from the
    /// body's first byte, with the record's own offset in the shard.
    pub(crate) fn in_body(self, record_at: usize) -> Self {
        let mark = |file: String| {
            format!("{file} (LZ4-decoded body of the chunk record at byte {record_at})")
        };
        match self {
            PayloadError::Truncated {
                file,
                offset,
                section,
                expected,
                need,
                have,
            } => PayloadError::Truncated {
                file: mark(file),
                offset,
                section,
                expected,
                need,
                have,
            },
            PayloadError::Malformed {
                file,
                offset,
                what,
                found,
                expected,
            } => PayloadError::Malformed {
                file: mark(file),
                offset,
                what,
                found,
                expected,
            },
            other => other,
        }
    }
}
