//! The Anvil region container, `r.<x>.<z>.mca`: 32 × 32 chunks, each a compressed NBT
//! stream in whole 4 KiB sectors.
//!
//! # Layout
//!
//! * Bytes 0–4095, the location table: 1024 big-endian u32s, one per chunk (index
//!   `x + 32 z` of its place in the region), each a 3-byte sector offset and a 1-byte
//!   sector count; 0 is a chunk the region does not hold.
//! * Bytes 4096–8191: 1024 big-endian u32 timestamps (seconds), same order.
//! * At sector `offset` (byte `offset × 4096`): a big-endian u32 length, counting the
//!   compression byte and the stream after it, then the compression byte and the stream.
//!   The length must fit in the chunk's sectors.
//! * The compression byte is 1 gzip, 2 zlib, 3 none, 4 LZ4 (1.20.5 on: lz4-java's
//!   `LZ4BlockOutputStream` format) or 127 custom (a modded codec named by a Java UTF
//!   string; refused, naming it). Bit 128 set means the chunk did not fit in 255 sectors:
//!   its stream is the whole of `c.<x>.<z>.mcc` beside the region (world chunk
//!   coordinates), compressed as the low seven bits say.
//!
//! # What is refused
//!
//! The whole region, when it cannot be read or is shorter than its two tables
//! ([`RegionError`]). One chunk, with the rest of the region still read
//! ([`ChunkError`], naming the file, the chunk and what was wrong): a location inside
//! the tables, a zero sector count, sectors past the end of the file, sectors that
//! overlap another chunk's (both are refused: which one the bytes belong to cannot be
//! told; ours), a length that runs past its sectors, an unknown or custom compression, a
//! missing `.mcc`, a stream that does not inflate, and one that inflates past the cap
//! ([`MAX_CHUNK_INFLATED`] by default): a zlib or LZ4 bomb stops at the cap.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::voxel::minecraft::nbt::{self, Compression, NbtError};

/// Bytes in a sector.
pub const SECTOR: usize = 4096;
/// Chunks along a region's edge.
pub const REGION_CHUNKS: i32 = 32;
/// Chunks a region holds.
pub const CHUNKS_PER_REGION: usize = 1024;
/// The most bytes a chunk's NBT may inflate to (ours: the game itself has no cap, but
/// its largest real chunks, full of block entities, are a few MiB).
pub const MAX_CHUNK_INFLATED: usize = 64 << 20;
/// The largest region file read: the two tables and 1024 chunks of 255 sectors, the most
/// a location can describe without an `.mcc`.
pub const MAX_REGION_FILE: u64 = (2 + 1024 * 255) as u64 * SECTOR as u64;
/// The largest `.mcc` read (ours).
pub const MAX_MCC_FILE: u64 = 256 << 20;

/// lz4-java's block magic.
const LZ4_MAGIC: &[u8; 8] = b"LZ4Block";
/// lz4-java's block header: magic, token, compressed length, original length, checksum.
const LZ4_HEADER: usize = 21;
/// lz4-java's default checksum seed (`LZ4BlockOutputStream.DEFAULT_SEED`).
const LZ4_SEED: u32 = 0x9747_b28c;

/// A region's coordinates, from its name `r.<x>.<z>.mca`.
pub fn parse_region_name(name: &str) -> Option<[i32; 2]> {
    let rest = name.strip_prefix("r.")?.strip_suffix(".mca")?;
    let (x, z) = rest.split_once('.')?;
    Some([x.parse().ok()?, z.parse().ok()?])
}

/// The region file name for region coordinates.
pub fn region_name(region: [i32; 2]) -> String {
    format!("r.{}.{}.mca", region[0], region[1])
}

/// The oversized-chunk file name for world chunk coordinates.
pub fn mcc_name(chunk: [i32; 2]) -> String {
    format!("c.{}.{}.mcc", chunk[0], chunk[1])
}

/// How a chunk's stream is compressed: the low seven bits of its compression byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkCompression {
    /// 1: gzip.
    Gzip,
    /// 2: zlib.
    Zlib,
    /// 3: stored.
    None,
    /// 4: lz4-java's block stream (1.20.5 and later).
    Lz4,
}

impl ChunkCompression {
    /// The compression byte's value.
    pub fn id(self) -> u8 {
        match self {
            ChunkCompression::Gzip => 1,
            ChunkCompression::Zlib => 2,
            ChunkCompression::None => 3,
            ChunkCompression::Lz4 => 4,
        }
    }

