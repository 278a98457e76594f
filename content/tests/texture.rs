//! Texture decoding (issue 19, item 1): JPEG beside PNG, hostile headers refused before
//! anything is allocated, and the fixtures' embedded textures (CesiumMilkTruck's JPEG,
//! Duck's PNG) read as models carry them.

mod support;

use std::path::PathBuf;

use dh_content::texture::{decode, identify, Identified, ImageError, ImageFormat, MAX_EDGE};

fn corpus(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus/image")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn near(a: &[u8], b: [u8; 4], tol: i32, what: &str) {
    assert!(
        a.iter()
            .zip(b)
            .all(|(&x, y)| (i32::from(x) - i32::from(y)).abs() <= tol),
        "{what}: {a:?}, expected {b:?} within {tol}"
    );
}

/// The corpus's color.jpg: a 16 × 8 baseline JPEG (4:4:4), red on the left half and blue on
/// the right, written by a small encoder of ours. Regression: a JPEG base colour was "not a
/// readable PNG" and drew white.
#[test]
fn a_baseline_jpeg_decodes_to_its_colours() {
    let bytes = corpus("color.jpg");
    assert_eq!(
        identify("t/color.jpg", &bytes),
        Identified::Texture(ImageFormat::Jpeg)
    );
    let img = decode("t/color.jpg", &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (img.width, img.height, img.format),
        (16, 8, ImageFormat::Jpeg)
    );
    assert_eq!(img.rgba.len(), 16 * 8 * 4);
    // Away from the edge between the halves, where the lossy blocks ring.
    for y in 0..8 {
        let at = |x: usize| &img.rgba[(y * 16 + x) * 4..][..4];
        near(at(2), [220, 30, 30, 255], 12, "left");
        near(at(13), [30, 40, 220, 255], 12, "right");
    }
    // A grey JPEG expands to RGBA with equal channels.
    let gray = decode("t/gray.jpg", &corpus("gray.jpg")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((gray.width, gray.height), (8, 8));
    for x in 0..8usize {
        let v = (x * 32) as u8;
        near(&gray.rgba[x * 4..][..4], [v, v, v, 255], 10, "gray ramp");
    }
}

#[test]
fn hostile_and_broken_images_are_refused_with_reasons() {
    // Headers claiming a huge image: refused from the header, before the texels.
    assert_eq!(
        decode("t/a.jpg", &corpus("huge_header.jpg")).map(|_| ()),
        Err(ImageError::Size {
            format: ImageFormat::Jpeg,
            width: 65500,
            height: 65500
        })
    );
    let e = decode("t/a.png", &corpus("huge_header.png")).unwrap_err();
    assert_eq!(
        e,
        ImageError::Size {
            format: ImageFormat::Png,
            width: 100000,
            height: 100000
        }
    );
    assert_eq!(
        e.to_string(),
        format!("a PNG of 100000x100000 pixels: each edge must be 1 to {MAX_EDGE}")
    );
    // Cut short, or a zero height: a decode error naming the format.
    for name in ["truncated.jpg", "zero_height.jpg"] {
        let e = decode("t/a.jpg", &corpus(name)).unwrap_err();
        assert!(
            e.to_string().starts_with("not a readable JPEG: ")
                || matches!(e, ImageError::Size { .. }),
            "{name}: {e}"
        );
    }
    assert_eq!(
        decode("t/x.png", &corpus("glb_magic.bin"))
            .unwrap_err()
            .to_string(),
        "a GLB model (glTF binary), not an image (a texture is a PNG or a JPEG)"
    );
    // 16-bit grey strips to 8.
    let g = decode("t/g.png", &corpus("gray16.png")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.rgba, vec![0x12, 0x12, 0x12, 255, 255, 255, 255, 255]);
}

/// The image of a fixture GLB's first texture, read out of its binary chunk.
fn embedded_image(glb: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/gltf")
        .join(glb);
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipping: {} is absent", path.display());
        return None;
    };
    let g = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let blob = g
        .blob
        .as_deref()
        .unwrap_or_else(|| panic!("{glb}: no BIN chunk"));
    let image = g
        .images()
        .next()
        .unwrap_or_else(|| panic!("{glb}: no image"));
    let gltf::image::Source::View { view, .. } = image.source() else {
        panic!("{glb}: the image is not in a buffer view");
    };
    Some(blob[view.offset()..view.offset() + view.length()].to_vec())
}

