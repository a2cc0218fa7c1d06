// Types of www/ambient.js (docs/interfaces.md §3).

/** An id as docs/interfaces.md §0 prints it: "0x" and 8 uppercase hex digits. */
export type Hex = string;

export interface LoadOptions {
  /** Base URL of a dat server or a static export (docs/interfaces.md §2); "" = this page's own. Any origin (CORS). */
  server?: string;
  /** URL of ambient.wasm; default: next to ambient.js. */
  wasm?: string;
  /** URL of wasm_exec.js (Go's glue); default: next to ambient.js. */
  wasmExec?: string;
  /** Base URL of portal records; default server + "/files/". */
  portal?: string;
  /** Base URL of cell records; default server + "/cell/files/". */
  cell?: string;
  /** "acdatservice": portal and cell default to server + "/dats/portal/files/" and "/dats/cell/files/". */
  api?: "acdatservice";
  /**
   * Where the first setPlayer will go, if known: the records the first rebuild there reads (the
   * region, the landblock listing, the 3×3 ring, the EnvCell indoors) are asked for while the wasm
   * downloads, and the Go side takes those answers instead of asking again; outdoors, from the dat
   * server's default routes, so are the landblock's hint (server + "/hints/0xXXYYFFFF",
   * docs/interfaces.md §2.1) and what it names: the SoundTables and the first wave the Go side asks
   * for there (a 404 or a malformed hint asks nothing more). A function is called
   * with the region's name once its record's head has come ("" where it cannot be read: a failed
   * request, a record served compressed), for a page whose opening spot depends on the data. The
   * POS forms of docs/interfaces.md §1.1 whose landblock is plain from the text are read; any
   * other, or null, asks nothing early.
   */
  at?: PositionInput | ((regionName: string) => PositionInput | null | undefined);
}

/** Landblock-local position (docs/interfaces.md §1.2). */
export interface LocalPosition {
  objcellId: number | Hex;
  x: number;
  y: number;
  z: number;
}

/** What setPlayer and setCamera accept. */
export type PositionInput =
  | LocalPosition
  | { X: number; Y: number; Z?: number } // global metres; no Z = terrain height
  | { ns: number; ew: number } // map coordinates, north and east positive
  | string // a POS of docs/interfaces.md §1.1 or a pasted /loc line
  | { objcellId?: number; objCellId?: number; frame: { origin: { x: number; y: number; z: number } } }; // ACPosition-like

export interface CameraInput extends LocalPosition {
  heading?: number;
}

/** A position in every form the page shows. */
export interface Where {
  objcellId: Hex;
  x: number;
  y: number;
  z: number;
  outdoor: boolean;
  /** Global metres. */
  X: number;
  Y: number;
  ns: number;
  ew: number;
}

export interface DirBand {
  dir: number;
  min: number;
  max: number;
}

/** An ambient sound instance (docs/interfaces.md §1.2). */
export interface Sound {
  stbIndex: number;
  stbId: Hex;
  soundIndex: number;
  sType: number;
  continuous: boolean;
  soundCount: number;
  share: number;
  currentVolume: number;
  playChance: number;
  authored: { volume: number; baseChance: number; minRate: number; maxRate: number };
  dirs: DirBand[];
}

/** A play event (docs/interfaces.md §1.3). */
export interface PlayEvent {
  t: number;
  event: "play";
  stbIndex: number;
  soundIndex: number;
  sType: number;
  continuous: boolean;
  wave: Hex;
  variant: number;
  gain: number;
  db: number;
  /** −15..15 whole dB; positive = right. */
  pan: number;
  /** Direction band 1..8, 0 = centred. */
  dir: number;
  dist: number;
}

export interface SkipEvent {
  t: number;
  event: "skip";
  stbIndex: number;
  soundIndex: number;
  /** "loading": the wave is still on its way (the page's progressive start, docs/divergences.md). */
  reason: "chance" | "probability" | "cull" | "noWave" | "noTable" | "voices" | "loading";
}

export interface RebuildEvent {
  t: number;
  event: "rebuild";
  objcellId: Hex;
  outdoorish: boolean;
  totalSoundCount: number;
  instances: number;
}

/** A sounding voice: the play that took it, when it ends (audio-clock seconds) and its slot (0..15). */
export interface Voice extends PlayEvent {
  end: number;
  slot: number;
}

/** A land cell that weighted the last rebuild (the heat map). */
export interface CellWeight {
  objcellId: number;
  stbIndex: number;
  weight: number;
  dir: number;
  dist: number;
}

