//! SHA-1 and name-based (version 5) UUIDs, for local ids, object ids and part content
//! hashes (the `sha1` and `uuid` crates). Not used for anything that needs collision
//! resistance against an adversary.

use sha1::{Digest, Sha1};

use crate::schema::common::Guid;

/// SHA-1 of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

/// The name-based (version 5) UUID of `name` under `namespace` (RFC 9562).
pub fn uuid_v5(namespace: Guid, name: &[u8]) -> Guid {
    Guid(*uuid::Uuid::new_v5(&uuid::Uuid::from_bytes(namespace.0), name).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn known_digests() {
        assert_eq!(hex(&sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(&sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(&sha1(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        let million = vec![b'a'; 1_000_000];
        assert_eq!(
            hex(&sha1(&million)),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
        // Fed in odd pieces, the same digest.
        let mut h = Sha1::new();
        for c in million.chunks(37) {
            h.update(c);
        }
        assert_eq!(
            hex(&h.finalize()),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
    }

    #[test]
    fn uuid_v5_matches_rfc_example() {
        // RFC 9562 / Python's uuid.uuid5(uuid.NAMESPACE_DNS, "www.example.com").
        let dns = Guid::parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8").unwrap();
        assert_eq!(
            uuid_v5(dns, b"www.example.com").to_string(),
            "2ed6657d-e927-568b-95e1-2665a8aea6a2"
        );
    }
}