    /// How it is named in messages.
    pub fn name(self) -> &'static str {
        match self {
            ChunkCompression::Gzip => "gzip",
            ChunkCompression::Zlib => "zlib",
            ChunkCompression::None => "none",
            ChunkCompression::Lz4 => "LZ4",
        }
    }
}

/// The whole region could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegionError {
    /// The file could not be read.
    #[error("{path}: cannot read the region file: {source}")]
    Io {
        /// The region file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is shorter than its two tables.
    #[error("{path}: the sector table is truncated: the file is {len} bytes, but its location and timestamp tables take 8192")]
    TruncatedTable {
        /// The region file.
        path: String,
        /// Its length.
        len: u64,
    },
    /// The file is larger than any region file can be.
    #[error("{path}: the file is {len} bytes; a region file is at most {cap} (1024 chunks of 255 sectors and the tables)")]
    TooLarge {
        /// The region file.
        path: String,
        /// Its length.
        len: u64,
        /// The cap.
        cap: u64,
    },
}

/// What was wrong with one chunk of a region.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkProblem {
    /// The location points into the two tables.
    InTables {
        /// The sector offset.
        sector: u32,
    },
    /// The location names a sector offset but no sectors.
    NoSectors {
        /// The sector offset.
        sector: u32,
    },
    /// The sectors run past the end of the file.
    PastEnd {
        /// The first sector.
        sector: u32,
        /// The sector count.
        count: u8,
        /// The file's length in bytes.
        file_len: u64,
    },
    /// The sectors overlap another chunk's.
    Overlaps {
        /// The first sector.
        sector: u32,
        /// The sector count.
        count: u8,
        /// The other chunk, by its place in the region.
        other: [i32; 2],
        /// The other chunk's first sector and count.
        other_sectors: (u32, u8),
    },
    /// The chunk's length field is zero: allocated, but no stream.
    Empty,
    /// The length runs past the chunk's sectors.
    LengthPastSectors {
        /// The length field.
        length: u32,
        /// The bytes its sectors hold after the length field.
        room: u64,
    },
    /// An unknown compression byte.
    UnknownCompression {
        /// The byte.
        id: u8,
    },
    /// A custom (modded) compression, named by the stream.
    CustomCompression {
        /// The codec's name as the stream gives it, if it could be read.
        name: Option<String>,
    },
    /// The chunk lives in an `.mcc` that is not there.
    MissingMcc {
        /// The file looked for.
        path: String,
    },
    /// The `.mcc` could not be read or is too large.
    BadMcc {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// The stream does not inflate.
    Inflate {
        /// The compression.
        compression: ChunkCompression,
        /// What was wrong.
        message: String,
    },
    /// The chunk's NBT does not read as a chunk (a type mismatch, a palette index past
    /// the palette, ...): the message names the tag's path and what was expected.
    Content {
        /// What was wrong.
        message: String,
    },
    /// The stream inflates past the cap.
    TooLarge {
        /// The compression.
        compression: ChunkCompression,
        /// The cap in bytes.
        cap: usize,
    },
}

impl fmt::Display for ChunkProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChunkProblem::InTables { sector } => write!(
                f,
                "its location names sector {sector}, inside the location and timestamp tables (sectors 0 and 1)"
            ),
            ChunkProblem::NoSectors { sector } => write!(
                f,
                "its location names sector {sector} with a sector count of 0; expected at least 1"
            ),
            ChunkProblem::PastEnd {
                sector,
                count,
                file_len,
            } => write!(
                f,
                "its sectors {sector}..{} run past the end of the file ({file_len} bytes, {} whole sectors)",
                u64::from(*sector) + u64::from(*count),
                file_len / SECTOR as u64
            ),
            ChunkProblem::Overlaps {
                sector,
                count,
                other,
                other_sectors,
            } => write!(
                f,
                "its sectors {sector}..{} overlap those of chunk ({}, {}) ({}..{}) in the sector table; neither is read",
                u64::from(*sector) + u64::from(*count),
                other[0],
                other[1],
                other_sectors.0,
                u64::from(other_sectors.0) + u64::from(other_sectors.1)
            ),
            ChunkProblem::Empty => write!(
                f,
                "its length is 0: the chunk is allocated but its stream is missing"
            ),
            ChunkProblem::LengthPastSectors { length, room } => write!(
                f,
                "its length {length} runs past its sectors, which hold {room} bytes after the length"
            ),
            ChunkProblem::UnknownCompression { id } => write!(
                f,
                "compression type {id} is not one Java writes; expected 1 (gzip), 2 (zlib), 3 (none) or 4 (LZ4), +128 for an .mcc"
            ),
            ChunkProblem::CustomCompression { name } => match name {
                Some(n) => write!(
                    f,
                    "compression type 127 (custom) names '{n}', a modded codec this importer does not read; expected 1 (gzip), 2 (zlib), 3 (none) or 4 (LZ4)"
                ),
                None => write!(
                    f,
                    "compression type 127 (custom) with no readable codec name; expected 1 (gzip), 2 (zlib), 3 (none) or 4 (LZ4)"
                ),
            },
            ChunkProblem::MissingMcc { path } => write!(
                f,
                "the chunk is stored outside the region (compression flag 128), but {path} is missing"
            ),
            ChunkProblem::BadMcc { path, message } => write!(f, "{path}: {message}"),
            ChunkProblem::Inflate {
                compression,
                message,
            } => write!(f, "the {} stream does not inflate: {message}", compression.name()),
            ChunkProblem::Content { message } => f.write_str(message),
            ChunkProblem::TooLarge { compression, cap } => write!(
                f,
                "the {} stream inflates past {cap} bytes, the most a chunk may (a compression bomb?)",
                compression.name()
            ),
        }
    }
}