#[test]
fn the_fixtures_embedded_textures_decode() {
    let Some(truck) = embedded_image("CesiumMilkTruck.glb") else {
        return;
    };
    let img = decode("CesiumMilkTruck.jpg", &truck).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(img.format, ImageFormat::Jpeg);
    assert!(
        img.width >= 256 && img.height >= 256,
        "{}x{}",
        img.width,
        img.height
    );
    // Not one flat colour: the truck's atlas has its paint, its lettering and its wheels.
    let first = &img.rgba[..4];
    assert!(img.rgba.chunks_exact(4).any(|p| p != first));
    assert!(img.rgba.chunks_exact(4).all(|p| p[3] == 255));
    if let Some(duck) = embedded_image("Duck.glb") {
        let img = decode("Duck.png", &duck).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (img.width, img.height, img.format),
            (512, 512, ImageFormat::Png)
        );
    }
}

/// Regression: a material whose `baseColor` named a JPEG built and then drew white, and one
/// naming a `.glb` built silently. Every texture a material names is decoded at build: a
/// readable PNG or JPEG passes; anything else is an error naming the file and what it is.
#[test]
fn every_texture_a_material_names_is_checked_at_build() {
    let glb = support::glb(r#"{"asset":{"version":"2.0"}}"#, &[]);
    let jpeg = corpus("color.jpg");
    let cut = corpus("truncated.jpg");
    let exr = [0x76u8, 0x2F, 0x31, 0x01, 2, 0, 0, 0];
    let mat = |base: &str| format!(r#"{{ "shader": "lit", "baseColor": "{base}" }}"#);
    let p = support::Pallet::with_files(
        "textures-at-build",
        &[
            ("textures/ok.jpg", jpeg.clone()),
            ("textures/cut.jpg", cut),
            ("textures/sky.exr", exr.to_vec()),
            ("meshes/truck.glb", glb),
            (
                "materials/ok.dh-mat",
                mat("../textures/ok.jpg").into_bytes(),
            ),
            (
                "materials/cut.dh-mat",
                mat("../textures/cut.jpg").into_bytes(),
            ),
            (
                "materials/exr.dh-mat",
                mat("/textures/sky.exr").into_bytes(),
            ),
            (
                "materials/glb.dh-mat",
                mat("../meshes/truck.glb").into_bytes(),
            ),
            (
                "materials/self.dh-mat",
                r#"{ "shader": "lit", "emissiveTexture": "ok.dh-mat" }"#
                    .as_bytes()
                    .to_vec(),
            ),
        ],
    );
    let out = p.check();
    let lines: Vec<String> = out
        .diagnostics
        .items
        .iter()
        .map(|d| d.to_string())
        .collect();
    let want = [
        "materials/cut.dh-mat:1:33: error: baseColor: 'baseColor': '../textures/cut.jpg' is not a readable JPEG",
        "materials/exr.dh-mat:1:33: error: baseColor: 'baseColor': '/textures/sky.exr' is an OpenEXR image, which the engine does not read as a texture (it reads PNG and JPEG)",
        "materials/glb.dh-mat:1:33: error: baseColor: 'baseColor': '../meshes/truck.glb' is a GLB model (glTF binary), not an image (a texture is a PNG or a JPEG)",
        "materials/self.dh-mat:1:39: error: emissiveTexture: 'emissiveTexture': 'ok.dh-mat' is a DigitalHeaven JSON asset, not an image (a texture is a PNG or a JPEG)",
    ];
    assert_eq!(lines.len(), want.len(), "{lines:#?}");
    for (line, want) in lines.iter().zip(want) {
        assert!(
            line.starts_with(want),
            "{line}\nexpected it to start\n{want}"
        );
    }
    // The readable JPEG alone builds.
    let ok = support::Pallet::with_files(
        "textures-at-build-ok",
        &[
            ("textures/ok.jpg", jpeg),
            (
                "materials/ok.dh-mat",
                mat("../textures/ok.jpg").into_bytes(),
            ),
        ],
    );
    let out = ok.build();
    assert!(!out.diagnostics.has_errors(), "{}", out.diagnostics);
    assert!(out.pallet.is_some());
}
