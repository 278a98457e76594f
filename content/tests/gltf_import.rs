#[test]
fn smoke() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/gltf");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        let b = std::fs::read(&f).unwrap();
        for purpose in [dh_content::gltf::Purpose::Map, dh_content::gltf::Purpose::Object] {
            let opts = dh_content::gltf::ImportOptions { purpose, ..Default::default() };
            match dh_content::gltf::import_glb_with(&b, &f.file_name().unwrap().to_string_lossy(), &opts) {
                Ok(m) => {
                    println!("{:?} {purpose:?}: nodes {} meshes {} tris {} slots {:?}", f.file_name().unwrap(), m.nodes.len(), m.meshes.len(), m.triangle_count(), m.material_slots());
                    for w in &m.warnings { println!("   warn: {w}"); }
                    for l in dh_content::gltf::geometry_report(Ok(&m), &Default::default()) { println!("   report: {l:?}"); }
                }
                Err(e) => println!("{:?} {purpose:?}: ERR {e}", f.file_name().unwrap()),
            }
        }
    }
}