/// One chunk of a region could not be read: the file, the chunk (world chunk
/// coordinates and its place in the region) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: region ({}, {}) chunk ({}, {}) (at ({}, {}) in the region): {problem}", region[0], region[1], chunk[0], chunk[1], local[0], local[1])]
pub struct ChunkError {
    /// The region file.
    pub path: String,
    /// The region's coordinates.
    pub region: [i32; 2],
    /// The chunk's world chunk coordinates.
    pub chunk: [i32; 2],
    /// Its place in the region, 0..32 on each axis.
    pub local: [i32; 2],
    /// What was wrong.
    pub problem: ChunkProblem,
}

/// One slot of the location table that holds a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSlot {
    /// Its place in the region, 0..32 on each axis.
    pub local: [i32; 2],
    /// The first sector.
    pub sector: u32,
    /// The sector count.
    pub count: u8,
    /// The timestamp (seconds since the epoch).
    pub timestamp: u32,
}

impl ChunkSlot {
    /// The index in the location table, `x + 32 z`.
    pub fn index(&self) -> usize {
        (self.local[0] + REGION_CHUNKS * self.local[1]) as usize
    }
}

/// A region file, read whole: its location table checked, its chunks inflated on
/// request.
pub struct RegionFile {
    path: PathBuf,
    shown: String,
    coords: [i32; 2],
    bytes: Vec<u8>,
    slots: Vec<ChunkSlot>,
    /// A problem found in the table for a slot, by table index.
    bad: Vec<Option<ChunkProblem>>,
}

