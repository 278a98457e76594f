//! Value types shared by every schema: three-number vectors, GUID ids, colors.

use std::fmt;

use crate::jsonc::{Kind, Value};
use crate::read::{Cx, FromJson, ToJson};

/// A vector of exactly three finite numbers (`[x, y, z]`, or euler degrees
/// `[pitch, yaw, roll]`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3(pub [f64; 3]);

impl Vec3 {
    /// `[0, 0, 0]`.
    pub const ZERO: Vec3 = Vec3([0.0; 3]);
    /// `[1, 1, 1]`.
    pub const ONE: Vec3 = Vec3([1.0; 3]);
    /// The x component.
    pub fn x(&self) -> f64 {
        self.0[0]
    }
    /// The y component.
    pub fn y(&self) -> f64 {
        self.0[1]
    }
    /// The z component.
    pub fn z(&self) -> f64 {
        self.0[2]
    }
}

/// Reads an array of exactly `N` finite numbers, reporting "expected exactly N numbers".
pub fn read_numbers<const N: usize>(cx: &mut Cx, v: &Value) -> Option<[f64; N]> {
    let what = match N {
        2 => "exactly two numbers",
        3 => "exactly three numbers",
        4 => "exactly four numbers",
        _ => "a list of numbers",
    };
    let Kind::Array(items) = &v.kind else {
        cx.expected(&format!("an array of {what}"), v);
        return None;
    };
    if items.len() != N {
        cx.error(
            v.span,
            format!("expected {what}, found {} items", items.len()),
        );
        return None;
    }
    let mut out = [0.0; N];
    for (slot, item) in out.iter_mut().zip(items) {
        match item.kind {
            Kind::Number(n) if n.is_finite() => *slot = n,
            _ => {
                cx.error(
                    item.span,
                    format!("expected {what} (finite), found {}", item.kind.describe()),
                );
                return None;
            }
        }
    }
    Some(out)
}

fn numbers_json(n: &[f64]) -> Value {
    Value::synthetic(Kind::Array(
        n.iter()
            .map(|x| Value::synthetic(Kind::Number(*x)))
            .collect(),
    ))
}

impl FromJson for Vec3 {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        read_numbers::<3>(cx, v).map(Vec3)
    }
}
impl ToJson for Vec3 {
    fn to_json(&self) -> Value {
        numbers_json(&self.0)
    }
}

/// Two numbers (`[u, v]`, a size, a range).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec2(pub [f64; 2]);
impl FromJson for Vec2 {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        read_numbers::<2>(cx, v).map(Vec2)
    }
}
impl ToJson for Vec2 {
    fn to_json(&self) -> Value {
        numbers_json(&self.0)
    }
}

/// Four numbers (a quaternion, an RGBA color).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec4(pub [f64; 4]);
impl FromJson for Vec4 {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        read_numbers::<4>(cx, v).map(Vec4)
    }
}
impl ToJson for Vec4 {
    fn to_json(&self) -> Value {
        numbers_json(&self.0)
    }
}

/// A record id: a GUID written `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (hex, any case;
/// written back lowercase).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// The all-zero GUID, which is never a valid id.
    pub const NIL: Guid = Guid([0; 16]);

    /// Parses the hyphenated form.
    pub fn parse(s: &str) -> Option<Guid> {
        let b = s.as_bytes();
        if b.len() != 36 {
            return None;
        }
        let mut out = [0u8; 16];
        let mut n = 0;
        let mut i = 0;
        while i < 36 {
            if matches!(i, 8 | 13 | 18 | 23) {
                if b[i] != b'-' {
                    return None;
                }
                i += 1;
                continue;
            }
            let hi = hex(b[i])?;
            let lo = hex(*b.get(i + 1)?)?;
            *out.get_mut(n)? = hi << 4 | lo;
            n += 1;
            i += 2;
        }
        Some(Guid(out))
    }

    /// Whether every byte is zero.
    pub fn is_nil(&self) -> bool {
        self.0 == [0; 16]
    }

    /// A fresh random (version 4) GUID, for error messages that offer one to paste.
    pub fn mint() -> Guid {
        let mut b = [0u8; 16];
        if getrandom::fill(&mut b).is_err() {
            // No OS randomness: fall back to the clock and a counter, still unique enough
            // for a suggestion an author pastes once.
            use std::sync::atomic::{AtomicU64, Ordering};
            static COUNTER: AtomicU64 = AtomicU64::new(1);
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            b[..8].copy_from_slice(&t.to_le_bytes());
            b[8..].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        }
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        Guid(b)
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl FromJson for Guid {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let Some(s) = v.as_str() else {
            cx.expected("a GUID string", v);
            return None;
        };
        match Guid::parse(s) {
            Some(g) => Some(g),
            None => {
                cx.error(
                    v.span,
                    format!(
                        "'{s}' is not a GUID; expected the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, e.g. {}",
                        Guid::mint()
                    ),
                );
                None
            }
        }
    }
}
impl ToJson for Guid {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::String(self.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_round_trip() {
        let s = "3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a60";
        let g = Guid::parse(s).unwrap();
        assert_eq!(g.to_string(), s);
        assert_eq!(Guid::parse("3C5A0B7E-6D21-4F9A-8E14-7B2D9C1F4A60"), Some(g));
        assert!(Guid::parse("3c5a0b7e6d214f9a8e147b2d9c1f4a60").is_none());
        assert!(Guid::parse("3c5a0b7e-6d21-4f9a-8e14-7b2d9c1f4a6g").is_none());
        assert!(Guid::parse("00000000-0000-0000-0000-000000000000")
            .unwrap()
            .is_nil());
        let m = Guid::mint();
        assert!(!m.is_nil());
        assert_eq!(m.0[6] >> 4, 4);
        assert_ne!(m, Guid::mint());
    }
}
