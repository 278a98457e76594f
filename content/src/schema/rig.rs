//! The `dh.rig` source (`.dh-rig`): the rig an armature is described by, which a
//! `dh.skeleton` names (spec 001 "dh.skeleton", lines 266-275).
//!
//! The spec gives no field table for a rig; what a rig holds is read from what the other
//! sections say of it, each member below naming the line it comes from:
//!
//! * the humanoid bones it maps ("A skeleton is humanoid when its rig maps humanoid
//!   bones", line 268; "the standard-bone map is registered on the skeleton", 003 line
//!   249), as `bones` (ours: the member's name), a humanoid role to the model's bone name;
//! * `customBones`, the bones it names beyond the humanoid set (lines 369, 392, 427);
//! * `viewPosition`, where the view sits in the armature's frame (line 273: a skeleton's
//!   `viewPosition` lies "over the rig's own viewPosition");
//! * the face: the eye bones (the humanoid roles `LeftEye` and `RightEye`),
//!   `eyeRotationLimits`, and `eyelids`, whose `blink` lists the shapes a blink closes
//!   (lines 279, 315; 003 line 249).
//!
//! The spec names `eyeRotationLimits` but never what it holds, and names no eyelid member
//! but `blink`: a rig stating `eyeRotationLimits` is refused with [`EYE_ROTATION_DEFERRED`],
//! and `eyelids` is a closed set of `blink` alone.

use std::collections::HashMap;

use crate::diag::{Diagnostics, SourceFile};
use crate::jsonc::Value;
use crate::read::{read_block, At, Cx, Mode, Table};
use crate::schema::common::Vec3;
use crate::schema::material::strip_type;
use crate::schema::object_components::HUMANOID_ROLES;

/// The type id a compiled rig's `$type` states.
pub const RIG_TYPE: &str = "dh.rig";

/// The extension of a rig's file.
pub const RIG_EXTENSION: &str = ".dh-rig";

/// The humanoid roles that are eye bones: what turns a rig's eyes.
pub const EYE_ROLES: &[&str] = &["LeftEye", "RightEye"];

/// The error a rig stating `eyeRotationLimits` gets.
pub const EYE_ROTATION_DEFERRED: &str = "'eyeRotationLimits' is deferred: the spec names it as part of what a rig says the eyes are (dh.eyes) but does not define what it holds yet, so a rig stating it is a compile error";

block! {
    /// `eyelids` of a rig: the blendshapes its eyelids close.
    pub struct Eyelids = "dh.rig eyelids" {
        /// The blendshapes a blink closes, read on the skeleton's mesh or any skinned mesh
        /// (001 line 315; 003 line 249). Default: none.
        opt blink: Vec<String> = "blink",
    }
}

block! {
    /// A `dh.rig` (`.dh-rig`): the bones an armature's rig maps, its custom bones, its
    /// view position and its face. Every member is optional.
    pub struct DhRig = "dh.rig" {
        /// A humanoid role to the name of the model's bone it maps (`"Hips": "hip"`).
        /// Default: none, a rig mapping no humanoid bone (a partial rig, an accessory
        /// mapping only `Neck` and `Head`, is ordinary: 003 line 249).
        opt bones: Table<String> = "bones",
        /// The bones the rig names beyond the humanoid set, by the model's bone name.
        /// Default: none.
        opt custom_bones: Vec<String> = "customBones",
        /// Where the view sits, in the armature's frame. Default: unset, a rig that places
        /// no view of its own.
        opt view_position: Vec3 = "viewPosition",
        /// Deferred: refused ([`EYE_ROTATION_DEFERRED`]).
        opt eye_rotation_limits: Value = "eyeRotationLimits",
        /// The eyelids' blendshapes. Default: none.
        opt eyelids: Eyelids = "eyelids",
    }
}

impl DhRig {
    /// The model bone `role` maps, if the rig maps it.
    pub fn bone_of(&self, role: &str) -> Option<&str> {
        self.bones
            .as_ref()
            .and_then(|b| b.get(role))
            .map(String::as_str)
    }

    /// The humanoid roles the rig maps, in written order.
    pub fn roles(&self) -> Vec<&str> {
        self.bones
            .iter()
            .flat_map(|b| b.entries.iter().map(|e| e.0.as_str()))
            .collect()
    }

    /// `customBones`, default none.
    pub fn custom_bones_or_default(&self) -> &[String] {
        self.custom_bones.as_deref().unwrap_or(&[])
    }

    /// `eyelids.blink`, default none.
    pub fn blink_shapes(&self) -> &[String] {
        self.eyelids
            .as_ref()
            .and_then(|e| e.blink.as_deref())
            .unwrap_or(&[])
    }