impl fmt::Debug for RegionFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegionFile")
            .field("path", &self.shown)
            .field("coords", &self.coords)
            .field("bytes", &self.bytes.len())
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl RegionFile {
    /// Reads the region file at `path`, whose name gives its coordinates (a file not
    /// named `r.<x>.<z>.mca` is region (0, 0)). Its `.mcc` files are looked for beside
    /// it.
    pub fn open(path: &Path) -> Result<RegionFile, RegionError> {
        let shown = path.display().to_string();
        let io = |source| RegionError::Io {
            path: shown.clone(),
            source,
        };
        let len = std::fs::metadata(path).map_err(io)?.len();
        if len > MAX_REGION_FILE {
            return Err(RegionError::TooLarge {
                path: shown,
                len,
                cap: MAX_REGION_FILE,
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let coords = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_region_name)
            .unwrap_or([0, 0]);
        RegionFile::from_bytes(path, coords, bytes)
    }

    /// A region from its bytes; `path` names it in messages and locates its `.mcc`
    /// files.
    pub fn from_bytes(
        path: &Path,
        coords: [i32; 2],
        bytes: Vec<u8>,
    ) -> Result<RegionFile, RegionError> {
        let shown = path.display().to_string();
        if bytes.len() < 2 * SECTOR {
            return Err(RegionError::TruncatedTable {
                path: shown,
                len: bytes.len() as u64,
            });
        }
        if bytes.len() as u64 > MAX_REGION_FILE {
            return Err(RegionError::TooLarge {
                path: shown,
                len: bytes.len() as u64,
                cap: MAX_REGION_FILE,
            });
        }
        let be = |at: usize| {
            u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let mut slots = Vec::new();
        let mut bad = vec![None; CHUNKS_PER_REGION];
        let file_len = bytes.len() as u64;
        // A file whose length is not whole sectors still holds what it holds: the game
        // pads it on its next write; a chunk that needs the missing tail fails on its own.
        for (i, bad_slot) in bad.iter_mut().enumerate() {
            let loc = be(i * 4);
            if loc == 0 {
                continue;
            }
            let slot = ChunkSlot {
                local: [(i % 32) as i32, (i / 32) as i32],
                sector: loc >> 8,
                count: (loc & 0xff) as u8,
                timestamp: be(SECTOR + i * 4),
            };
            let end = (u64::from(slot.sector) + u64::from(slot.count)) * SECTOR as u64;
            *bad_slot = if slot.sector < 2 {
                Some(ChunkProblem::InTables {
                    sector: slot.sector,
                })
            } else if slot.count == 0 {
                Some(ChunkProblem::NoSectors {
                    sector: slot.sector,
                })
            } else if end > file_len.div_ceil(SECTOR as u64) * SECTOR as u64 {
                Some(ChunkProblem::PastEnd {
                    sector: slot.sector,
                    count: slot.count,
                    file_len,
                })
            } else {
                None
            };
            slots.push(slot);
        }
        // Overlaps among the slots whose sectors are otherwise sound: sorted by first
        // sector, each is checked against the furthest-reaching one before it.
        let mut order: Vec<&ChunkSlot> =
            slots.iter().filter(|s| bad[s.index()].is_none()).collect();
        order.sort_by_key(|s| (s.sector, s.index()));
        let mut overlaps: Vec<(usize, ChunkProblem)> = Vec::new();
        let mut reach: Option<&ChunkSlot> = None;
        for s in order {
            if let Some(r) = reach {
                let r_end = u64::from(r.sector) + u64::from(r.count);
                if u64::from(s.sector) < r_end {
                    overlaps.push((
                        s.index(),
                        ChunkProblem::Overlaps {
                            sector: s.sector,
                            count: s.count,
                            other: r.local,
                            other_sectors: (r.sector, r.count),
                        },
                    ));
                    overlaps.push((
                        r.index(),
                        ChunkProblem::Overlaps {
                            sector: r.sector,
                            count: r.count,
                            other: s.local,
                            other_sectors: (s.sector, s.count),
                        },
                    ));
                }
                let s_end = u64::from(s.sector) + u64::from(s.count);
                if s_end > r_end {
                    reach = Some(s);
                }
            } else {
                reach = Some(s);
            }
        }
        for (i, p) in overlaps {
            // The first problem a slot gets is the one it reports.
            if bad[i].is_none() {
                bad[i] = Some(p);
            }
        }
        Ok(RegionFile {
            path: path.to_path_buf(),
            shown,
            coords,
            bytes,
            slots,
            bad,
        })
    }

    /// The region's coordinates.
    pub fn coords(&self) -> [i32; 2] {
        self.coords
    }

    /// The file, as messages name it.
    pub fn name(&self) -> &str {
        &self.shown
    }

    /// The slots of the location table that hold a chunk, in table order (X fastest).
    pub fn slots(&self) -> &[ChunkSlot] {
        &self.slots
    }

    /// The world chunk coordinates of a place in this region.
    pub fn world_chunk(&self, local: [i32; 2]) -> [i32; 2] {
        [
            self.coords[0] * REGION_CHUNKS + local[0],
            self.coords[1] * REGION_CHUNKS + local[1],
        ]
    }

    fn error(&self, local: [i32; 2], problem: ChunkProblem) -> ChunkError {
        ChunkError {
            path: self.shown.clone(),
            region: self.coords,
            chunk: self.world_chunk(local),
            local,
            problem,
        }
    }

    /// The chunk's NBT, inflated (borrowed from the file when stored uncompressed), at
    /// most [`MAX_CHUNK_INFLATED`] bytes.
    pub fn read_chunk(&self, slot: &ChunkSlot) -> Result<Cow<'_, [u8]>, ChunkError> {
        self.read_chunk_capped(slot, MAX_CHUNK_INFLATED)
    }

    /// [`RegionFile::read_chunk`] with the inflated size capped at `cap` bytes.
    pub fn read_chunk_capped(
        &self,
        slot: &ChunkSlot,
        cap: usize,
    ) -> Result<Cow<'_, [u8]>, ChunkError> {
        let err = |p| self.error(slot.local, p);
        if let Some(p) = self.bad.get(slot.index()).and_then(|b| b.clone()) {
            return Err(err(p));
        }
        let start = slot.sector as usize * SECTOR;
        let end = (start + slot.count as usize * SECTOR).min(self.bytes.len());
        let sectors = self.bytes.get(start..end).unwrap_or_default();
        let Some(head) = sectors.get(..4) else {
            return Err(err(ChunkProblem::PastEnd {
                sector: slot.sector,
                count: slot.count,
                file_len: self.bytes.len() as u64,
            }));
        };
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
        if length == 0 {
            return Err(err(ChunkProblem::Empty));
        }
        let room = (slot.count as u64 * SECTOR as u64) - 4;
        if u64::from(length) > room {
            return Err(err(ChunkProblem::LengthPastSectors { length, room }));
        }
        let Some(body) = sectors.get(4..4 + length as usize) else {
            // The sectors are all there by the table check, but the file's last one may
            // be short of a whole sector.
            return Err(err(ChunkProblem::PastEnd {
                sector: slot.sector,
                count: slot.count,
                file_len: self.bytes.len() as u64,
            }));
        };
        let kind = body[0];
        let stream = &body[1..];
        let compression = match kind & 0x7f {
            1 => ChunkCompression::Gzip,
            2 => ChunkCompression::Zlib,
            3 => ChunkCompression::None,
            4 => ChunkCompression::Lz4,
            127 => {
                return Err(err(ChunkProblem::CustomCompression {
                    name: java_utf(stream),
                }))
            }
            id => return Err(err(ChunkProblem::UnknownCompression { id })),
        };
        if kind & 0x80 != 0 {
            let chunk = self.world_chunk(slot.local);
            let mcc = self
                .path
                .parent()
                .unwrap_or(Path::new(""))
                .join(mcc_name(chunk));
            let shown = mcc.display().to_string();
            let bytes = match std::fs::metadata(&mcc) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(err(ChunkProblem::MissingMcc { path: shown }))
                }
                Err(e) => {
                    return Err(err(ChunkProblem::BadMcc {
                        path: shown,
                        message: format!("cannot read it: {e}"),
                    }))
                }
                Ok(m) if m.len() > MAX_MCC_FILE => {
                    return Err(err(ChunkProblem::BadMcc {
                        path: shown,
                        message: format!(
                            "the file is {} bytes; an .mcc is read up to {MAX_MCC_FILE}",
                            m.len()
                        ),
                    }))
                }
                Ok(_) => std::fs::read(&mcc).map_err(|e| {
                    err(ChunkProblem::BadMcc {
                        path: shown.clone(),
                        message: format!("cannot read it: {e}"),
                    })
                })?,
            };
            return inflate_chunk(&bytes, compression, cap)
                .map(|c| Cow::Owned(c.into_owned()))
                .map_err(err);
        }
        inflate_chunk(stream, compression, cap).map_err(err)
    }
}

