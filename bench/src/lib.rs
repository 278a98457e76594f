//! Benchmark scenes and side-by-side benchmarks against peer crates.
#![warn(missing_docs)]
