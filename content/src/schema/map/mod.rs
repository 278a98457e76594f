//! The dh.map source (`.dh-map`): every top-level member with its closed blocks, the rules
//! the spec states for them, and the entry points that read and validate a whole map file.
//!
//! * [`read_map`] parses a source and reads it into a [`Map`], reporting shape errors
//!   (JSON types, unknown members naming the block and its field set, unknown tokens);
//! * [`validate_map`] runs the build-time rules on the typed map: this module's rules for
//!   the top-level members (`materials`, `look`, `hullOptions`, `lighting`, `render`,
//!   `backdrop`), then the map-wide record rules of [`map_rules`](super::map_rules).
//!
//! Beside a compiled map whose `dh.voxelVolume` records place containers of a platform,
//! the build writes `<map path>.platforms` (ours: the spec's "The server's pallet rules"
//! names what the server records beside the map's dependencies, not where): a JSON object
//! with one member per platform, `{ "version", "blocks" }` of the platform pallet the
//! build mounted (its manifest version and its `blocks.fingerprint`), or `null` where the
//! build had none, so the server's blocks are whole cubes. The engine compares it with
//! its own platform pallet at load. See [`crate::compile::platforms`].

pub mod backdrop;
mod check;
pub mod collision;
pub mod lighting;
pub mod render;
pub mod sky_image;

pub use backdrop::{Backdrop, BackdropFog};
pub use collision::{AutoCollision, HullOptions};
pub use lighting::{
    AmbientMode, BakeSet, BakeSetEmission, BakeSetLight, BakeSun, BakeZone, GiVolume, LightFalloff,
    Lighting, Lightmap, LightmapOrigin, SkyImage,
};
pub use render::{
    classify_look, BuiltinLook, Hable, HableCurve, LookRef, LookSeed, Render, Tonemap,
};

use super::components::light::LightMode;
use super::components::MapComponent;
use super::map_rules::{self, BakeZoneInfo, MapInfo};
use super::records::Record;
use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::{Member, Value};
use crate::read::{
    member, parse_source, unknown_member_message, At, Block, Cx, FromJson, Mode, ObjReader, Table,
    ToJson,
};

tokens! {
    /// A map's `$type`: only `dh.map` (the compiler adds it; a source need not write it).
    pub enum MapType as "map $type" {
        /// `dh.map`
        #[default]
        Map = "dh.map",
    }
}

/// The extension of a dh.material reference, which every material slot must name.
pub const MATERIAL_EXTENSION: &str = ".dh-mat";

/// A dh.map: the map's top-level members. Every block inside is closed.
#[derive(Debug, Clone, Default)]
pub struct Map {
    /// `$type`: `"dh.map"` when written (optional in a source).
    pub type_id: Option<MapType>,
    /// `name`: the display name.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `inherits`: another dh.map this map reads its look, blocks and records from, by
    /// barcode.
    pub inherits: Option<String>,
    /// `look`: a built-in look's slug or a reference to a dh.look asset.
    pub look: Option<String>,
    /// `materials`: glTF material slot name → dh.material reference.
    pub materials: Option<Table<String>>,
    /// `autoCollision` (default `"mesh"`).
    pub auto_collision: Option<AutoCollision>,
    /// `hullOptions`: tuning for `autoCollision: "hulls"`.
    pub hull_options: Option<HullOptions>,
    /// `lighting`: what the map is lit by.
    pub lighting: Option<Lighting>,
    /// `render`: how the light resolves to the screen.
    pub render: Option<Render>,
    /// `backdrop`: a scene drawn behind the world.
    pub backdrop: Option<Backdrop>,
    /// `objects`: the map's records.
    pub objects: Vec<Record>,
    /// Where the map was read from.
    pub at: At,
}

/// The member a map no longer has: collision is the `dh.collider` component.
const RETIRED_COLLIDERS: &str = "colliders";

impl Block for Map {
    const BLOCK: &'static str = "dh.map";
    const FIELDS: &'static [&'static str] = &[
        "$type",
        "name",
        "description",
        "inherits",
        "look",
        "materials",
        "autoCollision",
        "hullOptions",
        "lighting",
        "render",
        "backdrop",
        "objects",
    ];

    fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self {
        Map {
            type_id: o.opt(cx, "$type"),
            name: o.opt(cx, "name"),
            description: o.opt(cx, "description"),
            inherits: o.opt(cx, "inherits"),
            look: o.opt(cx, "look"),
            materials: o.opt(cx, "materials"),
            auto_collision: o.opt(cx, "autoCollision"),
            hull_options: o.opt(cx, "hullOptions"),
            lighting: o.opt(cx, "lighting"),
            render: o.opt(cx, "render"),
            backdrop: o.opt(cx, "backdrop"),
            objects: o.list(cx, "objects"),
            at: o.at(),
        }
    }

    fn write_fields(&self, out: &mut Vec<Member>) {
        fn put<T: ToJson>(out: &mut Vec<Member>, key: &str, v: &T) {
            if !v.is_unset() {
                out.push(member(key, v.to_json()));
            }
        }
        put(out, "$type", &self.type_id);
        put(out, "name", &self.name);
        put(out, "description", &self.description);
        put(out, "inherits", &self.inherits);
        put(out, "look", &self.look);
        put(out, "materials", &self.materials);
        put(out, "autoCollision", &self.auto_collision);
        put(out, "hullOptions", &self.hull_options);
        put(out, "lighting", &self.lighting);
        put(out, "render", &self.render);
        put(out, "backdrop", &self.backdrop);
        put(out, "objects", &self.objects);
    }
}

