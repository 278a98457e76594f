//! Surface presets: one table, data not code. Voxel block rows, materials and collider
//! shapes all name a preset from it; it says how a surface grips, how dense a body made
//! of it is (a prop's default mass), and which sound classes footsteps, landings and
//! impacts read.

/// One surface preset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfacePreset {
    /// The preset's name as authors write it.
    pub name: &'static str,
    /// Friction coefficient a foot or a body gets on it (ice is 0.12, as the spec says).
    pub grip: f32,
    /// Density in kg/m³ (a physics prop's default mass is its volume times this).
    pub density: f32,
    /// The footstep sound class.
    pub footstep: &'static str,
    /// The landing sound class.
    pub landing: &'static str,
    /// The impact sound class.
    pub impact: &'static str,
    /// How soft a landing on it is: the fraction of fall damage it keeps (grass and snow
    /// are soft to land on).
    pub landing_hardness: f32,
}

const fn p(
    name: &'static str,
    grip: f32,
    density: f32,
    class: &'static str,
    landing_hardness: f32,
) -> SurfacePreset {
    SurfacePreset {
        name,
        grip,
        density,
        footstep: class,
        landing: class,
        impact: class,
        landing_hardness,
    }
}

/// Every surface preset. A row that names none is stone.
pub const SURFACE_PRESETS: &[SurfacePreset] = &[
    p("stone", 0.9, 2500.0, "stone", 1.0),
    p("grass", 0.85, 1200.0, "grass", 0.6),
    p("dirt", 0.8, 1500.0, "dirt", 0.75),
    p("wood", 0.75, 700.0, "wood", 0.9),
    p("sand", 0.7, 1600.0, "sand", 0.65),
    p("gravel", 0.75, 1800.0, "gravel", 0.8),
    p("metal", 0.6, 7800.0, "metal", 1.0),
    p("glass", 0.5, 2500.0, "glass", 1.0),
    p("ice", 0.12, 917.0, "ice", 1.0),
    p("snow", 0.45, 300.0, "snow", 0.5),
    p("fabric", 0.8, 300.0, "fabric", 0.7),
    p("ceramic", 0.65, 2300.0, "ceramic", 1.0),
    p("plastic", 0.6, 950.0, "plastic", 0.95),
    p("flesh", 0.8, 1050.0, "flesh", 0.7),
    p("rubber", 1.0, 1100.0, "rubber", 0.6),
];

/// The preset a surface that names none is made of.
pub const DEFAULT_SURFACE: &str = "stone";

/// The preset called `name`.
pub fn surface_preset(name: &str) -> Option<&'static SurfacePreset> {
    SURFACE_PRESETS.iter().find(|s| s.name == name)
}

/// Every preset name, in table order (for "expected one of" messages).
pub fn surface_names() -> Vec<&'static str> {
    SURFACE_PRESETS.iter().map(|s| s.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_ice_is_slippery() {
        let names = surface_names();
        assert_eq!(
            names,
            [
                "stone", "grass", "dirt", "wood", "sand", "gravel", "metal", "glass", "ice",
                "snow", "fabric", "ceramic", "plastic", "flesh", "rubber"
            ]
        );
        assert_eq!(surface_preset("ice").map(|s| s.grip), Some(0.12));
        assert!(surface_preset(DEFAULT_SURFACE).is_some());
        assert!(surface_preset("lava").is_none());
    }
}
