//! Lower-case hex of digests and keys: how SHA-256 content checksums, cache keys and SHA-1
//! part hashes are spelled in text and file names. The digests themselves are the `sha1`
//! and `sha2` crates'.

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::hex;
    use sha2::{Digest, Sha256};

    fn digest(data: &[u8]) -> String {
        hex(&Sha256::digest(data))
    }

    /// The FIPS 180-4 vectors, through the hasher every content checksum and cache key
    /// uses.
    #[test]
    fn fips_180_4_vectors() {
        assert_eq!(
            digest(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            digest(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            digest(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            digest(&vec![b'a'; 1_000_000]),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn streaming_matches_one_shot_at_every_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let whole = digest(&data);
        for split in 0..data.len() {
            let mut h = Sha256::new();
            h.update(&data[..split]);
            h.update(&data[split..]);
            assert_eq!(hex(&h.finalize()), whole, "split at {split}");
        }
        // Lengths around the padding boundary (55, 56, 63, 64, 65 bytes).
        for len in [55usize, 56, 57, 63, 64, 65, 119, 120] {
            let d = digest(&data[..len]);
            let mut h = Sha256::new();
            for b in &data[..len] {
                h.update(std::slice::from_ref(b));
            }
            assert_eq!(hex(&h.finalize()), d, "len {len}");
        }
    }
}