/// A Java `writeUTF` string at the start of `bytes` (u16 big-endian length, then the
/// bytes), read lossily.
fn java_utf(bytes: &[u8]) -> Option<String> {
    let n = u16::from_be_bytes([*bytes.first()?, *bytes.get(1)?]) as usize;
    let s = bytes.get(2..2 + n)?;
    Some(String::from_utf8_lossy(s).into_owned())
}

/// Inflates one chunk stream to at most `cap` bytes.
pub fn inflate_chunk(
    stream: &[u8],
    compression: ChunkCompression,
    cap: usize,
) -> Result<Cow<'_, [u8]>, ChunkProblem> {
    let nbt_err = |e: NbtError| match e {
        NbtError::InflatedTooLarge { .. } => ChunkProblem::TooLarge { compression, cap },
        other => ChunkProblem::Inflate {
            compression,
            message: other.to_string(),
        },
    };
    match compression {
        ChunkCompression::None => {
            if stream.len() > cap {
                return Err(ChunkProblem::TooLarge { compression, cap });
            }
            Ok(Cow::Borrowed(stream))
        }
        ChunkCompression::Gzip => nbt::inflate_as(stream, Compression::Gzip, cap).map_err(nbt_err),
        ChunkCompression::Zlib => nbt::inflate_as(stream, Compression::Zlib, cap).map_err(nbt_err),
        ChunkCompression::Lz4 => lz4_java(stream, cap).map(Cow::Owned),
    }
}