export interface Loading {
  /** Records fetched for the ambience (map tiles not counted). */
  records: number;
  /** Same as records (docs/interfaces.md §3's name). */
  done: number;
  bytes: number;
  failed: number;
  pending: number;
  /** Decoded wave samples held. */
  heldBytes: number;
  /** Fires skipped because their wave was still on its way ("loading" skips). */
  loadingSkips: number;
  /**
   * Why what the player's place needs is not all here, while that lasts:
   * the failure a record source saw last. Absent when nothing is wrong.
   */
  trouble?: Trouble;
}

/** A bad network, as state().loading.trouble reports it. */
export interface Trouble {
  /**
   * "no-answer": offline or the server unreachable; "status": it answered `status` (429, 5xx);
   * "stalled": an answer stopped coming; "damaged": answers that did not verify; "slow": nothing
   * failed, but records have been on their way for 5 s at under 16 KiB/s (`rate`).
   */
  reason: "no-answer" | "status" | "stalled" | "damaged" | "slow";
  status?: number;
  /** What the server asked to wait (Retry-After), seconds. */
  retryAfter?: number;
  /** "slow": body bytes a second received over the last 5 s. */
  rate?: number;
  /** Seconds until the next ask (0: now, or "slow"). */
  retryIn: number;
  /** Seconds it has lasted. */
  for: number;
  message: string;
}

export interface State {
  player: LocalPosition & { objcellId: Hex };
  outdoorish: boolean;
  totalSoundCount: number;
  contributingCells: number;
  /**
   * What `gather` reports at this position, no more, in its order (a fresh
   * engine's instance-creation order). The instances earlier positions made,
   * which the engine keeps at count 0 as retail does, are not listed.
   */
  sounds: Sound[];
  /** How many instances the engine holds: those of every position it was at (the panel's "live of total"). */
  heldInstances: number;
  /**
   * Set while the listener is off the data: the last setPlayer named a place over a landblock the
   * source does not have (the landblock, 0xXXYYFFFF). The listener is nowhere there: nothing new
   * plays and what sounded has faded out; `player` and `sounds` are still the last place on the
   * data. Null on the data. A "state" event comes as soon as it changes.
   */
  offData: { landblock: Hex } | null;
  voices: Voice[];
  loading: Loading;
  /** The player in every form. */
  where: Where;
  /** The cells that weighted the last rebuild. */
  cells: CellWeight[];
  /** Per sound: when it next fires (audio-clock seconds), −1 when not queued. */
  next: number[];
  /** The audio clock, seconds. */
  time: number;
  /** The AudioContext's state, or "none" before start(). */
  audio: "none" | "suspended" | "running" | "closed";
}

export interface Terrain {
  index: number;
  name: string;
  /** 0xRRGGBB */
  color: number;
}

export interface Landmark {
  name: string;
  description: string;
  where: Where;
}

/** What the page needs once: the terrain legend and (demo world only) its landmarks. */
export interface Info {
  terrains: Terrain[];
  landmarks: Landmark[];
  /** Landblocks that can hold land, inclusive (the demo's 12×12, else 0..254). */
  bounds: { bx0: number; by0: number; bx1: number; by1: number };
  /** Whether the data is the built-in demo world. */
  demo: boolean;
  /** The region's own name: "Dereth" in retail's dats, "Dereth (demo)" in the demo world's. */
  region: string;
}

/** One landblock as a map draws it. Cells are x-major: index 8·cx + cy. */
export interface Tile {
  id: number;
  bx: number;
  by: number;
  /** 64 shaded colours, 0xRRGGBB. */
  colors: number[];
  /** 64 terrain type indices (into Info.terrains). */
  types: number[];
  /** 81 vertex heights, x-major (9·x + y). */
  z: number[];
}

export interface StartResult {
  running: boolean;
  waitingForGesture: boolean;
  sampleRate: number;
}

/**
 * What went wrong, for a page to switch on (never on the message):
 * - "not-found": a record the source does not have (`id`);
 * - "missing-landblock": a landblock a position needs is not there (`landblock`);
 * - "network": the source is unreachable, times out, or keeps failing;
 * - "cors": the source answers, but without CORS headers the browser may not read it;
 * - "bad-record": a record failed verification or decoding (`id`);
 * - "bad-position": a position that does not parse or is off the map;
 * - "wrong-api": the source answers, but not these routes (the other `api` works);
 * - "wasm": the module failed to load or run;
 * - "disposed": the instance was disposed (before the call, or while its promise was pending);
 * - "bad-option": an option out of its range (render's seconds, seed, rate, volume, tick).
 */
