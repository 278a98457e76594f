//! Installing a map into a [`SimWorld`]: one entity per record in author order, the
//! hierarchy, every component in its runtime form, the logic nodes by name, object
//! instances resolved through the one merge rule, and the wiring resolved against the
//! signal table.

use std::collections::HashMap;
use std::sync::Arc;

use dh_content::diag::{Diagnostics, SourceFile};
use dh_content::gltf::Model;
use dh_content::jsonc::{Kind, Value};
use dh_content::math as m4;
use dh_content::merge;
use dh_content::read::{FromJson, Mode, ToJson};
use dh_content::refs;
use dh_content::schema::common::{Guid, Vec3 as CVec3};
use dh_content::schema::components::geometry::Shape;
use dh_content::schema::components::logic::{Body as ContentBody, Motion as ContentMotion};
use dh_content::schema::components::signals::{self, CallValue};
use dh_content::schema::components::MapComponent;
use dh_content::schema::map::Map;
use dh_content::schema::object_components::ROOT_TAKES;
use dh_content::schema::records::{Action, Record, SourceKind};
use glam::DMat4;
use hecs::{Entity, EntityBuilder};

use crate::carry::Hierarchy;
use crate::components::*;
use crate::logic::{quantize_ticks, Wire, WireAction, WireCall};
use crate::math::{self, DVec3, Pose, Quat, SpecQuat, Vec3};
use crate::world::{SimWorld, TICK_RATE};

/// What an object placement's source resolves to: the object's root components with its
/// variant chain already folded (the compiled object's `resolved.components`, references
/// rewritten to barcodes). The instance's own components are laid over them here by the
/// one merge rule. An object that places a model also carries what the loader builds its
/// parts from (spec: dh.object; runtime assets, "The object loader").
#[derive(Debug, Clone, Default)]
pub struct ResolvedObject {
    /// The object's barcode (`core:objects/physicsCube.dh-obj`).
    pub barcode: String,
    /// The root's components, as JSON, each `{ "$type": "dh.<noun>", ... }`.
    pub components: Vec<Value>,
    /// The model whose parts are the object's children (a barcode), if it places one.
    pub model: Option<String>,
    /// The root's own position, where the object states one (a placement's own wins).
    pub position: Option<[f64; 3]>,
    /// The root's own rotation, euler degrees.
    pub rotation: Option<[f64; 3]>,
    /// The root's own scale.
    pub scale: Option<[f64; 3]>,
    /// Overrides of the model's parts (`children`), as JSON.
    pub children: Vec<Value>,
    /// The records the object adds (`objects`), as JSON.
    pub objects: Vec<Value>,
}

fn json_list(object: &Value, key: &str) -> Vec<Value> {
    match object.get(key).map(|v| &v.kind) {
        Some(Kind::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

/// `[x, y, z]` of finite numbers; with `uniform`, one number stands for all three.
fn json_v3(v: Option<&Value>, uniform: bool) -> Option<[f64; 3]> {
    let v = v?;
    if let (true, Some(n)) = (uniform, v.as_f64()) {
        return n.is_finite().then_some([n; 3]);
    }
    let items = v.as_array()?;
    if items.len() != 3 {
        return None;
    }
    let mut out = [0.0; 3];
    for (o, i) in out.iter_mut().zip(items) {
        *o = i.as_f64().filter(|n| n.is_finite())?;
    }
    Some(out)
}

impl ResolvedObject {
    /// The resolved root of an object's JSON (a compiled object's `resolved` member, or a
    /// source object with no `inherits`): its `components`, its `model`, its root
    /// transform, its `children` and its `objects`.
    pub fn from_object_json(barcode: impl Into<String>, object: &Value) -> ResolvedObject {
        ResolvedObject {
            barcode: barcode.into(),
            components: json_list(object, "components"),
            model: object
                .get("model")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .map(str::to_string),
            position: json_v3(object.get("position"), false),
            rotation: json_v3(object.get("rotation"), false),
            scale: json_v3(object.get("scale"), true),
            children: json_list(object, "children"),
            objects: json_list(object, "objects"),
        }
    }
}

/// Where the map was read from, so the references it states resolve to barcodes. Left at
/// its default (an empty pallet id), references are kept as written.
#[derive(Debug, Clone, Default)]
pub struct MapContext {
    /// The pallet the map belongs to (`core`).
    pub pallet: String,
    /// The map's pallet-relative path (`maps/logic-map.dh-map`).
    pub path: String,
    /// The pallet's declared dependencies.
    pub dependencies: Vec<String>,
}

impl MapContext {
    /// `reference` as a barcode (`pallet:path`), or as written when the context has no
    /// pallet or the reference does not resolve.
    pub fn barcode(&self, reference: &str) -> String {
        if self.pallet.is_empty() {
            return reference.to_string();
        }
        match refs::resolve(reference, &self.pallet, &self.path, &self.dependencies) {
            Ok(b) => b.to_string(),
            Err(_) => reference.to_string(),
        }
    }
}

/// The installed map's material table: the map's slots in written order, then every asset
/// an object placement's box names that no slot references (resolved where it is placed).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaterialTable {
    /// Slot names (an added asset's name is its reference).
    pub names: Vec<String>,
    /// Each slot's dh.material reference (a barcode when the install knew the pallet).
    pub references: Vec<String>,
}

impl MaterialTable {
    /// The slot named `name`.
    pub fn slot(&self, name: &str) -> Option<MaterialSlot> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| MaterialSlot(i as u16))
    }

    /// The name of `slot`.
    pub fn name(&self, slot: MaterialSlot) -> Option<&str> {
        self.names.get(slot.0 as usize).map(String::as_str)
    }

    /// The slot a material string resolves to: a slot name, else an asset reference matched
    /// against the slots' references, else a new slot for that asset.
    fn resolve(&mut self, material: &str, ctx: &MapContext) -> Result<MaterialSlot, InstallError> {
        if let Some(s) = self.slot(material) {
            return Ok(s);
        }
        let barcode = ctx.barcode(material);
        if let Some(i) = self.references.iter().position(|r| *r == barcode) {
            return Ok(MaterialSlot(i as u16));
        }
        if !(material.contains('/') || material.contains(':')) {
            return Err(InstallError::UnknownMaterial(material.to_string()));
        }
        if self.names.len() >= u16::MAX as usize {
            return Err(InstallError::TooManyMaterials);
        }
        self.names.push(barcode.clone());
        self.references.push(barcode);
        Ok(MaterialSlot((self.names.len() - 1) as u16))
    }
}

/// Why a map could not be installed. A compiled map passed every build rule, so each of
/// these means a map that did not come through the compiler (or a pallet that lacks what
/// the map places).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InstallError {
    /// A record without an id.
    #[error("Map entity #{0} has no id")]
    MissingId(usize),
    /// Two records with one id.
    #[error("Map entity #{second} repeats the id {id} of entity #{first}")]
    DuplicateId {
        /// The id.
        id: Guid,
        /// The first record holding it.
        first: usize,
        /// The second.
        second: usize,
    },
    /// A parent id naming no record.
    #[error("Map entity #{entity} names parent {parent}, which is not a record of the map")]
    UnknownParent {
        /// The record.
        entity: usize,
        /// The id it names.
        parent: Guid,
    },
    /// A parent chain that loops.
    #[error("Map entity #{0}'s parent chain loops back to itself")]
    ParentCycle(usize),
    /// An object placement whose source the resolver does not know.
    #[error("Map entity #{entity} places '{placed}', which no mounted pallet provides")]
    UnresolvedSource {
        /// The record.
        entity: usize,
        /// Its source as written.
        placed: String,
    },
    /// An instance whose source is neither an object nor a model.
    #[error("Map entity #{entity}'s source '{placed}' is neither an object nor a model")]
    UnknownSourceKind {
        /// The record.
        entity: usize,
        /// Its source as written.
        placed: String,
    },
    /// A placed object's merged component that does not read.
    #[error("Map entity #{entity}: a component of its placed object does not read: {message}")]
    BadComponent {
        /// The record.
        entity: usize,
        /// The first reader diagnostic.
        message: String,
    },
    /// A material that is neither a slot nor an asset.
    #[error("material '{0}' is not one of the map's material slots")]
    UnknownMaterial(String),
    /// More materials than slots can index.
    #[error("more than 65535 materials")]
    TooManyMaterials,
    /// A wire whose output or input does not resolve (the build refuses these).
    #[error("Map entity #{entity} ('{name}'): {message}")]
    Wiring {
        /// The record.
        entity: usize,
        /// Its name.
        name: String,
        /// The signal table's message.
        message: String,
    },
    /// More records than an index holds.
    #[error("more than 4294967295 records")]
    TooManyRecords,
    /// A tick rate that is not a positive number.
    #[error("the tick rate must be a number above 0, got {0}")]
    TickRate(f64),
}

