//! The pallet manifest: identity, dependencies and build info.

use super::error::PalletError;
use super::format::{
    put_str, put_u16, put_u32, Cursor, MAX_DEPENDENCIES, MAX_MANIFEST_LEN, MAX_STRING_LEN,
};

/// A compiled pallet's manifest, from its source `pallet.dh` plus what the build
/// records. It carries no timestamp and no compiler version, so a rebuild that changed
/// nothing writes the same manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Reverse-DNS pallet id (`dev.example.props`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// The author's version string.
    pub version: String,
    /// Ids of the pallets this one declares it depends on, in author order.
    pub dependencies: Vec<String>,
    /// The dependencies the build actually resolved references into, with the
    /// `contentChecksum` each had at build time. Folded into this pallet's
    /// `contentChecksum`, so a rebuild against changed dependencies is a change. The
    /// writer sorts them by id.
    pub used_dependencies: Vec<UsedDependency>,
    /// The pallet's default look, if its `pallet.dh` names one.
    pub default_look: Option<String>,
    /// Checksum and formula version. The writer computes and overwrites this; what a
    /// caller puts here before [`PalletWriter::finish`](super::PalletWriter::finish) is
    /// ignored.
    pub build_info: BuildInfo,
}

impl Manifest {
    /// A manifest with an id, name and version and nothing else.
    pub fn new(id: impl Into<String>, name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}

/// A dependency the build resolved references into.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UsedDependency {
    /// The dependency's pallet id.
    pub id: String,
    /// Its `buildInfo.contentChecksum` when this pallet was built (empty if unknown).
    pub content_checksum: String,
}

/// What the build records about itself: only what is a pure function of the content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BuildInfo {
    /// Lower-case hex SHA-256 over the manifest, the used dependencies, and every
    /// entry's path, raw size and folded CRC32 (see the module docs for the formula).
    pub content_checksum: String,
    /// The version of the checksum formulas (`contentChecksum` and the folded CRC32)
    /// the pallet was written with; see [`CHECKSUM_FORMULA_VERSION`](super::CHECKSUM_FORMULA_VERSION).
    pub formula_version: u32,
}

/// Why `id` is not a usable pallet id.
fn id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("is empty; expected a reverse-DNS pallet id".to_owned());
    }
    if id.len() > MAX_STRING_LEN {
        return Some(format!("is {} bytes; at most {MAX_STRING_LEN}", id.len()));
    }
    if let Some(c) = id
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || matches!(c, ':' | '/' | '\\'))
    {
        return Some(format!(
            "contains {c:?}; a pallet id has no whitespace, `:`, `/` or `\\`"
        ));
    }
    None
}

/// Why a free-text field is not writable.
fn text_problem(s: &str) -> Option<String> {
    if s.len() > MAX_STRING_LEN {
        return Some(format!("is {} bytes; at most {MAX_STRING_LEN}", s.len()));
    }
    if s.chars().any(char::is_control) {
        return Some("contains a control character".to_owned());
    }
    None
}