    /// Whether the rig maps humanoid bones: what makes a skeleton humanoid (line 268).
    pub fn is_humanoid(&self) -> bool {
        !self.roles().is_empty()
    }

    /// Whether the rig can turn its eyes: it maps an eye bone.
    pub fn can_turn_eyes(&self) -> bool {
        EYE_ROLES.iter().any(|r| self.bone_of(r).is_some())
    }

    /// Whether the rig has eyes at all: an eye bone, or eyelid shapes to blink.
    pub fn has_eyes(&self) -> bool {
        self.can_turn_eyes() || !self.blink_shapes().is_empty()
    }

    /// Whether `bone` is a bone the rig maps: a standard humanoid name it maps, or one of
    /// its custom bones (001 line 427).
    pub fn maps_bone(&self, bone: &str) -> bool {
        self.bone_of(bone).is_some() || self.custom_bones_or_default().iter().any(|b| b == bone)
    }

    /// The rig's rules: every key of `bones` a humanoid role; no bone name empty; one model
    /// bone mapped by one role and named once among the custom bones; the deferred
    /// `eyeRotationLimits` refused; each blink shape named once.
    pub fn validate(&self, cx: &mut Cx) {
        let mut mapped: HashMap<&str, &str> = HashMap::new();
        if let Some(bones) = &self.bones {
            let at = field_at(&self.at, "bones");
            for (role, span, bone) in &bones.entries {
                if !HUMANOID_ROLES.contains(&role.as_str()) {
                    cx.error_at(
                        &at,
                        *span,
                        format!(
                            "'{role}' is not a humanoid role: 'bones' maps the standard humanoid bones, and a bone beyond them goes in 'customBones'{}",
                            crate::diag::did_you_mean(role, HUMANOID_ROLES.iter().copied())
                        ),
                    );
                }
                if bone.is_empty() {
                    cx.error_at(
                        &at,
                        *span,
                        format!("'{role}' maps an empty bone name: a role maps the name of a bone of the model"),
                    );
                    continue;
                }
                if let Some(first) = mapped.get(bone.as_str()) {
                    cx.error_at(
                        &at,
                        *span,
                        format!(
                            "'{role}' maps the bone '{bone}', which '{first}' already maps: a bone stands for one role"
                        ),
                    );
                } else {
                    mapped.insert(bone.as_str(), role.as_str());
                }
            }
        }
        let mut custom: Vec<&str> = Vec::new();
        for bone in self.custom_bones_or_default() {
            let problem = if bone.is_empty() {
                Some("'customBones' holds an empty name: each entry is the name of a bone of the model".to_string())
            } else if let Some(role) = mapped.get(bone.as_str()) {
                Some(format!(
                    "'customBones' names '{bone}', which 'bones' already maps as '{role}': a custom bone is one the humanoid roles do not map"
                ))
            } else if custom.contains(&bone.as_str()) {
                Some(format!("'customBones' names '{bone}' twice"))
            } else {
                custom.push(bone);
                None
            };
            if let Some(message) = problem {
                cx.error_at(&self.at, self.at.field("customBones"), message);
            }
        }
        if self.eye_rotation_limits.is_some() {
            cx.error_at(
                &self.at,
                self.at.field("eyeRotationLimits"),
                EYE_ROTATION_DEFERRED,
            );
        }
        if let Some(lids) = &self.eyelids {
            let mut seen: Vec<&str> = Vec::new();
            for shape in lids.blink.iter().flatten() {
                let problem = if shape.is_empty() {
                    Some("'blink' holds an empty name: each entry is a blendshape of the skeleton's mesh".to_string())
                } else if seen.contains(&shape.as_str()) {
                    Some(format!("'blink' names the shape '{shape}' twice"))
                } else {
                    seen.push(shape);
                    None
                };
                if let Some(message) = problem {
                    cx.error_at(&lids.at, lids.at.field("blink"), message);
                }
            }
        }
    }
}

/// The [`At`] of member `field` of the block at `at`, for messages about its entries.
fn field_at(at: &At, field: &str) -> At {
    At {
        span: at.field(field),
        path: at.field_path(field),
        fields: Vec::new(),
    }
}

/// Reads a `.dh-rig` source (or a compiled rig, in [`Mode::Load`]): `$type` is allowed and
/// must be `dh.rig`; the members are a closed set. Run [`DhRig::validate`] for the rules.
pub fn read_rig(file: &SourceFile, diags: &mut Diagnostics, mode: Mode) -> Option<DhRig> {
    let v = crate::read::parse_source(file, diags)?;
    let mut cx = Cx::new(file, diags, mode);
    let v = strip_type(&mut cx, v, RIG_TYPE)?;
    read_block::<DhRig>(&mut cx, &v)
}
