//! The simulation world: runtime components, the logic graph, movers, physics, pawns.
#![warn(missing_docs)]