/// Checks every field except `build_info`. Returns the field and the reason.
pub(crate) fn check_manifest(m: &Manifest) -> Result<(), (String, String)> {
    let err = |field: &str, reason: String| Err((field.to_owned(), reason));
    if let Some(r) = id_problem(&m.id) {
        return err("id", r);
    }
    if let Some(r) = text_problem(&m.name) {
        return err("name", r);
    }
    if let Some(r) = text_problem(&m.version) {
        return err("version", r);
    }
    if m.dependencies.len() > MAX_DEPENDENCIES {
        return err(
            "dependencies",
            format!(
                "has {} ids; at most {MAX_DEPENDENCIES}",
                m.dependencies.len()
            ),
        );
    }
    for (i, dep) in m.dependencies.iter().enumerate() {
        let field = format!("dependencies[{i}]");
        if let Some(r) = id_problem(dep) {
            return err(&field, r);
        }
        if *dep == m.id {
            return err(&field, format!("is `{dep}`, the pallet itself"));
        }
        if m.dependencies[..i].contains(dep) {
            return err(&field, format!("`{dep}` is listed twice"));
        }
    }
    if m.used_dependencies.len() > MAX_DEPENDENCIES {
        return err(
            "used_dependencies",
            format!(
                "has {} entries; at most {MAX_DEPENDENCIES}",
                m.used_dependencies.len()
            ),
        );
    }
    for (i, dep) in m.used_dependencies.iter().enumerate() {
        if let Some(r) = id_problem(&dep.id) {
            return err(&format!("used_dependencies[{i}].id"), r);
        }
        if let Some(r) = text_problem(&dep.content_checksum) {
            return err(&format!("used_dependencies[{i}].content_checksum"), r);
        }
        if m.used_dependencies[..i].iter().any(|d| d.id == dep.id) {
            return err(
                &format!("used_dependencies[{i}].id"),
                format!("`{}` is listed twice", dep.id),
            );
        }
    }
    if let Some(look) = &m.default_look {
        if look.is_empty() {
            return err(
                "default_look",
                "is empty; use None for no default look".to_owned(),
            );
        }
        if let Some(r) = text_problem(look) {
            return err("default_look", r);
        }
    }
    if let Some(r) = text_problem(&m.build_info.content_checksum) {
        return err("build_info.content_checksum", r);
    }
    Ok(())
}

/// The manifest's bytes up to (not including) the build info: the part the content
/// checksum covers.
pub(crate) fn encode_identity(m: &Manifest, out: &mut Vec<u8>) {
    put_str(out, &m.id);
    put_str(out, &m.name);
    put_str(out, &m.version);
    put_u16(out, u16::try_from(m.dependencies.len()).unwrap_or(0));
    for dep in &m.dependencies {
        put_str(out, dep);
    }
    put_u16(out, u16::try_from(m.used_dependencies.len()).unwrap_or(0));
    for dep in &m.used_dependencies {
        put_str(out, &dep.id);
        put_str(out, &dep.content_checksum);
    }
    match &m.default_look {
        None => out.push(0),
        Some(look) => {
            out.push(1);
            put_str(out, look);
        }
    }
}

/// The whole manifest section.
pub(crate) fn encode_manifest(m: &Manifest) -> Vec<u8> {
    let mut out = Vec::new();
    encode_identity(m, &mut out);
    put_u32(&mut out, m.build_info.formula_version);
    put_str(&mut out, &m.build_info.content_checksum);
    out
}

