//! The load log's lines about what a map asks for that this run does not do: the members
//! the renderer cannot draw yet (spec `dh.map`: sky image, GI volume, backdrop, water
//! surfaces, reflection probes, light probes, the lightmap), and client-simulated props,
//! which a single process runs in its one world. Each says so once per map, naming the
//! member, so nothing is ignored silently. Also the map's thumbnail companion: a stale or
//! unreadable one costs the picture and nothing else, said once (runtime assets, "A map's
//! thumbnail").

use dh_content::schema::components::geometry::PhysicsSim;
use dh_content::schema::map::Map;
use dh_sims::{LightProbeGroup, LightProbeVolume, PhysicsProp, ReflectionProbe, SimWorld};

use crate::catalog::{Catalog, Found};

/// The names of the records (and parts) carrying component `T`, in install order.
fn named_with<T: hecs::Component + Clone>(
    sim: &SimWorld,
    keep: impl Fn(&T) -> bool,
) -> Vec<String> {
    sim.records()
        .iter()
        .chain(sim.parts())
        .filter(|e| sim.get::<T>(**e).is_some_and(|c| keep(&c)))
        .map(|e| sim.name_of(*e).unwrap_or_else(|| "(unnamed)".into()))
        .collect()
}

/// The load log's lines for map `barcode` (installed as `sim`, its materials read from
/// `catalog`): one per member the renderer does not draw yet, then one for its
/// client-simulated props, each at most once.
pub fn map_notes(barcode: &str, map: &Map, sim: &SimWorld, catalog: &Catalog) -> Vec<String> {
    let mut notes = Vec::new();
    let mut not_drawn = |member: &str, detail: String| {
        notes.push(format!("map {barcode}: {member} is not drawn yet{detail}"));
    };
    if let Some(lighting) = &map.lighting {
        if lighting.sky_image.is_some() {
            not_drawn(
                "lighting.skyImage",
                "; the procedural sky draws in its place".into(),
            );
        }
        if lighting.gi_volume.as_ref().is_some_and(|g| g.enabled()) {
            not_drawn(
                "lighting.giVolume",
                "; the ambient fill lights the map".into(),
            );
        }
        if lighting.lightmap_enabled() {
            not_drawn(
                "lighting.lightmap",
                "; baked light is not applied and every light draws realtime".into(),
            );
        }
    }
    if map.backdrop.is_some() {
        not_drawn("backdrop", String::new());
    }
    let list = |names: Vec<String>| format!(" ({})", names.join(", "));
    let water: Vec<String> = sim
        .materials()
        .references
        .iter()
        .filter(|r| {
            catalog
                .object_json(r)
                .is_ok_and(|json| json.get("water").is_some())
        })
        .cloned()
        .collect();
    if !water.is_empty() {
        not_drawn(
            "a water surface",
            format!(
                "; its faces draw as the material's plain surface{}",
                list(water)
            ),
        );
    }
    let reflection = named_with::<ReflectionProbe>(sim, |_| true);
    if !reflection.is_empty() {
        not_drawn("dh.reflectionProbe", list(reflection));
    }
    let mut probes = named_with::<LightProbeVolume>(sim, |_| true);
    probes.extend(named_with::<LightProbeGroup>(sim, |_| true));
    if !probes.is_empty() {
        not_drawn("a light probe", list(probes));
    }
    let client = named_with::<PhysicsProp>(sim, |p| p.sim == PhysicsSim::Client);
    if !client.is_empty() {
        notes.push(format!(
            "map {barcode}: props with \"sim\": \"client\" are simulated locally: one process runs one world, so they have no server copy{}",
            list(client)
        ));
    }
    notes
}

/// `message` (a load-time error about map `map`) with every record it names by index
/// (`Map entity #3`, as the installer words it) named by its `name` as well: `Map entity
/// #3 (objects[3] "door")`, the form the build's diagnostics take (issue 19 item 2). A
/// record with no name, or one the message already names (`Map entity #3 ('door')`), is
/// left as it is.
pub fn name_records(message: &str, map: &Map) -> String {
    const MARK: &str = "entity #";
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at + MARK.len() + digits]);
        rest = &after[digits..];
        let Ok(index) = after[..digits].parse::<usize>() else {
            continue;
        };
        if rest.starts_with(" ('") || rest.starts_with(" (objects[") {
            continue;
        }
        if let Some(name) = map
            .objects
            .get(index)
            .and_then(|r| r.name())
            .filter(|n| !n.is_empty())
        {
            let mut quoted = String::new();
            dh_content::jsonc::write_string(name, &mut quoted);
            out.push_str(&format!(" (objects[{index}] {quoted})"));
        }
    }
    out.push_str(rest);
    out
}