/// One record, read for install.
struct Staged {
    kind: RecordKind,
    id: Guid,
    name: Option<String>,
    parent: Option<usize>,
    enabled: bool,
    pose: Pose,
    components: Vec<MapComponent>,
    instance: Option<ObjectInstance>,
    model: Option<ModelInstance>,
    connections: Vec<dh_content::schema::records::Connection>,
    /// An object placement's resolved source, its parts planned once every record is.
    object: Option<ResolvedObject>,
}

fn v3(v: Option<CVec3>, default: DVec3) -> DVec3 {
    v.map_or(default, |v| DVec3::from_array(v.0))
}

fn f3(v: CVec3) -> Vec3 {
    DVec3::from_array(v.0).as_vec3()
}

impl SimWorld {
    /// Installs `map`, resolving each object placement's source through `resolver` (given
    /// the source as written). References are kept as written; see
    /// [`install_in`](SimWorld::install_in) to resolve them to barcodes.
    pub fn install(
        map: &Map,
        resolver: &dyn Fn(&str) -> Option<ResolvedObject>,
    ) -> Result<SimWorld, InstallError> {
        SimWorld::install_in(map, &MapContext::default(), resolver)
    }

    /// Installs `map`, read from `ctx`: references resolve to barcodes, and `resolver` is
    /// given each object placement's source as a barcode.
    pub fn install_in(
        map: &Map,
        ctx: &MapContext,
        resolver: &dyn Fn(&str) -> Option<ResolvedObject>,
    ) -> Result<SimWorld, InstallError> {
        SimWorld::install_at(map, ctx, resolver, TICK_RATE)
    }

    /// Installs `map` like [`install_in`](SimWorld::install_in), ticking `tick_rate` times a
    /// second (`world.tickRate`): delays and timers are quantized up to whole ticks at that
    /// rate, and a mover's duration is that many ticks of it.
    pub fn install_at(
        map: &Map,
        ctx: &MapContext,
        resolver: &dyn Fn(&str) -> Option<ResolvedObject>,
        tick_rate: f64,
    ) -> Result<SimWorld, InstallError> {
        SimWorld::install_with_models(
            map,
            ctx,
            resolver,
            &|_| Err("this install reads no models".to_string()),
            tick_rate,
        )
    }

    /// Installs `map` like [`install_at`](SimWorld::install_at), and installs the model
    /// parts of every object placement whose object places a model (spec: runtime assets,
    /// "The object loader"): `models` gives a model's scene graph by barcode (its nodes,
    /// transforms and material slots; its geometry need not be read, see
    /// `dh_content::gltf::read_scene`), or why it cannot be read. An object whose model
    /// `models` cannot give installs without its parts, with one warning carrying that
    /// reason ([`SimWorld::install_warnings`]).
    pub fn install_with_models(
        map: &Map,
        ctx: &MapContext,
        resolver: &dyn Fn(&str) -> Option<ResolvedObject>,
        models: &dyn Fn(&str) -> Result<Arc<Model>, String>,
        tick_rate: f64,
    ) -> Result<SimWorld, InstallError> {
        if !(tick_rate.is_finite() && tick_rate > 0.0) {
            return Err(InstallError::TickRate(tick_rate));
        }
        if map.objects.len() > u32::MAX as usize {
            return Err(InstallError::TooManyRecords);
        }
        let mut materials = MaterialTable::default();
        if let Some(t) = &map.materials {
            for (name, reference) in t.iter() {
                materials.names.push(name.to_string());
                materials.references.push(ctx.barcode(reference));
            }
        }

        // Ids and parents.
        let mut index_of: HashMap<Guid, usize> = HashMap::new();
        for (i, r) in map.objects.iter().enumerate() {
            let id = r
                .id()
                .filter(|g| !g.is_nil())
                .ok_or(InstallError::MissingId(i))?;
            if let Some(first) = index_of.insert(id, i) {
                return Err(InstallError::DuplicateId {
                    id,
                    first,
                    second: i,
                });
            }
        }
        let mut staged = Vec::with_capacity(map.objects.len());
        for (i, r) in map.objects.iter().enumerate() {
            staged.push(stage(i, r, &index_of, ctx, resolver)?);
        }
        for i in 0..staged.len() {
            let mut at = staged[i].parent;
            let mut steps = 0;
            while let Some(p) = at {
                steps += 1;
                if p == i || steps > staged.len() {
                    return Err(InstallError::ParentCycle(i));
                }
                at = staged[p].parent;
            }
        }

        let mut world = hecs::World::new();
        let records: Vec<Entity> = (0..staged.len()).map(|_| world.reserve_entity()).collect();
        let mut names: HashMap<String, Entity> = HashMap::new();
        let mut nodes: HashMap<String, Entity> = HashMap::new();
        let mut movers_under = vec![false; staged.len()];
        // Whether a mover is on the record or above it.
        for (i, under) in movers_under.iter_mut().enumerate() {
            let mut at = Some(i);
            while let Some(p) = at {
                if staged[p]
                    .components
                    .iter()
                    .any(|c| matches!(c, MapComponent::Mover(_)))
                {
                    *under = true;
                    break;
                }
                at = staged[p].parent;
            }
        }

        let mut lists = crate::world::Lists::default();
        for (i, s) in staged.iter().enumerate() {
            let e = records[i];
            let mut b = EntityBuilder::new();
            b.add(RecordIndex(i as u32));
            b.add(RecordId(s.id));
            b.add(s.kind);
            b.add(LocalTransform(s.pose));
            b.add(WorldTransform(s.pose));
            if let Some(p) = s.parent {
                b.add(Parent(records[p]));
            }
            if !s.enabled {
                b.add(Disabled);
            }
            if let Some(n) = &s.name {
                b.add(Name(n.clone()));
                names.entry(n.clone()).or_insert(e);
            }
            if let Some(inst) = &s.instance {
                b.add(inst.clone());
            }
            if let Some(m) = &s.model {
                b.add(m.clone());
            }
            let types =
                install_components(&mut b, s, &mut materials, ctx, movers_under[i], tick_rate)?;
            if !types.is_empty() {
                if let Some(n) = &s.name {
                    nodes.entry(n.clone()).or_insert(e);
                }
                lists.note(e, &types);
                b.add(LogicNode { types });
            }
            if b.has::<Collider>() && movers_under[i] {
                lists.carried_bodies.push(e);
            }
            world
                .insert(e, b.build())
                .map_err(|_| InstallError::TooManyRecords)?;
        }

        // Wiring, now that every node is named.
        for (i, s) in staged.iter().enumerate() {
            if s.connections.is_empty() || s.kind == RecordKind::ModelInstance {
                continue;
            }
            let e = records[i];
            let src_types: Vec<&'static str> = world
                .get::<&LogicNode>(e)
                .map(|n| n.types.clone())
                .unwrap_or_default();
            let name = s.name.clone().unwrap_or_default();
            let wiring = |message: String| InstallError::Wiring {
                entity: i,
                name: name.clone(),
                message,
            };
            let mut wires = Vec::with_capacity(s.connections.len());
            for c in &s.connections {
                let output = signals::resolve_output(&src_types, &c.output).map_err(&wiring)?;
                let mut actions = Vec::with_capacity(c.actions.len());
                for a in &c.actions {
                    actions.push(match a {
                        Action::Call(call) => {
                            let target_entity = nodes.get(&call.target).copied();
                            let inputs = match target_entity {
                                Some(t) => {
                                    let types: Vec<&'static str> = world
                                        .get::<&LogicNode>(t)
                                        .map(|n| n.types.clone())
                                        .unwrap_or_default();
                                    signals::check_call(
                                        &types,
                                        &call.input,
                                        call.param,
                                        call.value.as_ref(),
                                    )
                                    .map_err(&wiring)?
                                }
                                None => Vec::new(),
                            };
                            WireAction::Call(WireCall {
                                target: call.target.clone(),
                                input: call.input.clone(),
                                target_entity,
                                inputs,
                                param: call.param,
                                value: call.value,
                            })
                        }
                        Action::Delay(d) => WireAction::Delay {
                            seconds: d.seconds,
                            ticks: quantize_ticks(d.seconds, tick_rate),
                        },
                        Action::SetBakeSet(b) => WireAction::SetBakeSet {
                            zone: b.zone.clone(),
                            set: b.set.clone(),
                            fade: b.fade.unwrap_or(0.0),
                        },
                    });
                }
                wires.push(Wire {
                    output,
                    written: c.output.clone(),
                    actions,
                });
            }
            let _ = world.insert_one(e, Connections(Arc::from(wires)));
        }

        // Every model placement's parts, after every record, in part-table order; then
        // every object placement's, numbered on from the compiled tables.
        let mut planned = plan_parts(map, &staged, &index_of, ctx)?;
        let mut objects = ObjectPlan {
            resolver,
            models,
            next_id: planned
                .iter()
                .map(|p| p.part.id.saturating_add(1))
                .max()
                .unwrap_or(0),
            warnings: Vec::new(),
        };
        plan_object_parts(&staged, &movers_under, &mut objects, &mut planned)?;
        let mut parts: Vec<Entity> = Vec::with_capacity(planned.len());
        let mut all = records.clone();
        let mut parents = staged_parents(&staged);
        for p in &planned {
            let e = world.reserve_entity();
            parts.push(e);
            all.push(e);
            parents.push(Some(match p.filed {
                Filed::Record(r) => r,
                Filed::Part(k) => records.len() + k,
            }));
        }
        for (k, p) in planned.iter().enumerate() {
            let e = parts[k];
            let parent = match p.filed {
                Filed::Record(r) => records[r],
                Filed::Part(q) => parts[q],
            };
            let mut b = EntityBuilder::new();
            b.add(ModelPart {
                instance: match p.owner {
                    Some(k) => parts[k],
                    None => records[p.record],
                },
                model: p.model.clone(),
                id: p.part.id,
                slot: p.slot,
                local_id: p.part.local_id,
                object_id: p.part.object_id,
                name: p.staged.name.clone().unwrap_or_default(),
                path: p.part.path.clone().unwrap_or_default(),
                structural: p.part.structural == Some(true),
            });
            b.add(LocalTransform(p.staged.pose));
            b.add(WorldTransform(p.staged.pose));
            b.add(Parent(parent));
            if !p.staged.enabled {
                b.add(Disabled);
            }
            if let Some(r) = &p.renderer {
                b.add(r.clone());
            }
            install_components(&mut b, &p.staged, &mut materials, ctx, p.carried, tick_rate)?;
            if b.has::<Collider>() && p.carried {
                lists.carried_bodies.push(e);
            }
            world
                .insert(e, b.build())
                .map_err(|_| InstallError::TooManyRecords)?;
        }

        let hierarchy = Hierarchy::build(&world, &all, &parents);
        let mut sim = SimWorld::from_parts(
            world, records, names, nodes, materials, hierarchy, lists, tick_rate,
        );
        sim.parts = parts;
        sim.warnings = carried_part_warnings(&staged, &movers_under, map);
        sim.warnings.extend(objects.warnings);
        for zone in map.bake_zone_ids() {
            sim.bake_sets.insert(
                zone.to_string(),
                crate::world::BakeSetState {
                    set: dh_content::schema::map::BakeSet::DEFAULT_NAME.to_string(),
                    fade: 0.0,
                    since_tick: 0,
                },
            );
        }
        sim.resolve_poses(&crate::parallel::Serial);
        Ok(sim)
    }
}

