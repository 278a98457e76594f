//! Compiles every `shaders/*.wgsl` to SPIR-V with naga and writes a table of them.
//!
//! Output: `$OUT_DIR/shaders/NAME.spv` per shader and `$OUT_DIR/shaders.rs`, which
//! `src/shaders.rs` includes: one `pub const NAME: Shader` per file (the file stem
//! upper-cased) and `ALL`, every shader in file-name order.
//!
//! Options are explicit so a naga upgrade cannot change the output silently:
//! SPIR-V 1.3 (lavapipe and every Vulkan 1.1+ device take it), no Y flip (the
//! renderer's projections already target Vulkan's clip space), no debug info, no
//! varying labels, no invented bindings, no bounds-check or loop-bound polyfills
//! (shaders are ours and index only what they own). Push constants are spelled
//! `var<immediate>` in naga 28's WGSL.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let shader_dir = Path::new(&manifest).join("shaders");
    println!("cargo:rerun-if-changed={}", shader_dir.display());

    let mut files: Vec<PathBuf> = std::fs::read_dir(&shader_dir)
        .map_err(|e| format!("{}: {e}", shader_dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();

    let spv_dir = out_dir.join("shaders");
    std::fs::create_dir_all(&spv_dir).map_err(|e| format!("{}: {e}", spv_dir.display()))?;

    let mut table = String::new();
    let mut all = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: file name is not UTF-8", path.display()))?;
        let ident = const_name(stem)?;
        let source =
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (words, entry_points) = match compile(path, &source) {
            Ok(result) => result,
            Err(message) => {
                failures.push(message);
                continue;
            }
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let spv_path = spv_dir.join(format!("{stem}.spv"));
        write_new(&spv_path, &bytes)?;

        let mut entries = String::new();
        for (name, stage) in &entry_points {
            let _ = write!(entries, "(\"{name}\", ShaderStage::{stage}), ");
        }
        let _ = writeln!(
            table,
            "/// `shaders/{stem}.wgsl` compiled to SPIR-V 1.3.\n\
             pub const {ident}: Shader = Shader {{\n    \
             name: \"{stem}\",\n    \
             spirv: include_bytes!({spv:?}),\n    \
             entry_points: &[{entries}],\n}};\n",
            spv = spv_path.display().to_string(),
        );
        all.push(ident);
    }
    if !failures.is_empty() {
        return Err(failures.join("\n\n"));
    }
    let _ = writeln!(
        table,
        "/// Every compiled shader, in file-name order.\npub const ALL: &[Shader] = &[{}];",
        all.join(", ")
    );
    let table_path = out_dir.join("shaders.rs");
    write_new(&table_path, table.as_bytes())
}

/// Writes `bytes` to a fresh file renamed over `path`, so an output hard-linked into another
/// target directory (a worktree sharing a build) is replaced rather than rewritten in place
/// under the other build's feet.
fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The constant's name for a file stem: `fullscreen_test` -> `FULLSCREEN_TEST`.
fn const_name(stem: &str) -> Result<String, String> {
    let ok = stem.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(stem.to_ascii_uppercase())
    } else {
        Err(format!(
            "shaders/{stem}.wgsl: a shader's file stem must be [A-Za-z][A-Za-z0-9_]*"
        ))
    }
}

type Compiled = (Vec<u32>, Vec<(String, &'static str)>);

fn compile(path: &Path, source: &str) -> Result<Compiled, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| e.emit_to_string_with_path(source, path))?;
    // `var<immediate>` is naga 28's spelling of a push-constant block.
    let capabilities = naga::valid::Capabilities::IMMEDIATES
        | naga::valid::Capabilities::CLIP_DISTANCE
        | naga::valid::Capabilities::MULTIVIEW
        | naga::valid::Capabilities::CUBE_ARRAY_TEXTURES
        | naga::valid::Capabilities::DUAL_SOURCE_BLENDING;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .map_err(|e| e.emit_to_string_with_path(source, &path.display().to_string()))?;

    let unchecked = naga::proc::BoundsCheckPolicy::Unchecked;
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        // No ADJUST_COORDINATE_SPACE (Y flip), no DEBUG, no LABEL_VARYINGS.
        flags: naga::back::spv::WriterFlags::empty(),
        // No binding map: @group(g) @binding(b) become descriptor set g, binding b.
        fake_missing_bindings: true,
        binding_map: Default::default(),
        // Any capability the module needs; spirv-val checks against Vulkan 1.3.
        capabilities: None,
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: unchecked,
            buffer: unchecked,
            image_load: unchecked,
            binding_array: unchecked,
        },
        // Shaders initialise the workgroup memory they read.
        zero_initialize_workgroup_memory: naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        ray_query_initialization_tracking: false,
        use_storage_input_output_16: false,
        debug_info: None,
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, None)
        .map_err(|e| format!("{}: SPIR-V output failed: {e}", path.display()))?;

    let entry_points = module
        .entry_points
        .iter()
        .map(|ep| {
            let stage = match ep.stage {
                naga::ShaderStage::Vertex => "Vertex",
                naga::ShaderStage::Fragment => "Fragment",
                naga::ShaderStage::Compute => "Compute",
                _ => "Other",
            };
            (ep.name.clone(), stage)
        })
        .collect();
    Ok((words, entry_points))
}
