#!/usr/bin/env bash
# The main job: the default benchmark scene on the embedded core pallet, printing the
# frame timer. Extra arguments go to `dh-engine bench` (e.g. a scene name, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec cargo run --release --locked -p dh-engine -- bench "$@"