fn staged_parents(staged: &[Staged]) -> Vec<Option<usize>> {
    staged.iter().map(|s| s.parent).collect()
}

fn stage(
    i: usize,
    r: &Record,
    index_of: &HashMap<Guid, usize>,
    ctx: &MapContext,
    resolver: &dyn Fn(&str) -> Option<ResolvedObject>,
) -> Result<Staged, InstallError> {
    let id = r.id().unwrap_or_default();
    let parent = match r.parent() {
        Some(p) => Some(*index_of.get(&p).ok_or(InstallError::UnknownParent {
            entity: i,
            parent: p,
        })?),
        None => None,
    };
    let name = r.name().filter(|n| !n.is_empty()).map(str::to_string);
    let mut s = Staged {
        kind: RecordKind::Folder,
        id,
        name,
        parent,
        enabled: true,
        pose: Pose::IDENTITY,
        components: Vec::new(),
        instance: None,
        model: None,
        connections: Vec::new(),
        object: None,
    };
    match r {
        Record::Folder(f) => {
            s.enabled = f.enabled.unwrap_or(true);
        }
        Record::Object(_) | Record::BoxBrush(_) => {
            let o = r.object().ok_or(InstallError::MissingId(i))?;
            s.kind = if matches!(r, Record::BoxBrush(_)) {
                RecordKind::BoxBrush
            } else {
                RecordKind::Object
            };
            s.enabled = o.enabled.unwrap_or(true);
            s.pose = Pose::from_authored(
                v3(o.position, DVec3::ZERO),
                v3(o.rotation, DVec3::ZERO),
                v3(o.scale, DVec3::ONE),
            );
            s.components = o.components.clone();
            s.connections = o.connections.clone();
        }
        Record::Instance(inst) => {
            s.enabled = inst.enabled.unwrap_or(true);
            s.pose = Pose::from_authored(
                v3(inst.position, DVec3::ZERO),
                v3(inst.rotation, DVec3::ZERO),
                v3(inst.scale, DVec3::ONE),
            );
            match inst.source_kind() {
                Some(SourceKind::Model) => {
                    s.kind = RecordKind::ModelInstance;
                    s.model = Some(ModelInstance {
                        source: ctx.barcode(&inst.source),
                        part_count: inst.parts.len(),
                    });
                }
                Some(SourceKind::Object) => {
                    s.kind = RecordKind::ObjectInstance;
                    let source = ctx.barcode(&inst.source);
                    let resolved =
                        resolver(&source).ok_or_else(|| InstallError::UnresolvedSource {
                            entity: i,
                            placed: inst.source.clone(),
                        })?;
                    let over: Vec<Value> = inst.components.iter().map(|c| c.to_json()).collect();
                    let merged = merge::merge_list("components", &resolved.components, &over);
                    let (components, others) = read_merged(i, &merged)?;
                    s.components = components;
                    s.instance = Some(ObjectInstance {
                        source: if resolved.barcode.is_empty() {
                            source
                        } else {
                            resolved.barcode.clone()
                        },
                        other_components: others,
                    });
                    s.connections = inst.connections.clone();
                    // The one merge rule: the placement's transform member by member over
                    // the object root's own.
                    s.pose = Pose::from_authored(
                        DVec3::from_array(
                            inst.position
                                .map(|v| v.0)
                                .or(resolved.position)
                                .unwrap_or([0.0; 3]),
                        ),
                        DVec3::from_array(
                            inst.rotation
                                .map(|v| v.0)
                                .or(resolved.rotation)
                                .unwrap_or([0.0; 3]),
                        ),
                        DVec3::from_array(
                            inst.scale
                                .map(|v| v.0)
                                .or(resolved.scale)
                                .unwrap_or([1.0; 3]),
                        ),
                    );
                    let mut object = resolved;
                    let over: Vec<Value> =
                        inst.object_children.iter().map(|c| c.to_json()).collect();
                    object.children = merge::merge_list("children", &object.children, &over);
                    s.object = Some(object);
                }
                None => {
                    return Err(InstallError::UnknownSourceKind {
                        entity: i,
                        placed: inst.source.clone(),
                    })
                }
            }
        }
    }
    // Every box without a collider of its own collides as its exact box.
    if let Some(c) = MapComponent::generated_collider_for(&s.components) {
        s.components.push(MapComponent::Collider(c));
    }
    Ok(s)
}