export type ErrorCode =
  | "not-found"
  | "missing-landblock"
  | "network"
  | "cors"
  | "bad-record"
  | "bad-position"
  | "wrong-api"
  | "wasm"
  | "disposed"
  | "bad-option";

/** Every error ambient.js throws, rejects with or emits ("error" events). */
export interface AmbientError extends Error {
  code: ErrorCode;
  /** The record: "not-found", "bad-record". */
  id?: Hex;
  /** The landblock 0xXXYYFFFF: "missing-landblock". */
  landblock?: Hex;
  /** "network": what failed (as Trouble.reason, never "slow"), and the status a server answered. */
  reason?: Exclude<Trouble["reason"], "slow">;
  status?: number;
}

/** What the instance knows of a landblock: fetched or listed, missing, or not asked yet. */
export type LandblockPresence = "present" | "absent" | "unknown";

/**
 * What the page plays, in words (docs/interfaces.md §3.3), at most one a second, and
 * only while the audio is heard. A "bed" when a rebuild changes the
 * continuous sounds around the listener; a "call" for an audible one-shot,
 * the loudest of its second.
 */
export interface Caption {
  /** For people: "running water, all around", "a call from the forest, north-east, near". */
  text: string;
  kind: "bed" | "call";
  /**
   * "all around", a compass word ("north", "north-east", …), or with a camera
   * set ("setCamera") a word relative to its heading: "ahead", "ahead-right",
   * "right", "behind-right", "behind", "behind-left", "left", "ahead-left".
   * A call's is the band the engine placed it in; a bed's (of several, the
   * loudest's) the weighted bands of its cells.
   */
  direction: string;
  /** Sent at −20 dB or louder (a one-shot within about 15 m at full volume). */
  near: boolean;
  /** The sound set (of a bed of several, the loudest). */
  stbIndex: number;
  /** Its SoundTable. */
  table: Hex;
  /** The call's wave; null for a bed (its variant is drawn at each fire). */
  wave: Hex | null;
  /** When it sounded (the call's play, the bed's rebuild), audio-clock seconds. */
  t: number;
  /** The whole dB it plays at. */
  db: number;
}

export interface EventMap {
  play: PlayEvent;
  skip: SkipEvent;
  rebuild: RebuildEvent;
  state: State;
  error: AmbientError;
  caption: Caption;
}

/** Methods throw (or reject with) an AmbientError. */
export declare class AmbientAudio {
  static load(opts?: LoadOptions): Promise<AmbientAudio>;
  info: Info;
  readonly running: boolean;
  readonly audioContext: AudioContext | null;
  start(): Promise<StartResult>;
  /**
   * Moves the player; resolves with the position in every form. Over a landblock the source lacks it
   * rejects with "missing-landblock" and the listener is off the data (State.offData). Calls may
   * settle out of order: the latest wins, and an earlier one settling after it changes nothing.
   */
  setPlayer(pos: PositionInput): Promise<Where>;
  setCamera(pos: PositionInput | CameraInput, heading?: number): Promise<Where>;
  setVolume(v: number): void;
  setEnabled(on: boolean): void;
  /**
   * The engine runs in a worker: this is the latest snapshot it posted. It posts one whenever the
   * state changed, checked every 100 ms, and before answering a setPlayer, so a "state" event and
   * state() agree, and after setPlayer resolves state() shows its outcome. `audio` is the context's
   * state now.
   */
  state(): State;
  /**
   * Resolves once a first sound can be heard where the player stands: the
   * ring's landblocks and SoundTables have come, and the first wave the
   * engine wants (the loudest bed's) has come or failed; with the audio
   * context made ahead of the click, the first chunk of that sound is in the
   * worklet's queue already. A click then sounds at once; one before it
   * sounds when the wave arrives. The worker posts it as it happens.
   */
  started(): Promise<void>;
  /**
   * What the instance holds (memory, caches, the output's queue): for long sessions and their
   * benchmarks. The latest figures the worker posted: at most 500 ms old.
   */
  stats(): Stats;
  tile(bx: number, by: number): Promise<Tile | null>;
  /**
   * Whether the source holds landblock (bx, by), as far as this instance knows: from the latest
   * snapshot the worker posted (at most 100 ms old).
   */
  landblock(bx: number, by: number): LandblockPresence;
  on<K extends keyof EventMap>(kind: K, fn: (e: EventMap[K]) => void): this;
  off<K extends keyof EventMap>(kind: K, fn: (e: EventMap[K]) => void): this;
  /** Walks the listener along route at speed m/s (default 12); stop() ends it where it is. */
  walk(route: PositionInput[], opts?: WalkOptions): WalkHandle;
  /**
   * A walk mixed into a WAV Blob: byte for byte what `go run . render -path FILE -seconds N -seed S
   * -rate R -volume A -tick DT -o -` writes over the same source (the command's defaults), in
   * retail's complete-table mode, on an engine of its own: what plays is left alone.
   */
  render(opts: RenderOptions): Promise<Blob>;
  stop(): void;
  /** Ends the instance: its worker is terminated, its worklet node and port closed, its context closed. */
  dispose(): void;
}