/// Parses the manifest section `data`, which starts at absolute offset `base`.
pub(crate) fn decode_manifest(data: &[u8], base: u64, file: &str) -> Result<Manifest, PalletError> {
    debug_assert!(data.len() <= MAX_MANIFEST_LEN as usize);
    let mut c = Cursor::new(data, base, file, "manifest");
    let id = c.str("the pallet id", MAX_STRING_LEN)?.to_owned();
    let name = c.str("the pallet name", MAX_STRING_LEN)?.to_owned();
    let version = c.str("the pallet version", MAX_STRING_LEN)?.to_owned();

    let at = c.offset();
    let count = usize::from(c.u16("the u16 dependency count")?);
    if count > MAX_DEPENDENCIES {
        return Err(c.malformed(
            at,
            "the dependency count".to_owned(),
            count.to_string(),
            format!("at most {MAX_DEPENDENCIES}"),
        ));
    }
    let mut dependencies = Vec::with_capacity(count.min(c.remaining() / 2));
    for _ in 0..count {
        dependencies.push(c.str("a dependency id", MAX_STRING_LEN)?.to_owned());
    }

    let at = c.offset();
    let count = usize::from(c.u16("the u16 used-dependency count")?);
    if count > MAX_DEPENDENCIES {
        return Err(c.malformed(
            at,
            "the used-dependency count".to_owned(),
            count.to_string(),
            format!("at most {MAX_DEPENDENCIES}"),
        ));
    }
    let mut used_dependencies = Vec::with_capacity(count.min(c.remaining() / 4));
    for _ in 0..count {
        let at = c.offset();
        let id = c.str("a used dependency id", MAX_STRING_LEN)?.to_owned();
        let content_checksum = c
            .str("a used dependency's contentChecksum", MAX_STRING_LEN)?
            .to_owned();
        if let Some(prev) = used_dependencies.last() {
            let prev: &UsedDependency = prev;
            if prev.id >= id {
                return Err(c.malformed(
                    at,
                    "a used dependency id".to_owned(),
                    format!("`{id}` after `{}`", prev.id),
                    "used dependencies sorted by id, each once".to_owned(),
                ));
            }
        }
        used_dependencies.push(UsedDependency {
            id,
            content_checksum,
        });
    }

    let at = c.offset();
    let default_look = match c.u8("the u8 default-look flag")? {
        0 => None,
        1 => Some(c.str("the default look", MAX_STRING_LEN)?.to_owned()),
        other => {
            return Err(c.malformed(
                at,
                "the default-look flag".to_owned(),
                other.to_string(),
                "0 (none) or 1 (present)".to_owned(),
            ))
        }
    };
    let formula_version = c.u32("the u32 checksum formula version")?;
    let content_checksum = c
        .str("buildInfo.contentChecksum", MAX_STRING_LEN)?
        .to_owned();
    if c.remaining() != 0 {
        return Err(c.malformed(
            c.offset(),
            "the end of the manifest".to_owned(),
            format!("followed by {} more bytes", c.remaining()),
            "the manifest to end after buildInfo.contentChecksum".to_owned(),
        ));
    }
    let m = Manifest {
        id,
        name,
        version,
        dependencies,
        used_dependencies,
        default_look,
        build_info: BuildInfo {
            content_checksum,
            formula_version,
        },
    };
    if let Err((field, reason)) = check_manifest(&m) {
        return Err(c.malformed(
            base,
            format!("manifest field `{field}`"),
            reason,
            "a manifest the writer would accept".to_owned(),
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            id: "dev.example.props".into(),
            name: "Props".into(),
            version: "1.2.0".into(),
            dependencies: vec!["core".into(), "dev.example.base".into()],
            used_dependencies: vec![UsedDependency {
                id: "core".into(),
                content_checksum: "ab".repeat(32),
            }],
            default_look: Some("looks/day.dh-look".into()),
            build_info: BuildInfo {
                content_checksum: "cd".repeat(32),
                formula_version: 1,
            },
        }
    }

    #[test]
    fn manifest_round_trips() {
        let m = sample();
        let bytes = encode_manifest(&m);
        assert_eq!(decode_manifest(&bytes, 64, "f").unwrap(), m);
        let mut m2 = m.clone();
        m2.default_look = None;
        m2.dependencies.clear();
        let bytes = encode_manifest(&m2);
        assert_eq!(decode_manifest(&bytes, 64, "f").unwrap(), m2);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode_manifest(&sample());
        for len in 0..bytes.len() {
            assert!(
                decode_manifest(&bytes[..len], 64, "f").is_err(),
                "len {len}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_manifest(&longer, 64, "f").is_err());
    }

    #[test]
    fn refuses_bad_fields() {
        let mut m = sample();
        m.id.clear();
        assert_eq!(check_manifest(&m).unwrap_err().0, "id");
        let mut m = sample();
        m.dependencies.push("core".into());
        assert_eq!(check_manifest(&m).unwrap_err().0, "dependencies[2]");
        let mut m = sample();
        m.dependencies.push(m.id.clone());
        assert!(check_manifest(&m).is_err());
        let mut m = sample();
        m.id = "a b".into();
        assert!(check_manifest(&m).is_err());
        let mut m = sample();
        m.default_look = Some(String::new());
        assert_eq!(check_manifest(&m).unwrap_err().0, "default_look");
        let mut m = sample();
        m.name = "x".repeat(MAX_STRING_LEN + 1);
        assert_eq!(check_manifest(&m).unwrap_err().0, "name");
    }
}