/// Reads a placed object's merged root components: the ones a map record can carry as
/// [`MapComponent`]s, the rest (a renderer, a skeleton, ...) kept as JSON.
fn read_merged(
    i: usize,
    merged: &[Value],
) -> Result<(Vec<MapComponent>, Vec<Value>), InstallError> {
    let file = SourceFile::new("<placed object>", "");
    let mut components = Vec::new();
    let mut others = Vec::new();
    for v in merged {
        let stripped = match &v.kind {
            Kind::Object(members) => Value::synthetic(Kind::Object(
                members
                    .iter()
                    .filter(|m| m.key != "removed")
                    .cloned()
                    .collect(),
            )),
            _ => v.clone(),
        };
        let tag = stripped.get("$type").and_then(|t| t.as_str()).unwrap_or("");
        let shared = matches!(
            tag,
            "dh.box"
                | "dh.collider"
                | "dh.physicsProp"
                | "dh.mover"
                | "dh.button"
                | "dh.pressurePlate"
                | "dh.bake"
        );
        if !shared {
            if ROOT_TAKES.contains(&tag) {
                others.push(stripped);
            } else {
                components.push(MapComponent::Unknown(stripped));
            }
            continue;
        }
        let mut diags = Diagnostics::new();
        let read = {
            let mut cx = dh_content::read::Cx::new(&file, &mut diags, Mode::Load);
            MapComponent::from_json(&mut cx, &stripped)
        };
        match read {
            Some(c) if diags.items.is_empty() => components.push(c),
            _ => {
                return Err(InstallError::BadComponent {
                    entity: i,
                    message: diags
                        .items
                        .first()
                        .map(|d| d.message.clone())
                        .unwrap_or_else(|| format!("'{tag}' does not read")),
                })
            }
        }
    }
    Ok((components, others))
}

/// Adds every component's runtime form to `b`; returns the types of the components that
/// join the logic node (empty: not a node).
fn install_components(
    b: &mut EntityBuilder,
    s: &Staged,
    materials: &mut MaterialTable,
    ctx: &MapContext,
    carried: bool,
    tick_rate: f64,
) -> Result<Vec<&'static str>, InstallError> {
    if s.kind == RecordKind::ModelInstance || s.kind == RecordKind::Folder {
        return Ok(Vec::new());
    }
    let comps = &s.components;
    let body = ContentBody::of(comps);
    let body_box = body.one_box().ok().map(|(c, h)| BodyBox {
        center: f3(c),
        half_extents: f3(h),
    });
    let has_box = comps.iter().any(|c| matches!(c, MapComponent::Box(_)));
    let box_material = comps.iter().find_map(|c| match c {
        MapComponent::Box(bx) => bx.material.clone(),
        _ => None,
    });
    let mut types: Vec<&'static str> = Vec::new();
    let mut unknown = Vec::new();
    let mut logic_body = false;
    let mut role_from_logic: Option<BodyRole> = None;
    let rank = |role: BodyRole, r: &mut Option<BodyRole>| {
        // A mover's kinematic body outranks the rest.
        if *r != Some(BodyRole::Kinematic) {
            *r = Some(role);
        }
    };
    for c in comps {
        if c.has_logic_node() {
            if let Some(sig) = signals::signals_of(c.tag()) {
                if !types.contains(&sig.component) {
                    types.push(sig.component);
                }
            }
        }
        match c {
            MapComponent::Box(bx) => {
                let material = match &bx.material {
                    Some(m) => materials.resolve(m, ctx)?,
                    None => return Err(InstallError::UnknownMaterial(String::new())),
                };
                b.add(DhBox {
                    size: f3(bx.size_or_default()),
                    material,
                });
            }
            MapComponent::Bake(bk) => {
                b.add(Bake {
                    emission: bk.emission.as_ref().map(|e| BakeEmission {
                        color: e.color.map(|c| math::srgb3_to_linear(c.0)),
                        intensity: e.intensity.map(|i| i as f32),
                        samples: e.samples,
                    }),
                    lightmap_scale: bk.lightmap_scale_or_default() as f32,
                    zone: bk.zone.clone(),
                });
            }
            MapComponent::Collider(col) => {
                let slot = |m: Option<&str>,
                            materials: &mut MaterialTable|
                 -> Result<Option<MaterialSlot>, InstallError> {
                    m.map(|m| materials.resolve(m, ctx)).transpose()
                };
                let mut shapes = Vec::new();
                let auto_box = comps.iter().find_map(|c| match c {
                    MapComponent::Box(bx) => Some(bx.exact_shape()),
                    _ => None,
                });
                let authored: Vec<Shape> = match &col.shapes {
                    Some(list) => list.clone(),
                    None => auto_box.clone().map(Shape::Box).into_iter().collect(),
                };
                for (k, sh) in authored.iter().enumerate() {
                    let shape = match sh {
                        Shape::Box(bs) => ColliderShape::Box {
                            center: f3(bs.center.unwrap_or_default()),
                            rotation: Quat::from_euler_degrees(DVec3::from_array(
                                bs.rotation.unwrap_or_default().0,
                            )),
                            half_extents: f3(bs.half_extents),
                            material: slot(bs.material.as_deref(), materials)?,
                        },
                        Shape::Sphere(sp) => ColliderShape::Sphere {
                            center: f3(sp.center.unwrap_or_default()),
                            radius: sp.radius as f32,
                            material: slot(sp.material.as_deref(), materials)?,
                        },
                        Shape::Capsule(cp) => ColliderShape::Capsule {
                            center: f3(cp.center.unwrap_or_default()),
                            rotation: Quat::from_euler_degrees(DVec3::from_array(
                                cp.rotation.unwrap_or_default().0,
                            )),
                            radius: cp.radius as f32,
                            height: cp.height as f32,
                            material: slot(cp.material.as_deref(), materials)?,
                        },
                        Shape::Hull(h) => ColliderShape::Hull {
                            points: h.points.iter().map(|p| f3(*p)).collect(),
                            material: slot(h.material.as_deref(), materials)?,
                        },
                        Shape::Mesh(m) => ColliderShape::Mesh {
                            index: k as u32,
                            material: slot(m.material.as_deref(), materials)?,
                        },
                        Shape::Auto(_) => match &auto_box {
                            Some(bs) => ColliderShape::Box {
                                center: Vec3::ZERO,
                                rotation: Quat::IDENTITY,
                                half_extents: f3(bs.half_extents),
                                material: None,
                            },
                            // An auto shape with nothing to stand as collides as nothing
                            // here; a part's auto shapes are the compiler's.
                            None => continue,
                        },
                    };
                    shapes.push(shape);
                }
                b.add(Collider {
                    state: col.state_or_default(),
                    material: slot(col.material.as_deref(), materials)?,
                    shapes,
                    generated: col.is_generated(),
                });
            }
            MapComponent::SpawnPoint(_) => {
                b.add(SpawnPoint);
            }
            MapComponent::Camera(cam) => {
                b.add(Camera {
                    fov: cam.fov_or_default() as f32,
                    projection: cam.projection_or_default(),
                    ortho_size: cam.ortho_size.map(|v| v as f32),
                    near: cam.near.map(|v| v as f32),
                    far: cam.far.map(|v| v as f32),
                    aspect: cam
                        .aspect
                        .as_ref()
                        .and_then(|a| a.ratio())
                        .map(|v| v as f32),
                    role: cam.role_or_default(),
                    thumbnail_size: cam.thumbnail_size_or_default(),
                });
            }
            MapComponent::LightProbeVolume(v) => {
                b.add(LightProbeVolume {
                    probe_spacing: v.probe_spacing.map(|x| x as f32),
                    inset_probes: v.inset_probes_or_default(),
                    bake_zone: v.bake_zone.clone(),
                    dynamic: v.dynamic.unwrap_or(false),
                    switch: ProbeSwitch::default(),
                });
            }
            MapComponent::LightProbeGroup(g) => {
                b.add(LightProbeGroup {
                    probes: ctx.barcode(&g.probes),
                    contents: g.contents_or_default(),
                    bake_zone: g.bake_zone.clone(),
                    bake: g.bake.unwrap_or(false),
                    dynamic: g.dynamic.unwrap_or(false),
                    switch: ProbeSwitch::default(),
                });
            }
            MapComponent::ReflectionProbe(p) => {
                b.add(ReflectionProbe {
                    capture_point: p.capture_point.map(f3),
                    box_projection: p.box_projection.unwrap_or(false),
                    resolution: p.resolution_or_default(),
                    importance: p.importance.unwrap_or(0),
                    blend_distance: p.blend_distance.unwrap_or(1.0) as f32,
                    projection: p.projection_or_default(),
                });
            }
            MapComponent::VoxelVolume(v) => {
                b.add(VoxelVolume {
                    volume: ctx.barcode(&v.volume),
                    lighting: v.lighting,
                    grids: v
                        .delta
                        .as_ref()
                        .and_then(|d| d.grids.as_ref())
                        .map(|t| t.iter().map(|(k, v)| (k.to_string(), *v)).collect())
                        .unwrap_or_default(),
                });
            }
            MapComponent::Button(_) => {
                logic_body = true;
                rank(BodyRole::Static, &mut role_from_logic);
                b.add(Button::default());
            }
            MapComponent::Mover(m) => {
                logic_body = true;
                role_from_logic = Some(BodyRole::Kinematic);
                b.add(runtime_mover(m, &s.pose, tick_rate));
            }
            MapComponent::PressurePlate(_) => {
                logic_body = true;
                rank(BodyRole::Sensor, &mut role_from_logic);
                b.add(PressurePlate {
                    body: body_box.unwrap_or(BodyBox {
                        center: Vec3::ZERO,
                        half_extents: Vec3::ZERO,
                    }),
                    occupants: Vec::new(),
                });
            }
            MapComponent::Trigger(t) => {
                logic_body = true;
                rank(BodyRole::Sensor, &mut role_from_logic);
                b.add(Trigger {
                    body: body_box.unwrap_or(BodyBox {
                        center: Vec3::ZERO,
                        half_extents: Vec3::ZERO,
                    }),
                    enabled: t.enabled(),
                    starts_enabled: t.enabled(),
                    touched_by: t.touched_by(),
                    inside: Vec::new(),
                });
            }
            MapComponent::Teleport(t) => {
                b.add(Teleport {
                    destination: t.destination().map(str::to_string),
                    landmark: t.landmark().map(str::to_string),
                    facing: t.facing(),
                    velocity: t.velocity(),
                    subject: t.subject().map(str::to_string),
                });
            }
            MapComponent::Timer(t) => {
                b.add(Timer {
                    delay_seconds: t.delay_seconds(),
                    delay_ticks: quantize_ticks(t.delay_seconds(), tick_rate),
                });
            }
            MapComponent::MapStart(_) => {
                b.add(MapStart);
            }
            MapComponent::AndGate(_) => {
                b.add(AndGate::default());
            }
            MapComponent::OrGate(_) => {
                b.add(OrGate::default());
            }
            MapComponent::NotGate(_) => {
                b.add(NotGate::default());
            }
            MapComponent::PhysicsProp(p) => {
                logic_body = true;
                rank(BodyRole::Dynamic, &mut role_from_logic);
                b.add(PhysicsProp {
                    mass: p.mass.map(|m| m as f32),
                    sim: p.sim_or_default(),
                });
            }
            MapComponent::Light(l) => {
                let (inner, outer) = l.cones();
                let color = l.color_or_default().0;
                let material_on = match &box_material {
                    Some(m) if has_box => Some(materials.resolve(m, ctx)?),
                    _ => None,
                };
                let material_off = l
                    .material_off
                    .as_deref()
                    .map(|m| materials.resolve(m, ctx))
                    .transpose()?;
                let starts_on = l.starts_on(has_box);
                b.add(Light {
                    kind: l.kind_or_default(),
                    color_srgb: color,
                    color: math::srgb3_to_linear(color),
                    intensity: l
                        .intensity
                        .unwrap_or(dh_content::schema::components::light::DEFAULT_INTENSITY)
                        as f32,
                    range: l
                        .range
                        .unwrap_or(dh_content::schema::components::light::DEFAULT_RANGE)
                        as f32,
                    falloff: l.falloff,
                    offset: l.offset.map_or(Vec3::ZERO, f3),
                    inner_cone: inner as f32,
                    outer_cone: outer as f32,
                    mode: l.mode_or_default(),
                    radius: l
                        .radius
                        .unwrap_or(dh_content::schema::components::light::DEFAULT_RADIUS)
                        as f32,
                    angular_diameter: l
                        .angular_diameter
                        .unwrap_or(dh_content::schema::components::light::DEFAULT_ANGULAR_DIAMETER)
                        as f32,
                    shadow_samples: l
                        .shadow_samples
                        .unwrap_or(dh_content::schema::components::light::DEFAULT_SHADOW_SAMPLES),
                    material_on,
                    material_off,
                    starts_on,
                    on: starts_on,
                    patch: LightPatch::default(),
                });
            }
            MapComponent::Unknown(v) => unknown.push(v.clone()),
        }
    }
    if !unknown.is_empty() {
        b.add(UnknownComponents(unknown));
    }
    if let Some(col) = b.get::<&Collider>().map(|c| c.state) {
        use dh_content::schema::components::geometry::ColliderState;
        let role = match col {
            ColliderState::Off => BodyRole::None,
            _ if carried && role_from_logic != Some(BodyRole::Dynamic) => match role_from_logic {
                Some(BodyRole::Sensor) => BodyRole::Sensor,
                _ => BodyRole::Kinematic,
            },
            _ => match role_from_logic {
                Some(r) => r,
                None if col == ColliderState::Trigger => BodyRole::Passable,
                None => BodyRole::Static,
            },
        };
        b.add(crate::components::Body {
            role,
            logic: logic_body,
            carried,
        });
    }
    Ok(types)
}