/** One step of a render's path: at t seconds the player (and the camera) move. */
export interface PathStep {
  t: number;
  player?: PositionInput;
  /** A camera position; its `heading` (compass degrees), if any, turns it. */
  camera?: PositionInput | CameraInput;
}

export interface RenderOptions {
  /** The steps, a first at t = 0 with a player. */
  path: PathStep[];
  /** Seconds rendered; default 60. */
  seconds?: number;
  /** Seed of both RNGs; default 0. */
  seed?: number;
  /** Output rate, Hz; default 48000. */
  rate?: number;
  /** The ambient slider, 0..1; default 1. */
  volume?: number;
  /** Seconds between the host's ticks; default 1/30. */
  tick?: number;
  /** Seconds rendered so far, of the total, as the render goes. */
  onProgress?: (p: { done: number; total: number }) => void;
}

/** The POS string a position input becomes. */
export declare function toPOS(pos: PositionInput): string;
export * from "./leaflet-ambient";
import type { WalkHandle, WalkOptions } from "./walk";
export type { WalkHandle, WalkOptions } from "./walk";

/** A record source's own count of what it holds (datfetch.HTTPStats). */
export interface SourceStats {
  /** Bytes its budget holds now for answers under way; the most it held; its size (shared by both sources). */
  inFlight: number;
  inFlightPeak: number;
  inFlightMax: number;
  /** Verified record bytes in its cache, and how many records. */
  cached: number;
  cachedRecords: number;
  /** GETs sent to the network (retries included; cache hits not). */
  requests: number;
  /** Body bytes read off the network so far: over time, the rate records arrive at. */
  received: number;
}

/** What an instance holds (AmbientAudio.stats()), for long sessions. */
export interface Stats {
  /** The Go runtime's memory (runtime/metrics), bytes; gcs and goroutines are counts. */
  go: {
    /** The heap the last GC found live. */
    live: number;
    /** Heap objects, live and not yet swept. */
    objects: number;
    free: number;
    released: number;
    /** The heap size the next GC aims at. */
    goal: number;
    stacks: number;
    /** Everything the runtime has mapped. */
    total: number;
    /** Allocated since the start. */
    allocated: number;
    gcs: number;
    goroutines: number;
  };
  /** The wasm's linear memory, bytes: it never shrinks, so this is what the tab keeps. */
  wasmMemory: number;
  loading: Omit<Loading, "done">;
  /** What the host holds now. */
  held: { blocks: number; cells: number; tables: number; waves: number; waveBytes: number; kept: number; keptBytes: number };
  portal: SourceStats;
  cell: SourceStats;
  /** The mixer's resampled waves kept for reuse: bytes and how many. */
  mixer: { cached: number; clips: number };
  /**
   * The requests load() made while the wasm downloaded (LoadOptions.at): how many, how many the Go
   * side took instead of asking itself, and how many it never asked for, aborted once the first
   * sound could be heard.
   */
  early: { fetched: number; taken: number; dropped: number; /** The first Wave record's URL the Go side asked for ("" none yet). */ firstWave: string };
  /**
   * The output (docs/architecture.md, "The page's threads"): the AudioWorklet's queue, frames
   * (queued now, played in all), the render quanta it had to fill with silence since the stream
   * began (underruns), the frames of queued silence skipped so that a sound after silence is heard at
   * once (skipped), and the worker's side: chunks rendered through oto for the worklet, the
   * time they took (ms), frames sent.
   */
  output: { underruns: number; queued: number; played: number; skipped: number; renders: number; renderMs: number; sent: number; stalls: number; stallMs: number };
  /**
   * The blocks decoded and resampled waves are held in (one pool the
   * instance's waves share), bytes: every block in being (in use, garbage
   * not yet collected among it, and free) and those free for the next wave
   * (at most 1 MiB is kept free). Part of go.live, not beside it.
   */
  samples: { total: number; free: number };
}
