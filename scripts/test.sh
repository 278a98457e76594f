#!/usr/bin/env bash
# The project's test command: formatting, lints, then every test of the workspace.
# Vulkan tests run on Mesa lavapipe with the Khronos validation layer.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export CARGO_TERM_COLOR=never
lvp=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1 || true)
if [ -n "$lvp" ]; then export VK_DRIVER_FILES="$lvp"; fi
MESA_SHADER_CACHE_DIR=$(mktemp -d)
export MESA_SHADER_CACHE_DIR
trap 'rm -rf "$MESA_SHADER_CACHE_DIR"' EXIT
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