/// Decodes lz4-java's block stream (`LZ4BlockOutputStream`): blocks of a 21-byte header
/// (`LZ4Block`, a token whose high nibble is the method, 0x10 raw or 0x20 LZ4, and whose
/// low nibble sets the largest block, 2^(10 + n) bytes; little-endian compressed length,
/// original length and XXH32 checksum, seed 0x9747b28c, of the original bytes masked to
/// 28 bits), each followed by its bytes, ending at an empty block or the end of the
/// input, with every check `LZ4BlockInputStream` makes.
pub fn lz4_java(stream: &[u8], cap: usize) -> Result<Vec<u8>, ChunkProblem> {
    let compression = ChunkCompression::Lz4;
    let bad = |at: usize, message: String| ChunkProblem::Inflate {
        compression,
        message: format!("byte {at}: {message}"),
    };
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < stream.len() {
        let Some(h) = stream.get(at..at + LZ4_HEADER) else {
            return Err(bad(
                at,
                format!(
                    "a block header needs {LZ4_HEADER} bytes, {} remain",
                    stream.len() - at
                ),
            ));
        };
        if &h[..8] != LZ4_MAGIC {
            return Err(bad(at, "expected the block magic 'LZ4Block'".into()));
        }
        let token = h[8];
        let method = token & 0xf0;
        let level = 10 + u32::from(token & 0x0f);
        if method != 0x10 && method != 0x20 {
            return Err(bad(
                at + 8,
                format!("block method {method:#04x}; expected 0x10 (raw) or 0x20 (LZ4)"),
            ));
        }
        let le = |o: usize| i32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]]);
        let (clen, olen, check) = (le(9), le(13), le(17));
        let max_block = 1i64 << level;
        if i64::from(olen) > max_block
            || olen < 0
            || clen < 0
            || (olen == 0) != (clen == 0)
            || (method == 0x10 && olen != clen)
        {
            return Err(bad(
                at,
                format!("the block header's lengths (compressed {clen}, original {olen}, largest block {max_block}) are inconsistent"),
            ));
        }
        at += LZ4_HEADER;
        if olen == 0 {
            if check != 0 {
                return Err(bad(at - 4, "the closing empty block has a checksum".into()));
            }
            return Ok(out);
        }
        let (clen, olen) = (clen as usize, olen as usize);
        if out.len() + olen > cap {
            return Err(ChunkProblem::TooLarge { compression, cap });
        }
        let Some(data) = stream.get(at..at + clen) else {
            return Err(bad(
                at,
                format!("the block needs {clen} bytes, {} remain", stream.len() - at),
            ));
        };
        let start = out.len();
        if method == 0x10 {
            out.extend_from_slice(data);
        } else {
            out.resize(start + olen, 0);
            match lz4_flex::block::decompress_into(data, &mut out[start..]) {
                Ok(n) if n == olen => {}
                Ok(n) => {
                    return Err(bad(
                        at,
                        format!("the block decodes to {n} bytes; its header says {olen}"),
                    ))
                }
                Err(e) => return Err(bad(at, format!("the LZ4 block does not decode: {e}"))),
            }
        }
        let hash = twox_hash::XxHash32::oneshot(LZ4_SEED, &out[start..]) & 0x0fff_ffff;
        if hash as i32 != check {
            return Err(bad(
                at - 4,
                format!("the block's checksum is {check:#x}; its bytes' is {hash:#x}"),
            ));
        }
        at += clen;
    }
    // The stream may end without its empty block (lz4-java reads to the end of input).
    Ok(out)
}

/// The bytes of lz4-java's block stream for `data`, in blocks of at most `block` bytes
/// (a power of two from 64), each LZ4-compressed, with the closing empty block: what
/// the game writes for an LZ4 chunk. For tests and fixtures.
pub fn lz4_java_encode(data: &[u8], block: usize) -> Vec<u8> {
    let block = block.clamp(64, 1 << 25).next_power_of_two();
    let level = (block.trailing_zeros().saturating_sub(10)) as u8;
    let mut out = Vec::new();
    for piece in data.chunks(block) {
        let c = lz4_flex::block::compress(piece);
        out.extend_from_slice(LZ4_MAGIC);
        out.push(0x20 | level);
        out.extend_from_slice(&(c.len() as i32).to_le_bytes());
        out.extend_from_slice(&(piece.len() as i32).to_le_bytes());
        let hash = twox_hash::XxHash32::oneshot(LZ4_SEED, piece) & 0x0fff_ffff;
        out.extend_from_slice(&(hash as i32).to_le_bytes());
        out.extend_from_slice(&c);
    }
    out.extend_from_slice(LZ4_MAGIC);
    out.push(0x10 | level);
    out.extend_from_slice(&[0; 12]);
    out
}

