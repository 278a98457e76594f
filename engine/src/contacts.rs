//! `client.debug.contacts` (spec `dh.voxel` 004:313–315, "Seeing it"): the player mover's
//! contacts, one log line when a contact begins and one when it ends.
//!
//! A contact is a body the pawn's capsule touches
//! ([`dh_sims::physics::PhysicsWorld::pawn_contacts`]: within the skin and the ground
//! probe, so the ground a pawn rests on is one), one per body. Each tick the host asks for
//! every pawn's contacts (in pawn id order) and compares them with the last tick's: a body
//! newly touched logs `ENTER`, one no longer touched logs `EXIT`. The spec shows only the
//! `ENTER` line; `EXIT` is ours, and it names the body as its `ENTER` did (the body may be
//! gone by then: a chunk dropped past the margin) with the contact last seen.
//!
//! A voxel contact names its volume, its grid, its chunk, the chunk body's triangles, and
//! the cell, block and surface the pawn touched, in the spec's form:
//!
//! ```text
//! player mover contact ENTER — body #12: voxel volume 'village' | grid 0 'minecraft:overworld' chunk (1, 4, 0) | 182 triangles | cell (20, 70, 5) minecraft:grass_block | surface grass | contact (20.50, 71.00, 5.50) normal (0.00, 1.00, 0.00) | pawn 'p'
//! ```
//!
//! The spec elides what follows `contact`; ours is the contact point on the body and the
//! normal out of it toward the pawn, in meters to two decimals, then the pawn's name (the
//! host runs many pawns; the spec's client has one player). Any other body names its
//! record: `body #3: 'floor' (objects[2]) | surface stone | contact ...`.

use std::collections::BTreeMap;

use dh_sims::physics::{BodyHandle, PawnContact};
use dh_sims::PawnId;
use glam::Vec3;

/// What a voxel contact names (spec 004:313).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoxelContact {
    /// The volume's name (its record's).
    pub volume: String,
    /// The grid's index in its payload.
    pub grid: usize,
    /// The grid's name.
    pub grid_name: String,
    /// The chunk the body is.
    pub chunk: [i32; 3],
    /// The chunk body's triangles.
    pub triangles: u32,
    /// The cell touched, in the grid's cells.
    pub cell: [i32; 3],
    /// Its block, `namespace:id`.
    pub block: String,
    /// Its surface preset.
    pub surface: String,
}

impl VoxelContact {
    /// The body's name as a contact line prints it (after `body #N: `).
    pub fn describe(&self) -> String {
        let [cx, cy, cz] = self.chunk;
        let [x, y, z] = self.cell;
        format!(
            "voxel volume '{}' | grid {} '{}' chunk ({cx}, {cy}, {cz}) | {} triangles | cell ({x}, {y}, {z}) {} | surface {}",
            self.volume, self.grid, self.grid_name, self.triangles, self.block, self.surface
        )
    }
}

/// A vector to two decimals, `(x, y, z)` (no `-0.00`).
pub fn meters(v: Vec3) -> String {
    let n = |c: f32| {
        let r = (f64::from(c) * 100.0).round() / 100.0;
        let r = if r == 0.0 { 0.0 } else { r };
        format!("{r:.2}")
    };
    format!("({}, {}, {})", n(v.x), n(v.y), n(v.z))
}

/// Whether a contact begins or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// The pawn touches the body now and did not last tick.
    Enter,
    /// The pawn touched the body last tick and does not now (ours: the spec shows ENTER).
    Exit,
}

/// One contact line: `player mover contact ENTER — body #N: <name> | contact <point>
/// normal <normal> | pawn '<pawn>'`.
pub fn line(edge: Edge, body: BodyHandle, name: &str, contact: &PawnContact, pawn: &str) -> String {
    let what = match edge {
        Edge::Enter => "ENTER",
        Edge::Exit => "EXIT",
    };
    format!(
        "player mover contact {what} — body #{}: {name} | contact {} normal {} | pawn '{pawn}'",
        body.index(),
        meters(contact.point),
        meters(contact.normal)
    )
}

/// The contacts each pawn had last tick, each with the name its `ENTER` line gave it and
/// the contact last seen.
#[derive(Debug, Default, Clone)]
pub struct ContactLog {
    seen: BTreeMap<PawnId, BTreeMap<BodyHandle, (String, PawnContact)>>,
}

impl ContactLog {
    /// Forgets every contact (the preference was switched off: no `EXIT` lines follow).
    pub fn clear(&mut self) {
        self.seen.clear();
    }

    /// Pawn `pawn` (named `pawn_name`) touches `now` this tick: the lines of the contacts
    /// that ended (body order), then of those that began (body order), each new body named
    /// by `name`.
    pub fn update(
        &mut self,
        pawn: PawnId,
        pawn_name: &str,
        now: &[PawnContact],
        mut name: impl FnMut(&PawnContact) -> String,
    ) -> Vec<String> {
        let seen = self.seen.entry(pawn).or_default();
        let mut out = Vec::new();
        let gone: Vec<BodyHandle> = seen
            .keys()
            .filter(|b| !now.iter().any(|c| c.body == **b))
            .copied()
            .collect();
        for b in gone {
            if let Some((n, last)) = seen.remove(&b) {
                out.push(line(Edge::Exit, b, &n, &last, pawn_name));
            }
        }
        for c in now {
            match seen.get_mut(&c.body) {
                Some(entry) => entry.1 = *c,
                None => {
                    let n = name(c);
                    out.push(line(Edge::Enter, c.body, &n, c, pawn_name));
                    seen.insert(c.body, (n, *c));
                }
            }
        }
        out
    }

    /// Forgets pawns no longer spawned.
    pub fn retain(&mut self, alive: impl Fn(PawnId) -> bool) {
        self.seen.retain(|id, _| alive(*id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_voxel_contact_reads_as_the_specs_line() {
        let v = VoxelContact {
            volume: "village".into(),
            grid: 0,
            grid_name: "minecraft:overworld".into(),
            chunk: [1, 4, 0],
            triangles: 182,
            cell: [20, 70, 5],
            block: "minecraft:grass_block".into(),
            surface: "grass".into(),
        };
        assert_eq!(
            v.describe(),
            "voxel volume 'village' | grid 0 'minecraft:overworld' chunk (1, 4, 0) | 182 triangles | cell (20, 70, 5) minecraft:grass_block | surface grass"
        );
        assert_eq!(
            meters(Vec3::new(-0.001, 1.0, 20.506)),
            "(0.00, 1.00, 20.51)"
        );
    }
}
