//! Spawn selection (the spec's dh.spawnPoint): a random spawn no one is standing on, stacking
//! only when every one is taken; a single spawn spreads players deterministically so they
//! never overlap; a map with no spawn point spawns at the origin.

use glam::Vec3;

/// A spawn: a feet position and the yaw the player faces. Pitch and roll are not read: a
/// player spawns level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnPose {
    /// Feet position in meters.
    pub feet: Vec3,
    /// Facing in degrees about +Y (0 faces -Z, 90 faces -X).
    pub yaw: f32,
}

impl SpawnPose {
    /// The spawn a map with no spawn point yields: the origin, facing -Z.
    pub const ORIGIN: SpawnPose = SpawnPose {
        feet: Vec3::ZERO,
        yaw: 0.0,
    };

    /// A spawn read off its object: the position is the feet, and the middle component of the
    /// `[pitch, yaw, roll]` rotation is the facing.
    pub fn from_rotation_degrees(position: Vec3, rotation: Vec3) -> SpawnPose {
        SpawnPose {
            feet: position,
            yaw: rotation.y,
        }
    }
}

/// A place spawn selection asks about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpawnCandidate {
    /// The feet position.
    pub feet: Vec3,
    /// True for an authored spawn's own position, false for a spread slot beside it (which
    /// the world also checks against solid geometry).
    pub authored: bool,
}

/// The seeded random source spawn selection draws from (SplitMix64), so runs with one seed
/// place players identically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnRng {
    state: u64,
}

impl SpawnRng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SpawnRng {
        SpawnRng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// How many rings of slots a single spawn spreads over before it stacks at the spawn.
pub const SPREAD_RINGS: u32 = 8;

/// The feet position of slot `slot` of a single spawn's spread. Slot 0 is the spawn itself;
/// ring `k` (k ≥ 1) holds `6k` slots on a circle of radius `k × spacing` about it, the first
/// at the spawn's right (+X for yaw 0) and the rest turning from the right toward the back
/// (+Z for yaw 0). Neighbours on a ring and on adjacent rings are at least `spacing` apart.
/// Returns `None` past the last ring.
pub fn spread_slot(spawn: &SpawnPose, slot: u32, spacing: f32) -> Option<Vec3> {
    if slot == 0 {
        return Some(spawn.feet);
    }
    let mut first = 1u32;
    for ring in 1..=SPREAD_RINGS {
        let count = 6 * ring;
        if slot < first + count {
            let i = slot - first;
            let theta = std::f32::consts::TAU * i as f32 / count as f32;
            let r = ring as f32 * spacing;
            let (lx, lz) = (theta.cos() * r, theta.sin() * r);
            let (s, c) = spawn.yaw.to_radians().sin_cos();
            // Rotate the spawn-frame offset about +Y by the spawn's yaw.
            let (wx, wz) = (lx * c + lz * s, -lx * s + lz * c);
            let f = spawn.feet;
            return Some(Vec3::new(f.x + wx, f.y, f.z + wz));
        }
        first += count;
    }
    None
}

/// Picks where the next player spawns.
///
/// * No spawn authored: [`SpawnPose::ORIGIN`].
/// * One spawn: the first slot of its spread ([`spread_slot`]) that is not `occupied`, facing
///   the spawn's yaw; the spawn itself when every slot is taken.
/// * Several: a random one (from `rng`) among those not `occupied`; a random one among all
///   when every one is (stacking).
///
/// `spacing` is the distance between spread slots: at least a pawn's diameter.
pub fn select_spawn(
    spawns: &[SpawnPose],
    spacing: f32,
    occupied: impl Fn(SpawnCandidate) -> bool,
    rng: &mut SpawnRng,
) -> SpawnPose {
    match spawns {
        [] => SpawnPose::ORIGIN,
        [only] => {
            let mut slot = 0;
            while let Some(feet) = spread_slot(only, slot, spacing) {
                let candidate = SpawnCandidate {
                    feet,
                    authored: slot == 0,
                };
                if !occupied(candidate) {
                    return SpawnPose {
                        feet,
                        yaw: only.yaw,
                    };
                }
                slot += 1;
            }
            *only
        }
        many => {
            let free: Vec<&SpawnPose> = many
                .iter()
                .filter(|s| {
                    !occupied(SpawnCandidate {
                        feet: s.feet,
                        authored: true,
                    })
                })
                .collect();
            if free.is_empty() {
                many[rng.below(many.len())]
            } else {
                *free[rng.below(free.len())]
            }
        }
    }
}
