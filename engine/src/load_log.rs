//! The load log's lines about what a map asks for that this run does not do: the members
//! the renderer cannot draw yet (spec `dh.map`: sky image, GI volume, backdrop, water
//! surfaces, reflection probes, light probes, the lightmap), and client-simulated props,
//! which a single process runs in its one world. Each says so once per map, naming the
//! member, so nothing is ignored silently.

use dh_content::schema::components::geometry::PhysicsSim;
use dh_content::schema::map::Map;
use dh_sims::{LightProbeGroup, LightProbeVolume, PhysicsProp, ReflectionProbe, SimWorld};

use crate::catalog::Catalog;

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
