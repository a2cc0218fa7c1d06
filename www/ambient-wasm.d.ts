// Types of ambient-wasm.js (docs/interfaces.md §5).

/** The absolute URL of ambient.wasm as the app serves it. */
export const wasmURL: string;
