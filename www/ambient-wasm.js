// ambient-wasm.js: where the engine's wasm is, beside this module, in the
// literal form bundlers follow (Vite, webpack 5, Rollup, esbuild copy the
// file into the build and put its URL here).
//
// ambient.js imports this module dynamically rather than naming the wasm
// itself: Nuxt (through vue-bundle-renderer) renders a <link rel="prefetch">
// for every asset of the chunks a page uses, but not for the assets of the
// chunks those import dynamically. Named in ambient.js's own chunk, the
// 4.7 MB wasm was prefetched and then fetched again by the module, twice in
// all (docs/interfaces.md §5; e2e/nuxt_test.go).

/** The absolute URL of ambient.wasm as the app serves it. */
export const wasmURL = new URL("./ambient.wasm", import.meta.url).href;
