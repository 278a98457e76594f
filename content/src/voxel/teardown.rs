//! Teardown's reading of a `.vox`: the palette index is the material and the color is only
//! its paint. The ranges are the spec's table (from the annotated `teardown_palette.vox`
//! Tuxedo Labs publishes, whose notes name each row of eight; index 9 is grass and 57 to
//! 72 are wood). Teardown VoxTool's compressed `TDCZ` models are read by
//! [`super::vox::read_vox`] like any other model.

use super::vox::{ModelSource, VoxFile};

/// The palette namespace of a Teardown entry (`teardown:wood`).
pub const NAMESPACE: &str = "teardown";

/// The material ranges: first index, last index (inclusive), material.
pub const MATERIALS: &[(u8, u8, &str)] = &[
    (1, 8, "glass"),
    (9, 24, "grass"),
    (25, 40, "dirt"),
    (41, 56, "rock"),
    (57, 72, "wood"),
    (73, 88, "concrete"),
    (89, 104, "brick"),
    (105, 120, "plaster"),
    (121, 136, "weak_metal"),
    (137, 152, "heavy_metal"),
    (153, 168, "plastic"),
    (169, 176, "hard_metal"),
    (177, 184, "hard_masonry"),
    (225, 240, "unphysical"),
];

/// The material of every index no range names.
pub const RESERVED: &str = "reserved";

/// The material palette index `index` means in a Teardown `.vox`.
pub fn material_for_index(index: u8) -> &'static str {
    MATERIALS
        .iter()
        .find(|(lo, hi, _)| (*lo..=*hi).contains(&index))
        .map(|(_, _, m)| *m)
        .unwrap_or(RESERVED)
}

/// Every material name, in table order, then `reserved`.
pub fn material_names() -> Vec<&'static str> {
    MATERIALS
        .iter()
        .map(|(_, _, m)| *m)
        .chain(std::iter::once(RESERVED))
        .collect()
}

/// Whether a `.vox` reads as a Teardown file when no platform was named: it holds a
/// VoxTool `TDCZ` model, or a `NOTE` chunk naming Teardown's palette rows (`hard masonry`,
/// `unphysical`, or VoxTool's `$TD_` material tags).
pub fn looks_like_teardown(file: &VoxFile) -> bool {
    if file.models.iter().any(|m| m.source == ModelSource::Tdcz) {
        return true;
    }
    file.extras.iter().filter(|c| c.id == "NOTE").any(|c| {
        let text = String::from_utf8_lossy(&c.bytes);
        text.contains("hard masonry") || text.contains("unphysical") || text.contains("$TD_")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_indices_and_every_edge() {
        // The two facts the spec checks the table against.
        assert_eq!(material_for_index(9), "grass");
        for i in 57..=72 {
            assert_eq!(material_for_index(i), "wood", "index {i}");
        }
        // Row edges, by hand from the table.
        let expect = [
            (0, "reserved"),
            (1, "glass"),
            (8, "glass"),
            (24, "grass"),
            (25, "dirt"),
            (41, "rock"),
            (56, "rock"),
            (73, "concrete"),
            (89, "brick"),
            (105, "plaster"),
            (121, "weak_metal"),
            (137, "heavy_metal"),
            (153, "plastic"),
            (168, "plastic"),
            (169, "hard_metal"),
            (177, "hard_masonry"),
            (184, "hard_masonry"),
            (185, "reserved"),
            (224, "reserved"),
            (225, "unphysical"),
            (240, "unphysical"),
            (241, "reserved"),
            (255, "reserved"),
        ];
        for (i, m) in expect {
            assert_eq!(material_for_index(i), m, "index {i}");
        }
    }

    #[test]
    fn ranges_are_ordered_and_disjoint() {
        for w in MATERIALS.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }
}
