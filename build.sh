#!/usr/bin/env bash
# Builds the browser side into www/: ambient.wasm from the wasm main in ./wasm
# and the wasm_exec.js of the same Go toolchain. The recipe lives in one place,
# wasmbuild.WasmBuild (internal/wasmbuild); this runs it, as `serve` and `export` do
# when www/ambient.wasm is missing or older than its sources.
set -euo pipefail
cd "$(dirname "$0")"
exec go run ./wasm/build -www www "$@"