/// The load log's line about map `found`'s thumbnail companion (`<map>.dh-mapthumb`), if
/// it has one that does not read for this map: an older format version, a hash from
/// another version of the map, bytes no decoder accepts. The picture is dropped and the map
/// opens (runtime assets, "A map's thumbnail"); a missing companion is silent.
pub fn thumbnail_note(catalog: &Catalog, found: &Found) -> Option<String> {
    let pallet = catalog.pallet(&found.pallet)?;
    let path = dh_content::thumbnail::companion_path(&found.path);
    let bytes = pallet.read(&path).ok()?;
    let document = catalog.read(found).ok()?;
    let file = format!("{}:{path}", found.pallet);
    dh_content::thumbnail::read_for_map(&bytes, &file, &document)
        .err()
        .map(|e| format!("map {}: its thumbnail is not shown: {e}", found.barcode()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dh_content::pallet::{CodecChoice, EntryMeta, Manifest, Pallet, PalletWriter};
    use dh_content::thumbnail;

    const MAP: &str = "maps/a.dh-map";
    const DOC: &[u8] = b"{\"$type\": \"map\"}";

    /// A catalog holding one pallet with the map document `DOC` and, when given, a
    /// companion of `companion` bytes.
    fn catalog(companion: Option<Vec<u8>>) -> (Catalog, Found) {
        let mut w = PalletWriter::new(Manifest::new("dev.thumbs", "Thumbs", "1.0.0")).unwrap();
        let meta = || EntryMeta::mime("application/json");
        w.add(MAP, DOC.to_vec(), meta(), CodecChoice::Stored)
            .unwrap();
        if let Some(bytes) = companion {
            w.add(
                &thumbnail::companion_path(MAP),
                bytes,
                EntryMeta::mime("application/octet-stream"),
                CodecChoice::Stored,
            )
            .unwrap();
        }
        let mut c = Catalog::with_core().unwrap();
        c.mount(Pallet::from_bytes(w.finish().unwrap()).unwrap(), "test")
            .unwrap();
        let found = Found {
            pallet: "dev.thumbs".into(),
            path: MAP.into(),
        };
        (c, found)
    }

    fn png() -> Vec<u8> {
        let boxes = [thumbnail::PlanBox {
            center: glam::DVec3::ZERO,
            half: [glam::DVec3::X, glam::DVec3::Y, glam::DVec3::Z],
            material: "m".into(),
        }];
        thumbnail::draw_plan(&boxes, [16, 16])
    }

    #[test]
    fn a_missing_or_current_thumbnail_says_nothing() {
        let (c, f) = catalog(None);
        assert_eq!(thumbnail_note(&c, &f), None);
        let fresh = thumbnail::encode(&png(), &thumbnail::map_hash(DOC)).unwrap();
        let (c, f) = catalog(Some(fresh));
        assert_eq!(thumbnail_note(&c, &f), None);
    }

    #[test]
    fn a_stale_or_unreadable_thumbnail_is_dropped_with_one_line() {
        let stale = thumbnail::encode(&png(), &thumbnail::map_hash(b"another map")).unwrap();
        let (c, f) = catalog(Some(stale));
        let line = thumbnail_note(&c, &f).expect("a stale picture is said");
        assert!(
            line.starts_with("map dev.thumbs:maps/a.dh-map: its thumbnail is not shown: dev.thumbs:maps/a.dh-map.dh-mapthumb: stale"),
            "{line}"
        );
        let (c, f) = catalog(Some(vec![b'x'; 64]));
        let line = thumbnail_note(&c, &f).expect("an unreadable picture is said");
        assert!(line.contains("the magic is not DHMTHUMB"), "{line}");
    }
}
