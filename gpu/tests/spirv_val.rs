//! Every shader build.rs compiled passes `spirv-val` for Vulkan 1.3.

use std::process::Command;

use dh_gpu::shaders;

#[test]
fn every_compiled_shader_passes_spirv_val() {
    let version = Command::new("spirv-val").arg("--version").output();
    if version.is_err() {
        panic!(
            "spirv-val is not installed; install the package spirv-tools (scripts/setup.sh does)"
        );
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spirv-val");
    std::fs::create_dir_all(&dir).expect("temp dir");
    assert!(!shaders::ALL.is_empty());
    let mut failures = Vec::new();
    for shader in shaders::ALL {
        let path = dir.join(format!("{}.spv", shader.name));
        std::fs::write(&path, shader.spirv).expect("write spv");
        let out = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(&path)
            .output()
            .expect("run spirv-val");
        if !out.status.success() {
            failures.push(format!(
                "{}: {}{}",
                shader.name,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "spirv-val failed:\n{}",
        failures.join("\n")
    );
}