/// Builds a region file's bytes from chunks, for tests and fixtures: each
/// `(local, compression byte, stream)` placed in the next free sectors, in order.
pub fn build_region(chunks: &[([i32; 2], u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0u8; 2 * SECTOR];
    for (local, kind, stream) in chunks {
        let i = (local[0] + REGION_CHUNKS * local[1]) as usize;
        let sector = out.len() / SECTOR;
        let len = stream.len() as u32 + 1;
        out.extend_from_slice(&len.to_be_bytes());
        out.push(*kind);
        out.extend_from_slice(stream);
        let padded = out.len().div_ceil(SECTOR) * SECTOR;
        out.resize(padded, 0);
        let count = (padded / SECTOR - sector).min(255) as u32;
        let loc = ((sector as u32) << 8) | count;
        out[i * 4..i * 4 + 4].copy_from_slice(&loc.to_be_bytes());
        out[SECTOR + i * 4..SECTOR + i * 4 + 4].copy_from_slice(&1u32.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(payload: &[u8]) -> Vec<u8> {
        payload.to_vec()
    }

    fn open(bytes: Vec<u8>) -> RegionFile {
        RegionFile::from_bytes(Path::new("/nonexistent/r.1.-2.mca"), [1, -2], bytes).unwrap()
    }

    #[test]
    fn names_parse() {
        assert_eq!(parse_region_name("r.0.0.mca"), Some([0, 0]));
        assert_eq!(parse_region_name("r.-3.12.mca"), Some([-3, 12]));
        assert_eq!(parse_region_name("r.0.0.mcr"), None);
        assert_eq!(parse_region_name("r.a.0.mca"), None);
        assert_eq!(parse_region_name("c.0.0.mcc"), None);
        assert_eq!(region_name([-1, 2]), "r.-1.2.mca");
        assert_eq!(mcc_name([33, -64]), "c.33.-64.mcc");
    }

    #[test]
    fn a_short_file_is_a_truncated_table() {
        let e = RegionFile::from_bytes(Path::new("r.0.0.mca"), [0, 0], vec![0; 8191]).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("r.0.0.mca") && s.contains("truncated") && s.contains("8191"),
            "{s}"
        );
    }

    #[test]
    fn every_compression_reads() {
        let nbt = b"\x0a\x00\x00\x03\x00\x01a\x00\x00\x00\x07\x00".to_vec();
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&nbt, 6);
        // gzip by hand: header, raw deflate, CRC-32 and length.
        let mut gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        gzip.extend(miniz_oxide::deflate::compress_to_vec(&nbt, 6));
        gzip.extend(crc32fast::hash(&nbt).to_le_bytes());
        gzip.extend((nbt.len() as u32).to_le_bytes());
        let lz4 = lz4_java_encode(&nbt, 64);
        let r = open(build_region(&[
            ([0, 0], 1, gzip),
            ([1, 0], 2, zlib),
            ([2, 0], 3, stored(&nbt)),
            ([31, 31], 4, lz4),
        ]));
        assert_eq!(r.slots().len(), 4);
        for s in r.slots() {
            assert_eq!(r.read_chunk(s).unwrap().as_ref(), nbt.as_slice(), "{:?}", s);
        }
        assert_eq!(r.slots()[3].local, [31, 31]);
        assert_eq!(r.world_chunk([31, 31]), [63, -33]);
    }

    #[test]
    fn lz4_over_several_blocks_and_without_its_end_block() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let enc = lz4_java_encode(&data, 1024);
        assert_eq!(lz4_java(&enc, 1 << 20).unwrap(), data);
        // Without the closing empty block, as lz4-java reads to the end of input.
        assert_eq!(
            lz4_java(&enc[..enc.len() - LZ4_HEADER], 1 << 20).unwrap(),
            data
        );
        // A flipped checksum.
        let mut bad = enc.clone();
        bad[17] ^= 1;
        let e = lz4_java(&bad, 1 << 20).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
    }

    #[test]
    fn an_lz4_bomb_stops_at_the_cap() {
        let data = vec![0u8; 1 << 20];
        let enc = lz4_java_encode(&data, 1 << 16);
        assert!(enc.len() < 8192, "{}", enc.len());
        let e = lz4_java(&enc, 1 << 18).unwrap_err();
        assert_eq!(
            e,
            ChunkProblem::TooLarge {
                compression: ChunkCompression::Lz4,
                cap: 1 << 18
            }
        );
    }

    #[test]
    fn a_zlib_bomb_stops_at_the_cap() {
        let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&vec![0u8; 4 << 20], 9);
        let r = open(build_region(&[([0, 0], 2, zlib)]));
        let e = r.read_chunk_capped(&r.slots()[0], 1 << 20).unwrap_err();
        assert!(
            matches!(e.problem, ChunkProblem::TooLarge { cap, .. } if cap == 1 << 20),
            "{e}"
        );
        let s = e.to_string();
        assert!(
            s.contains("r.1.-2.mca") && s.contains("chunk (32, -64)") && s.contains("bomb"),
            "{s}"
        );
    }

    #[test]
    fn sector_problems_name_the_chunk() {
        let mut bytes = build_region(&[([0, 0], 3, vec![1; 10]), ([1, 0], 3, vec![2; 10])]);
        // Chunk (2, 0) points into the tables, (3, 0) has no sectors, (4, 0) runs past
        // the end, (5, 0) overlaps (1, 0).
        let put = |b: &mut Vec<u8>, i: usize, loc: u32| {
            b[i * 4..i * 4 + 4].copy_from_slice(&loc.to_be_bytes())
        };
        put(&mut bytes, 2, (1 << 8) | 1);
        put(&mut bytes, 3, 5 << 8);
        put(&mut bytes, 4, (3 << 8) | 9);
        put(&mut bytes, 5, (3 << 8) | 1);
        let r = open(bytes);
        let problems: Vec<ChunkProblem> = r
            .slots()
            .iter()
            .map(|s| r.read_chunk(s).map(|_| ()).map_err(|e| e.problem).err())
            .map(|p| p.unwrap_or(ChunkProblem::Empty))
            .collect();
        assert_eq!(
            problems[0],
            ChunkProblem::Empty,
            "chunk (0,0) reads: marked Empty here"
        );
        assert!(
            matches!(problems[1], ChunkProblem::Overlaps { other: [5, 0], .. }),
            "{:?}",
            problems[1]
        );
        assert_eq!(problems[2], ChunkProblem::InTables { sector: 1 });
        assert_eq!(problems[3], ChunkProblem::NoSectors { sector: 5 });
        assert!(matches!(
            problems[4],
            ChunkProblem::PastEnd {
                sector: 3,
                count: 9,
                ..
            }
        ));
        assert!(matches!(
            problems[5],
            ChunkProblem::Overlaps { other: [1, 0], .. }
        ));
        let s = r.read_chunk(&r.slots()[5]).unwrap_err().to_string();
        assert!(s.contains("overlap") && s.contains("chunk (1, 0)"), "{s}");
    }

    #[test]
    fn a_length_past_its_sectors_and_a_zero_length() {
        let mut bytes = build_region(&[([0, 0], 3, vec![1; 10]), ([1, 0], 3, vec![1; 10])]);
        bytes[2 * SECTOR..2 * SECTOR + 4].copy_from_slice(&5000u32.to_be_bytes());
        bytes[3 * SECTOR..3 * SECTOR + 4].copy_from_slice(&0u32.to_be_bytes());
        let r = open(bytes);
        let e = r.read_chunk(&r.slots()[0]).unwrap_err();
        assert_eq!(
            e.problem,
            ChunkProblem::LengthPastSectors {
                length: 5000,
                room: 4092
            }
        );
        assert!(e.to_string().contains("runs past its sectors"), "{e}");
        assert_eq!(
            r.read_chunk(&r.slots()[1]).unwrap_err().problem,
            ChunkProblem::Empty
        );
    }

    #[test]
    fn custom_and_unknown_compressions_are_refused_by_name() {
        let mut custom = vec![0, 13];
        custom.extend_from_slice(b"mymod:zstd_22");
        let r = open(build_region(&[
            ([0, 0], 127, custom),
            ([1, 0], 9, vec![0; 4]),
        ]));
        let e = r.read_chunk(&r.slots()[0]).unwrap_err().to_string();
        assert!(e.contains("custom") && e.contains("mymod:zstd_22"), "{e}");
        let e = r.read_chunk(&r.slots()[1]).unwrap_err().to_string();
        assert!(e.contains("compression type 9"), "{e}");
    }

    #[test]
    fn an_oversized_chunk_reads_its_mcc_and_a_missing_one_is_named() {
        let dir = std::env::temp_dir().join(format!("dh-mcc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let nbt = b"\x0a\x00\x00\x00".to_vec();
        let bytes = build_region(&[([3, 4], 0x82, Vec::new()), ([5, 6], 0x83, Vec::new())]);
        std::fs::write(
            dir.join("c.35.-60.mcc"),
            miniz_oxide::deflate::compress_to_vec_zlib(&nbt, 6),
        )
        .unwrap();
        let path = dir.join("r.1.-2.mca");
        std::fs::write(&path, &bytes).unwrap();
        let r = RegionFile::open(&path).unwrap();
        assert_eq!(r.coords(), [1, -2]);
        assert_eq!(
            r.read_chunk(&r.slots()[0]).unwrap().as_ref(),
            nbt.as_slice()
        );
        let e = r.read_chunk(&r.slots()[1]).unwrap_err();
        assert!(
            matches!(&e.problem, ChunkProblem::MissingMcc { path } if path.ends_with("c.37.-58.mcc")),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