/// A mover's runtime form: its motion in world axes about its authored origin, and its
/// state at spawn (fully open for `startOpen`, a spin at rest).
pub(crate) fn runtime_mover(
    m: &dh_content::schema::components::Mover,
    pose: &Pose,
    tick_rate: f64,
) -> Mover {
    let unit = |v: Option<CVec3>| v.map_or(DVec3::Y, |v| DVec3::from_array(v.0));
    let turn = |axis: DVec3| {
        let a = pose.rotation.rotate(axis.as_vec3()).as_dvec3();
        let len = a.dot(a).sqrt();
        if len > 0.0 {
            a / len
        } else {
            DVec3::Y
        }
    };
    let motion = match m.motion() {
        ContentMotion::Slide => Motion::Slide {
            direction: unit(m.direction_normalized()),
            distance: m.distance(),
        },
        ContentMotion::Rotate => Motion::Rotate {
            axis: turn(unit(m.axis_normalized())),
            angle: m.angle(),
        },
        ContentMotion::Spin => Motion::Spin {
            axis: turn(unit(m.axis_normalized())),
            rate: m.rate(),
        },
    };
    let sweep = m.duration() * tick_rate;
    let spin = matches!(motion, Motion::Spin { .. });
    let open = m.start_open() && !spin;
    Mover {
        motion,
        duration: m.duration(),
        start_open: open,
        hinge: pose.position,
        state: MoverState {
            progress: if open { sweep } else { 0.0 },
            sweep_ticks: sweep,
            heading: if open { Heading::Open } else { Heading::Closed },
            moving: false,
            spin: SpinSegment {
                start_tick: 0,
                start_angle: 0.0,
                start_speed: 0.0,
                target_speed: 0.0,
                accel: 0.0,
            },
            spin_settled: true,
            speed: 0.0,
        },
    }
}

/// A call's value, for traces.
pub(crate) fn value_text(v: &CallValue) -> String {
    match v {
        CallValue::Number(n) => format!("{n}"),
        CallValue::Color([r, g, b]) => format!("[{r}, {g}, {b}]"),
    }
}

/// One line for every model part a map files under a mover (or under anything a mover
/// carries) in a placement with no compiled part table (a map that did not come through
/// `dh build`): such a placement installs no parts, so the map does not run as written.
/// A compiled placement's parts are installed, carried and solid.
fn carried_part_warnings(staged: &[Staged], movers_under: &[bool], map: &Map) -> Vec<String> {
    let index: HashMap<Guid, usize> = staged.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let label = |i: usize| match staged.get(i).and_then(|s| s.name.clone()) {
        Some(n) => n,
        None => format!("#{i}"),
    };
    let mut out = Vec::new();
    for (i, r) in map.objects.iter().enumerate() {
        let Record::Instance(inst) = r else { continue };
        if !inst.parts.is_empty() {
            // Installed parts ride what they are filed under.
            continue;
        }
        for o in &inst.children {
            if o.removed == Some(true) || o.enabled == Some(false) {
                continue;
            }
            let Some(&p) = o.parent.as_ref().and_then(|g| index.get(g)) else {
                continue;
            };
            if !movers_under.get(p).copied().unwrap_or(false) {
                continue;
            }
            let part = match (&o.path, &o.id) {
                (Some(path), _) => path.clone(),
                (None, Some(id)) => id.to_string(),
                (None, None) => "?".to_string(),
            };
            out.push(format!(
                "warning: {}: part '{part}' is filed under '{}', which a mover carries; \
                 model parts are not carried and have no bodies in a headless run, so it \
                 stays where it was baked and is not solid",
                label(i),
                label(p)
            ));
        }
    }
    out
}

