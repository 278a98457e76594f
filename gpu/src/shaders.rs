//! The WGSL shaders of `gpu/shaders/`, compiled to SPIR-V 1.3 by naga in `build.rs`
//! (explicit `spv::Options`: no Y flip, no debug info). One constant per file, named
//! after the file stem in upper case (`fullscreen_test.wgsl` → [`FULLSCREEN_TEST`]),
//! and [`ALL`].

/// A pipeline stage an entry point belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderStage {
    /// A vertex shader.
    Vertex,
    /// A fragment shader.
    Fragment,
    /// A compute shader.
    Compute,
    /// A stage this backend does not build pipelines for (mesh, task).
    Other,
}

/// One compiled WGSL file.
#[derive(Clone, Copy, Debug)]
pub struct Shader {
    /// The file stem.
    pub name: &'static str,
    /// SPIR-V, little-endian words as bytes (byte-aligned: use [`Shader::words`]).
    pub spirv: &'static [u8],
    /// Every entry point and its stage.
    pub entry_points: &'static [(&'static str, ShaderStage)],
}

impl Shader {
    /// The SPIR-V as 32-bit words.
    pub fn words(&self) -> Vec<u32> {
        self.spirv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// The stage of entry point `name`, if the shader has it.
    pub fn stage_of(&self, name: &str) -> Option<ShaderStage> {
        self.entry_points
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }
}

/// The compiled shader named `name` (file stem).
pub fn get(name: &str) -> Option<&'static Shader> {
    ALL.iter().find(|s| s.name == name)
}

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_holds_the_test_shader_with_its_entry_points() {
        let s = get("fullscreen_test").map(|s| s.name);
        assert_eq!(s, Some("fullscreen_test"));
        assert_eq!(
            FULLSCREEN_TEST.stage_of("vs_main"),
            Some(ShaderStage::Vertex)
        );
        assert_eq!(
            FULLSCREEN_TEST.stage_of("fs_main"),
            Some(ShaderStage::Fragment)
        );
        let words = FULLSCREEN_TEST.words();
        assert_eq!(words.first(), Some(&0x0723_0203), "SPIR-V magic");
        // Version word: 1.3.
        assert_eq!(words.get(1), Some(&0x0001_0300));
    }
}