impl FromJson for Map {
    /// Reads a map. A retired map-wide `colliders` list is reported once, naming
    /// `dh.collider`, rather than as a plain unknown member.
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        let colliders = v
            .as_object()
            .and_then(|m| m.iter().find(|m| m.key == RETIRED_COLLIDERS));
        // The retired member is let through the closed-set check (as a tag would be) and
        // reported here with the message the spec asks for.
        let o = ObjReader::open_tagged(
            cx,
            v,
            Self::BLOCK,
            Self::FIELDS,
            colliders.map(|_| RETIRED_COLLIDERS),
        )?;
        if let Some(c) = colliders {
            cx.error(
                c.key_span,
                format!(
                    "{}; there is no map-wide colliders list: collision is the dh.collider component, in the components of a part override, a boxBrush or an object record",
                    unknown_member_message(Self::BLOCK, RETIRED_COLLIDERS, Self::FIELDS)
                ),
            );
        }
        let map = Self::read_fields(cx, &o);
        o.finish(cx);
        Some(map)
    }
}

impl ToJson for Map {
    fn to_json(&self) -> Value {
        crate::read::write_block(self)
    }
}

impl Map {
    /// Every member of a map, in the order the [`Map::FIELDS`](Block::FIELDS) table lists
    /// them: what the inheritance fold's rules table must cover.
    pub const MEMBERS: &'static [&'static str] = <Map as Block>::FIELDS;

    /// `autoCollision`, or its default `"mesh"`.
    pub fn auto_collision(&self) -> AutoCollision {
        self.auto_collision.unwrap_or(AutoCollision::DEFAULT)
    }

    /// Whether the map asks for an enabled lightmap (`lighting.lightmap.enabled: true`).
    /// A `dh.light` with `mode: baked` needs this.
    pub fn lightmap_enabled(&self) -> bool {
        self.lighting
            .as_ref()
            .is_some_and(Lighting::lightmap_enabled)
    }

    /// The material slot names (the keys of `materials`), in written order.
    pub fn material_slots(&self) -> Vec<String> {
        self.materials
            .iter()
            .flat_map(|t| t.entries.iter().map(|e| e.0.clone()))
            .collect()
    }

    /// Whether `slot` is a key of `materials`.
    pub fn has_material_slot(&self, slot: &str) -> bool {
        self.materials
            .as_ref()
            .is_some_and(|t| t.get(slot).is_some())
    }

    /// The ids of `lighting.bakeZones`, in written order.
    pub fn bake_zone_ids(&self) -> Vec<&str> {
        self.lighting
            .iter()
            .flat_map(|l| l.bake_zones.iter().map(|z| z.id.as_str()))
            .collect()
    }

    /// Whether zone `zone` has a set named `set` (`default`, the authored state, always
    /// exists in a declared zone).
    pub fn has_bake_set(&self, zone: &str, set: &str) -> bool {
        self.lighting
            .as_ref()
            .and_then(|l| l.bake_zone(zone))
            .is_some_and(|z| set == BakeSet::DEFAULT_NAME || z.sets.iter().any(|s| s.name == set))
    }

    /// What the record rules need to know about the map's other members: its material
    /// slots, whether its lightmap is enabled and its bake zones with their sets. The
    /// resolved components of object placements' sources are the compiler's to add.
    pub fn map_info(&self) -> MapInfo {
        MapInfo {
            material_slots: self.material_slots(),
            lightmap_enabled: self.lightmap_enabled(),
            bake_zones: self
                .lighting
                .iter()
                .flat_map(|l| l.bake_zones.iter())
                .map(|z| BakeZoneInfo {
                    id: z.id.clone(),
                    sets: z.sets.iter().map(|s| s.name.clone()).collect(),
                })
                .collect(),
            source_root_components: Vec::new(),
            inherited: Vec::new(),
            chain_open: false,
        }
    }

    /// What the map's `look` names, if it names one.
    pub fn look_ref(&self) -> Option<LookRef<'_>> {
        self.look.as_deref().map(classify_look)
    }

    /// The top-level members' rules (see [`validate_map`]).
    pub fn validate_members(&self, cx: &mut Cx) {
        self.validate_members_with(cx, &MapInfo::default());
    }

    /// [`Map::validate_members`] in a map that inherits: the records of `info`'s chain
    /// ([`MapInfo::inherited`]) count for what a top-level block names by id (a backdrop's
    /// folder, a bake set's light).
    pub fn validate_members_with(&self, cx: &mut Cx, info: &MapInfo) {
        let at = &self.at;
        if let Some(t) = &self.materials {
            for (slot, key_span, reference) in &t.entries {
                if !reference.ends_with(MATERIAL_EXTENSION) {
                    let path = at.field_path("materials");
                    let msg = format!(
                        "material slot '{slot}' must reference a dh.material asset ({MATERIAL_EXTENSION}), found '{reference}': a slot value that does not resolve to a dh.material is a compile error (the raw texture shorthand was removed); author a .dh-mat, even a one-line lit material with just a baseColor, and point the slot at it"
                    );
                    cx.at_path(&path, |cx| cx.error(*key_span, msg));
                }
            }
        }
        if let Some(look) = &self.look {
            if classify_look(look) == LookRef::Unknown {
                cx.error_at(at, at.field("look"), render::unknown_look_message(look));
            }
        }
        if let Some(h) = &self.hull_options {
            h.validate(cx);
        }
        if let Some(l) = &self.lighting {
            l.validate(cx);
        }
        if let Some(r) = &self.render {
            r.validate(cx);
        }
        if let Some(b) = &self.backdrop {
            b.validate(cx);
        }
        self.validate_against_records(cx, info);
    }

    /// The rules of the top-level blocks that read the records: `backdrop.folder` names a
    /// folder record, and each key of a bake set's `lights` names a light entity (an error)
    /// that is baked (a realtime one is a warning, "because a set changes only what is
    /// baked").
    fn validate_against_records(&self, cx: &mut Cx, info: &MapInfo) {
        if let Some(b) = &self.backdrop {
            if let Some(folder) = b.folder.filter(|f| !f.is_nil()) {
                let kind = info
                    .inherited
                    .iter()
                    .chain(&self.objects)
                    .find(|r| r.id() == Some(folder))
                    .map(Record::kind);
                // ours: with the chain cut short, the folder may be the unseen parent's.
                let unseen = kind.is_none() && info.chain_open;
                if kind != Some("folder") && !unseen {
                    let found = match kind {
                        Some(k) => format!("it names a {k} record"),
                        None => "no record has that id".to_string(),
                    };
                    cx.error_at(
                        &b.at,
                        b.at.field("folder"),
                        format!("backdrop.folder '{folder}' names no folder record: {found}"),
                    );
                }
            }
        }
        let Some(lighting) = &self.lighting else {
            return;
        };
        for zone in &lighting.bake_zones {
            for set in &zone.sets {
                let Some(lights) = &set.lights else { continue };
                for (key, key_span, _) in &lights.entries {
                    let path = set.at.field_path("lights");
                    match self.light_mode_of(key, &info.inherited) {
                        None if info.chain_open => {}
                        None => {
                            let msg = format!(
                                "bake set '{}' of zone '{}' overrides light '{key}', but no object with that id carries a dh.light",
                                set.name, zone.id
                            );
                            cx.at_path(&path, |cx| cx.error(*key_span, msg));
                        }
                        Some(LightMode::Realtime) => {
                            let msg = format!(
                                "bake set '{}' of zone '{}' overrides light '{key}', which is a realtime light: a set changes only what is baked, so this override does nothing",
                                set.name, zone.id
                            );
                            cx.at_path(&path, |cx| cx.warning(*key_span, msg));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }

    /// The mode of the `dh.light` on the record whose id is written `key`, among the
    /// `inherited` records and the map's own.
    fn light_mode_of(&self, key: &str, inherited: &[Record]) -> Option<LightMode> {
        let id = crate::schema::common::Guid::parse(key)?;
        let record = inherited
            .iter()
            .chain(&self.objects)
            .find(|r| r.id() == Some(id))?;
        record.components().iter().find_map(|c| match c {
            MapComponent::Light(l) => Some(l.mode.unwrap_or_default()),
            _ => None,
        })
    }
}

/// Parses and reads a whole `.dh-map` source: JSONC syntax errors, shape errors, unknown
/// members and unknown tokens go to `diags`. `None` when the text is not JSON at all or its
/// top level is not an object; otherwise the map as far as it could be read (check
/// `diags.has_errors()`).
pub fn read_map(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<Map> {
    let value = parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    Map::from_json(&mut cx, &value)
}

/// Runs every build-time rule on a read map: the top-level members' rules
/// ([`Map::validate_members`]), then the map-wide record rules
/// ([`map_rules::validate_records`]) with what [`Map::map_info`] says about the map.
pub fn validate_map(cx: &mut Cx, map: &Map) {
    validate_map_with(cx, map, &map.map_info());
}

/// [`validate_map`] with the compiler's own [`MapInfo`] (which adds, for each object
/// placement's source, the component types its resolved root carries).
pub fn validate_map_with(cx: &mut Cx, map: &Map, info: &MapInfo) {
    map.validate_members_with(cx, info);
    map_rules::validate_records(cx, &map.objects, info);
}