// ---- Model parts ---------------------------------------------------------------------------

/// What a part is filed under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filed {
    /// A record (the placement itself, or the record the part's override names).
    Record(usize),
    /// Another part of the same placement, by its index among the planned parts.
    Part(usize),
}

/// One part to install.
struct PlannedPart {
    /// The placement's record index.
    record: usize,
    /// The added record it belongs to (its index among the planned parts), where an
    /// object's added record placed it; `None` for the placement's own parts.
    owner: Option<usize>,
    /// The placed model.
    model: String,
    /// The compiled entry.
    part: dh_content::schema::records::Part,
    /// Its slot in its model (id less the placement's first).
    slot: u32,
    /// What it is filed under.
    filed: Filed,
    /// Whether a mover carries what it is filed under.
    carried: bool,
    /// Its pose, name, enabled flag and components (collider and bake), in the shape a
    /// record installs from.
    staged: Staged,
    /// Its renderer, on a drawn part.
    renderer: Option<PartRenderer>,
}

/// Whether `path` lies at or under `root` in a model's hierarchy.
fn at_or_under(path: &str, root: &str) -> bool {
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A part's pose: its compiled world pose (`pivot`, `rotation`, `scale`). The compiled
/// table is final: the placement's pose and the part's override (its transform delta) are
/// already composed into it by `dh build` (`dh_content::parts::apply_overrides`).
fn part_pose(part: &dh_content::schema::records::Part) -> Pose {
    Pose {
        position: part.pivot.map_or(Vec3::ZERO, f3),
        rotation: part
            .rotation
            .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0.map(|v| v as f32))),
        scale: part.scale.map_or(Vec3::ONE, f3),
    }
}

