//! Lightmap storage (spec 000 "Lightmap" through "What a bake does not do yet"): the MonoSH
//! texel and its evaluation ([`monosh`]), the block compression a page is stored in
//! ([`codec`], with shared-exponent texels in [`rgb9e5`]), and the
//! `<map>.dh-map.dh-lightmap` sidecar a bake writes and `dh build` packages ([`sidecar`]).
//! Nothing here bakes: the bake itself is the editor's and `--bakeLightmaps`'.

pub mod build;
pub mod codec;
pub mod monosh;
pub mod rgb9e5;
pub mod sidecar;

pub use sidecar::{Lightmap, SidecarError};
