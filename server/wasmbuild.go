package server

import "acambient/internal/wasmbuild"

// WasmBuild and WasmBuildCommand are internal/wasmbuild's, under the names
// wasm/build still calls (wasm/ is being rebuilt elsewhere); they go once it
// imports internal/wasmbuild.
type WasmBuild = wasmbuild.WasmBuild

// WasmBuildCommand is wasmbuild.WasmBuildCommand.
const WasmBuildCommand = wasmbuild.WasmBuildCommand