/// The parts of every compiled model placement, in map order and part-table order. The
/// compiled table is final (the compiler laid the instance's overrides over it): a part
/// marked `removed` is never installed and neither is anything under it in the model, one
/// marked `enabled: false` is installed switched off, and its components (the override's
/// collider and bake included) are installed as they stand. Each part is filed under the
/// nearest installed part above it in the model, else under its placement; the table's
/// `parent` (an override's) files it under that record instead.
fn plan_parts(
    map: &Map,
    staged: &[Staged],
    index_of: &HashMap<Guid, usize>,
    ctx: &MapContext,
) -> Result<Vec<PlannedPart>, InstallError> {
    use dh_content::schema::object_components::ObjectComponent;
    let mut out: Vec<PlannedPart> = Vec::new();
    for (i, r) in map.objects.iter().enumerate() {
        let Record::Instance(inst) = r else { continue };
        if inst.source_kind() != Some(SourceKind::Model) || inst.parts.is_empty() {
            continue;
        }
        let model = ctx.barcode(&inst.source);
        let first = inst.parts.iter().map(|p| p.id).min().unwrap_or(0);
        // Removals first: a removed part takes its subtree with it.
        let removed: Vec<String> = inst
            .parts
            .iter()
            .filter(|p| p.removed == Some(true))
            .filter_map(|p| p.path.clone())
            .collect();
        let start = out.len();
        // This placement's installed parts by path (their index among every planned part),
        // to file each under the nearest above.
        let mut by_path: HashMap<String, usize> = HashMap::new();
        for part in &inst.parts {
            let path = part.path.clone().unwrap_or_default();
            if removed.iter().any(|root| at_or_under(&path, root)) {
                continue;
            }
            let next = out.len() + by_path.len();
            by_path.entry(path).or_insert(next);
        }
        for part in &inst.parts {
            let path = part.path.clone().unwrap_or_default();
            if by_path.get(&path) != Some(&out.len()) {
                continue; // removed, or a second entry with one path
            }
            // Components: the part's collider and bake as compiled (its renderer below).
            let listed: Vec<Value> = part
                .components
                .iter()
                .filter(|c| !matches!(c, ObjectComponent::Renderer(_)))
                .map(|c| c.to_json())
                .collect();
            let (components, _) = read_merged(i, &listed)?;
            let renderer = part.components.iter().find_map(|c| match c {
                ObjectComponent::Renderer(rd) => Some(PartRenderer {
                    materials: rd
                        .materials
                        .as_ref()
                        .map(|t| {
                            t.iter()
                                .map(|(slot, reference)| {
                                    let bound = if reference.is_empty() {
                                        String::new()
                                    } else {
                                        ctx.barcode(reference)
                                    };
                                    (slot.to_string(), bound)
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    map_slots: true,
                }),
                _ => None,
            });
            let parent_record = part
                .parent
                .and_then(|g| index_of.get(&g).copied())
                .filter(|&p| p != i);
            let filed = match parent_record {
                Some(p) => Filed::Record(p),
                None => {
                    let mut at = path.as_str();
                    let mut found = None;
                    while let Some((up, _)) = at.rsplit_once('/') {
                        if let Some(&k) = by_path.get(up) {
                            found = Some(k);
                            break;
                        }
                        at = up;
                    }
                    found.map_or(Filed::Record(i), Filed::Part)
                }
            };
            let carried = {
                let mut at = match filed {
                    Filed::Record(p) => Some(p),
                    // Settled below, once every part of the placement is planned.
                    Filed::Part(_) => Some(i),
                };
                let mut hit = false;
                let mut steps = 0;
                while let Some(p) = at {
                    steps += 1;
                    if steps > staged.len() {
                        break;
                    }
                    if staged[p]
                        .components
                        .iter()
                        .any(|c| matches!(c, MapComponent::Mover(_)))
                    {
                        hit = true;
                        break;
                    }
                    at = staged[p].parent;
                }
                hit
            };
            let name = part.name.clone().filter(|n| !n.is_empty());
            out.push(PlannedPart {
                record: i,
                owner: None,
                model: model.clone(),
                part: part.clone(),
                slot: part.id.saturating_sub(first),
                filed,
                carried,
                staged: Staged {
                    kind: RecordKind::Object,
                    id: part.object_id.unwrap_or_default(),
                    name,
                    parent: None,
                    enabled: part.enabled != Some(false),
                    pose: part_pose(part),
                    components,
                    instance: None,
                    model: None,
                    connections: Vec::new(),
                    object: None,
                },
                renderer,
            });
        }
        // A part filed under a carried part rides too (one flag flips per pass at least).
        loop {
            let mut changed = false;
            for k in start..out.len() {
                if let Filed::Part(q) = out[k].filed {
                    if !out[k].carried && out.get(q).is_some_and(|p| p.carried) {
                        out[k].carried = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }
    Ok(out)
}

// ---- Object models -------------------------------------------------------------------------

/// The deepest an object's added records may nest (an object adding an object adding ...):
/// a deeper record is one warning and is not installed, so a record chain that loops back
/// on itself ends.
pub const MAX_RECORD_DEPTH: usize = 8;

/// `pose` as a matrix (`T · R · S`).
fn pose_matrix(p: &Pose) -> DMat4 {
    m4::from_trs(
        p.position.as_dvec3(),
        p.rotation.as_dquat(),
        p.scale.as_dvec3(),
    )
}

/// A matrix taken apart into a pose (a shear is dropped).
fn matrix_pose(m: &DMat4) -> Pose {
    let d = m4::decompose(m);
    Pose {
        position: d.translation.as_vec3(),
        rotation: d.rotation.as_quat(),
        scale: d.scale.as_vec3(),
    }
}

/// `T · R · S` of an authored position, euler rotation (degrees) and scale.
fn trs(position: [f64; 3], rotation: [f64; 3], scale: [f64; 3]) -> DMat4 {
    m4::from_trs(
        DVec3::from_array(position),
        m4::quat_from_euler_degrees(DVec3::from_array(rotation)),
        DVec3::from_array(scale),
    )
}

/// What the parts of one model (or one added record) are installed under.
#[derive(Clone)]
struct Anchor {
    /// The map record the whole object placement belongs to.
    record: usize,
    /// The added record the parts belong to (its index among the planned parts), `None`
    /// for the placement itself.
    owner: Option<usize>,
    /// What a part with no part above it is filed under.
    filed: Filed,
    /// The world matrix of the owner's root.
    root: DMat4,
    /// Whether a mover carries the owner.
    carried: bool,
    /// The id the parts' scene-object ids are minted under.
    id_base: Guid,
    /// The owner, in warnings.
    label: String,
}

/// What planning an object's parts keeps across the whole install.
struct ObjectPlan<'a> {
    resolver: &'a dyn Fn(&str) -> Option<ResolvedObject>,
    models: &'a dyn Fn(&str) -> Result<Arc<Model>, String>,
    /// The next map-wide part id.
    next_id: u32,
    warnings: Vec<String>,
}

/// Every object placement's model parts and added records, after the compiled model
/// placements' parts, placements in map order (spec: runtime assets, "The object loader":
/// the model, part parents and transforms, removals, renderers, then the added records).
fn plan_object_parts(
    staged: &[Staged],
    movers_under: &[bool],
    plan: &mut ObjectPlan<'_>,
    out: &mut Vec<PlannedPart>,
) -> Result<(), InstallError> {
    for (i, s) in staged.iter().enumerate() {
        let Some(object) = &s.object else { continue };
        let label = match &s.name {
            Some(n) => format!("'{n}'"),
            None => format!("#{i}"),
        };
        let anchor = Anchor {
            record: i,
            owner: None,
            filed: Filed::Record(i),
            root: pose_matrix(&s.pose),
            carried: movers_under.get(i).copied().unwrap_or(false),
            id_base: s.id,
            label: format!("{label} ({})", object.barcode),
        };
        plan_object(plan, out, &anchor, object, 0)?;
    }
    Ok(())
}

/// One object's parts under `anchor`: its model's, then its added records'.
fn plan_object(
    plan: &mut ObjectPlan<'_>,
    out: &mut Vec<PlannedPart>,
    anchor: &Anchor,
    object: &ResolvedObject,
    depth: usize,
) -> Result<(), InstallError> {
    let mut placed: HashMap<String, (usize, DMat4)> = HashMap::new();
    if let Some(model) = &object.model {
        match (plan.models)(model) {
            Ok(tree) => {
                placed = plan_model(plan, out, anchor, model, &tree, &object.children)?;
            }
            Err(why) => plan.warnings.push(format!(
                "warning: {}: its model '{model}' could not be read; its parts are not installed: {why}",
                anchor.label
            )),
        }
    }
    for rec in &object.objects {
        if rec
            .get("removed")
            .is_some_and(|v| matches!(v.kind, Kind::Bool(true)))
        {
            continue;
        }
        let id = rec.get("id").and_then(Value::as_str).unwrap_or("");
        let Some(source) = rec.get("source").and_then(Value::as_str) else {
            plan.warnings.push(format!(
                "warning: {}: added record '{id}' names no source; it is not installed",
                anchor.label
            ));
            continue;
        };
        let label = format!("{}, added record '{id}' ({source})", anchor.label);
        if depth + 1 > MAX_RECORD_DEPTH {
            plan.warnings.push(format!(
                "warning: {label}: records nest deeper than {MAX_RECORD_DEPTH}; it is not installed"
            ));
            continue;
        }
        let (filed, above) = match rec.get("parent").and_then(Value::as_str) {
            None | Some("") => (anchor.filed, anchor.root),
            Some(path) => match placed.get(path) {
                Some(&(k, w)) => (Filed::Part(k), w),
                None => {
                    plan.warnings.push(format!(
                        "warning: {label}: its parent '{path}' is no installed part; it is filed under the object's root"
                    ));
                    (anchor.filed, anchor.root)
                }
            },
        };
        let kind = SourceKind::of(source);
        let resolved = match kind {
            Some(SourceKind::Object) => match (plan.resolver)(source) {
                Some(r) => Some(r),
                None => {
                    plan.warnings.push(format!(
                        "warning: {label}: its source does not resolve; it is not installed"
                    ));
                    continue;
                }
            },
            Some(SourceKind::Model) => None,
            None => {
                plan.warnings.push(format!(
                    "warning: {label}: its source is neither an object nor a model; it is not installed"
                ));
                continue;
            }
        };
        // The record's transform member by member over its source root's own.
        let own = |key: &str, uniform: bool| json_v3(rec.get(key), uniform);
        let local = trs(
            own("position", false)
                .or(resolved.as_ref().and_then(|r| r.position))
                .unwrap_or([0.0; 3]),
            own("rotation", false)
                .or(resolved.as_ref().and_then(|r| r.rotation))
                .unwrap_or([0.0; 3]),
            own("scale", true)
                .or(resolved.as_ref().and_then(|r| r.scale))
                .unwrap_or([1.0; 3]),
        );
        let world = m4::mul(&above, &local);
        let over = json_list(rec, "components");
        let base = resolved
            .as_ref()
            .map(|r| r.components.clone())
            .unwrap_or_default();
        let merged = merge::merge_list("components", &base, &over);
        let shared: Vec<Value> = merged.into_iter().filter(is_body_component).collect();
        let (components, _) = read_merged(anchor.record, &shared)?;
        let id_base = dh_content::parts::object_id(
            anchor.id_base,
            dh_content::parts::mint_local_id(source, id),
        );
        let index = out.len();
        let name = rec
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or(id)
            .to_string();
        out.push(PlannedPart {
            record: anchor.record,
            owner: anchor.owner,
            model: source.to_string(),
            part: dh_content::schema::records::Part {
                id: plan.next_id,
                object_id: Some(id_base),
                name: Some(name.clone()),
                path: Some(String::new()),
                structural: Some(true),
                ..Default::default()
            },
            slot: 0,
            filed,
            carried: anchor.carried,
            staged: part_staged(id_base, Some(name), true, matrix_pose(&world), components),
            renderer: None,
        });
        plan.next_id = plan.next_id.saturating_add(1);
        let inner = Anchor {
            record: anchor.record,
            owner: Some(index),
            filed: Filed::Part(index),
            root: world,
            carried: anchor.carried,
            id_base,
            label,
        };
        match resolved {
            Some(mut r) => {
                let over = json_list(rec, "children");
                r.children = merge::merge_list("children", &r.children, &over);
                plan_object(plan, out, &inner, &r, depth + 1)?;
            }
            None => match (plan.models)(source) {
                Ok(tree) => {
                    plan_model(
                        plan,
                        out,
                        &inner,
                        source,
                        &tree,
                        &json_list(rec, "children"),
                    )?;
                }
                Err(why) => plan.warnings.push(format!(
                    "warning: {}: its model could not be read; its parts are not installed: {why}",
                    inner.label
                )),
            },
        }
    }
    Ok(())
}

/// The component types a part or an added record's root installs a runtime form of here.
fn is_body_component(v: &Value) -> bool {
    matches!(
        v.get("$type").and_then(Value::as_str),
        Some("dh.box" | "dh.collider" | "dh.physicsProp" | "dh.bake")
    )
}

fn part_staged(
    id: Guid,
    name: Option<String>,
    enabled: bool,
    pose: Pose,
    components: Vec<MapComponent>,
) -> Staged {
    Staged {
        kind: RecordKind::Object,
        id,
        name,
        parent: None,
        enabled,
        pose,
        components,
        instance: None,
        model: None,
        connections: Vec::new(),
        object: None,
    }
}

/// One part override, read.
#[derive(Default)]
struct PartEdit {
    name: Option<String>,
    parent: Option<String>,
    position: Option<[f64; 3]>,
    rotation: Option<[f64; 3]>,
    scale: Option<[f64; 3]>,
    enabled: Option<bool>,
    removed: bool,
    components: Vec<Value>,
}

impl PartEdit {
    fn of(v: &Value) -> PartEdit {
        let flag = |key: &str| match v.get(key).map(|x| &x.kind) {
            Some(Kind::Bool(b)) => Some(*b),
            _ => None,
        };
        PartEdit {
            name: v.get("name").and_then(Value::as_str).map(str::to_string),
            parent: v.get("parent").and_then(Value::as_str).map(str::to_string),
            position: json_v3(v.get("position"), false),
            rotation: json_v3(v.get("rotation"), false),
            scale: json_v3(v.get("scale"), true),
            enabled: flag("enabled"),
            removed: flag("removed") == Some(true),
            components: json_list(v, "components"),
        }
    }
}

/// The parts of `tree` (the model `model`) under `anchor`, its part overrides `children`
/// laid over them in the loader's order: parents, then transforms (a reparented part's
/// position is local to its new parent), then removals (a removed part takes its subtree
/// in the hierarchy the parents left), then renderers. Returns each installed part's index
/// among the planned parts and its world matrix, by path.
fn plan_model(
    plan: &mut ObjectPlan<'_>,
    out: &mut Vec<PlannedPart>,
    anchor: &Anchor,
    model: &str,
    tree: &Model,
    children: &[Value],
) -> Result<HashMap<String, (usize, DMat4)>, InstallError> {
    let paths = tree.node_paths();
    let worlds = tree.world_matrices();
    let nodes: Vec<usize> = tree
        .traversal()
        .into_iter()
        // An object's model keeps its skinned meshes at their bind pose (spec 003, "What the
        // map importer leaves out"): a skinned node drawing a mesh is a part.
        .filter(|&n| {
            let node = &tree.nodes[n];
            node.is_part() || (node.skinned && node.mesh.is_some())
        })
        .collect();
    let mut slot_of: HashMap<usize, usize> = HashMap::new();
    for (k, n) in nodes.iter().enumerate() {
        slot_of.insert(*n, k);
    }
    // Each part's parent part (its nearest part ancestor) and its local matrix under it.
    let mut parent: Vec<Option<usize>> = Vec::with_capacity(nodes.len());
    let mut local: Vec<DMat4> = Vec::with_capacity(nodes.len());
    for &n in &nodes {
        let mut up = tree.nodes[n].parent;
        let mut found = None;
        while let Some(p) = up {
            if let Some(&k) = slot_of.get(&p) {
                found = Some(k);
                break;
            }
            up = tree.nodes.get(p).and_then(|x| x.parent);
        }
        let l = match found.and_then(|k| m4::inverse(&worlds[nodes[k]])) {
            Some(inv) => m4::mul(&inv, &worlds[n]),
            None if found.is_none() => worlds[n],
            None => tree.nodes[n].local,
        };
        parent.push(found);
        local.push(l);
    }
    let by_path: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(k, n)| (paths[*n].as_str(), k))
        .collect();
    // The overrides, each resolved to its part; the last naming a part is its answer.
    let mut edits: Vec<Option<PartEdit>> = (0..nodes.len()).map(|_| None).collect();
    let mut order: Vec<usize> = Vec::new();
    for o in children {
        let path = o.get("path").and_then(Value::as_str).unwrap_or("");
        match by_path.get(path) {
            Some(&k) => {
                order.retain(|x| *x != k);
                order.push(k);
                edits[k] = Some(PartEdit::of(o));
            }
            None => plan.warnings.push(format!(
                "warning: {}: the part override of '{path}' names no part of '{model}'; it is skipped",
                anchor.label
            )),
        }
    }
    // Object-space world of part k under the current hierarchy.
    let object_world = |k: usize, parent: &[Option<usize>], local: &[DMat4]| -> DMat4 {
        let mut w = local[k];
        let mut at = parent[k];
        let mut steps = 0;
        while let Some(p) = at {
            w = m4::mul(&local[p], &w);
            at = parent[p];
            steps += 1;
            if steps > parent.len() {
                break;
            }
        }
        w
    };
    let under = |k: usize, root: usize, parent: &[Option<usize>]| -> bool {
        let mut at = Some(k);
        let mut steps = 0;
        while let Some(p) = at {
            if p == root {
                return true;
            }
            at = parent[p];
            steps += 1;
            if steps > parent.len() {
                return false;
            }
        }
        false
    };
    // Parents: the part keeps where it stands.
    for &k in &order {
        let Some(target) = edits[k].as_ref().and_then(|e| e.parent.clone()) else {
            continue;
        };
        let new_parent = if target.is_empty() {
            None
        } else {
            match by_path.get(target.as_str()) {
                Some(&q) if !under(q, k, &parent) => Some(q),
                Some(_) => {
                    plan.warnings.push(format!(
                        "warning: {}: part '{}' cannot be filed under '{target}', which lies under it; it keeps its parent",
                        anchor.label, paths[nodes[k]]
                    ));
                    continue;
                }
                None => {
                    plan.warnings.push(format!(
                        "warning: {}: part '{}' names parent '{target}', which is no part of '{model}'; it keeps its parent",
                        anchor.label, paths[nodes[k]]
                    ));
                    continue;
                }
            }
        };
        let w = object_world(k, &parent, &local);
        local[k] = match new_parent {
            None => w,
            Some(q) => match m4::inverse(&object_world(q, &parent, &local)) {
                Some(inv) => m4::mul(&inv, &w),
                None => w,
            },
        };
        parent[k] = new_parent;
    }
    // Transforms: each stated component replaces the part's own local one.
    for &k in &order {
        let Some(e) = edits[k].as_ref() else { continue };
        if e.position.is_none() && e.rotation.is_none() && e.scale.is_none() {
            continue;
        }
        let d = m4::decompose(&local[k]);
        local[k] = m4::from_trs(
            e.position.map_or(d.translation, DVec3::from_array),
            e.rotation.map_or(d.rotation, |r| {
                m4::quat_from_euler_degrees(DVec3::from_array(r))
            }),
            e.scale.map_or(d.scale, DVec3::from_array),
        );
    }
    // Removals take their subtree.
    let removed: Vec<usize> = (0..nodes.len())
        .filter(|&k| edits[k].as_ref().is_some_and(|e| e.removed))
        .collect();
    let kept: Vec<usize> = (0..nodes.len())
        .filter(|&k| !removed.iter().any(|&r| under(k, r, &parent)))
        .collect();
    let start = out.len();
    let index_of: HashMap<usize, usize> = kept
        .iter()
        .enumerate()
        .map(|(j, &k)| (k, start + j))
        .collect();
    let mut placed = HashMap::new();
    for &k in &kept {
        let n = nodes[k];
        let node = &tree.nodes[n];
        let path = paths[n].clone();
        let edit = edits[k].take().unwrap_or_default();
        let world = m4::mul(&anchor.root, &object_world(k, &parent, &local));
        // Renderer: every slot its mesh draws, each bound where the override's binds it.
        let mut bound: Vec<(String, String)> = Vec::new();
        let mut listed: Vec<Value> = Vec::new();
        for c in &edit.components {
            if c.get("$type").and_then(Value::as_str) == Some("dh.renderer") {
                if let Some(Kind::Object(members)) = c.get("materials").map(|m| &m.kind) {
                    for m in members {
                        if let Some(r) = m.value.as_str() {
                            bound.push((m.key.clone(), r.to_string()));
                        }
                    }
                }
            } else if is_body_component(c) {
                listed.push(c.clone());
            }
        }
        let renderer = node.mesh.and_then(|m| tree.meshes.get(m)).map(|mesh| {
            let mut materials: Vec<(String, String)> = Vec::new();
            for p in &mesh.primitives {
                if let Some(slot) = &p.material {
                    if !materials.iter().any(|(s, _)| s == slot) {
                        let r = bound
                            .iter()
                            .rev()
                            .find(|(s, _)| s == slot)
                            .map(|(_, r)| r.clone())
                            .unwrap_or_default();
                        materials.push((slot.clone(), r));
                    }
                }
            }
            PartRenderer {
                materials,
                map_slots: false,
            }
        });
        let (components, _) = read_merged(anchor.record, &listed)?;
        let local_id = dh_content::parts::mint_local_id(model, &path);
        let object_id = dh_content::parts::object_id(anchor.id_base, local_id);
        let filed = match parent[k] {
            Some(q) => index_of.get(&q).map_or(anchor.filed, |&j| Filed::Part(j)),
            None => anchor.filed,
        };
        let name = edit
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .or_else(|| Some(node.name.clone()).filter(|n| !n.is_empty()));
        placed.insert(path.clone(), (out.len(), world));
        out.push(PlannedPart {
            record: anchor.record,
            owner: anchor.owner,
            model: model.to_string(),
            part: dh_content::schema::records::Part {
                id: plan.next_id,
                local_id: Some(local_id),
                object_id: Some(object_id),
                name: name.clone(),
                path: Some(path),
                structural: node.mesh.is_none().then_some(true),
                ..Default::default()
            },
            slot: k as u32,
            filed,
            carried: anchor.carried,
            staged: part_staged(
                object_id,
                name,
                edit.enabled != Some(false),
                matrix_pose(&world),
                components,
            ),
            renderer,
        });
        plan.next_id = plan.next_id.saturating_add(1);
    }
    Ok(placed)
}
