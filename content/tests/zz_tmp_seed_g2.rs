#[test]
fn seed() {
    use dh_content::gltf::{import_glb, write_glb};
    for (src, dst) in [("skinned.glb", "written_skinned.glb"), ("triangle.glb", "written_triangle.glb")] {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/glb");
        let b = std::fs::read(dir.join(src)).unwrap();
        let m = import_glb(&b, src).unwrap();
        std::fs::write(dir.join(dst), write_glb(&m).unwrap()).unwrap();
    }
}
