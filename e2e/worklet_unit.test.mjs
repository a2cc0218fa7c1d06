// Unit tests of the audio thread's queue (www/ambient.worklet.js) under
// node: the worklet's globals (AudioWorkletProcessor, registerProcessor) are
// given here, its port is a fake that keeps what it posts, and process() is
// called as the audio thread calls it, a render quantum (128 frames) at a
// time. Run by TestWorkletUnit in page_test.go.
import test from "node:test";
import assert from "node:assert/strict";

let Processor = null;
globalThis.AudioWorkletProcessor = class { constructor() { this.port = { onmessage: null }; } };
globalThis.registerProcessor = (_name, cls) => { Processor = cls; };
await import("../www/ambient.worklet.js");

const QUANTUM = 128, CHUNK = 1024;

// worklet is a processor with its feed connected: reports keeps what it
// reported, send posts a chunk as the worker does (planar stereo, value v
// in every sample, sound when v is not 0), play runs n quanta and returns
// the left channel heard.
function worklet() {
  const p = new Processor();
  const reports = [];
  const feed = { postMessage: (m) => reports.push(m), onmessage: null, close() {} };
  p.port.onmessage({ data: { port: feed } });
  return {
    p, reports,
    send(v, frames = CHUNK) { feed.onmessage({ data: { chunk: new Float32Array(2 * frames).fill(v), sound: v !== 0 } }); },
    // pre sends a chunk of the clock's mixing before the click (the worker's
    // Output.mix while the context waits).
    pre(v) { feed.onmessage({ data: { chunk: new Float32Array(2 * CHUNK).fill(v), sound: v !== 0, pre: true } }); },
    play(n) {
      const heard = [];
      for (let i = 0; i < n; i++) {
        const L = new Float32Array(QUANTUM), R = new Float32Array(QUANTUM);
        assert.equal(p.process([], [[L, R]]), true);
        heard.push(...L);
      }
      return heard;
    },
  };
}

test("worklet: a sound after queued silence skips all but KEEP (2048) frames of it", () => {
  const w = worklet();
  for (let i = 0; i < 8; i++) w.send(0); // the worker's queue of silence: 8192 frames
  w.send(0.5);
  assert.equal(w.p.queued, 2048 + 1024, "queued after the skip");
  assert.equal(w.p.skipped, 6144);
  // The worker learns at once, to refill: its report counts the new chunk.
  const r = w.reports.at(-1);
  assert.deepEqual([r.queued, r.received, r.skipped], [3072, 9216, 6144]);
  const heard = w.play(24);
  assert.equal(heard.indexOf(0.5), 2048, "the sound's first frame heard, frames in");
  assert.equal(w.p.underruns, 0);
});

test("worklet: only the stream's first sound skips: silence between sounds stays", () => {
  const w = worklet();
  w.send(0.5);
  for (let i = 0; i < 6; i++) w.send(0);
  w.send(0.25); // a sound already queued: nothing is skipped
  assert.deepEqual([w.p.queued, w.p.skipped], [8192, 0]);
  const heard = w.play(64);
  assert.equal(heard.indexOf(0.25), 7168, "the second sound after the silence between");
  // Played out, the queue is silence again; a sound after it keeps its
  // place (the audio clock's offset to the engine's stays as it was).
  for (let i = 0; i < 4; i++) w.send(0);
  w.send(0.75);
  assert.deepEqual([w.p.queued, w.p.skipped], [5120, 0]);
  assert.equal(w.play(40).indexOf(0.75), 4096);
  // A flush begins the stream again (stop, then start): its first sound skips.
  w.p.take({ flush: true });
  for (let i = 0; i < 8; i++) w.send(0);
  w.send(0.5);
  assert.deepEqual([w.p.queued, w.p.skipped], [2048 + 1024, 6144]);
});

test("worklet: a short queue of silence is not skipped", () => {
  const w = worklet();
  w.send(0);
  w.send(0);
  w.send(0.5);
  assert.deepEqual([w.p.queued, w.p.skipped], [3072, 0]);
  assert.equal(w.play(24).indexOf(0.5), 2048);
});

test("worklet: a skip starts mid-chunk where the queue was played into", () => {
  const w = worklet();
  for (let i = 0; i < 4; i++) w.send(0);
  w.play(3); // 384 frames of the first chunk played
  w.send(0.5);
  // 640 + 1024 + 1024 + 1024 of silence: the first two chunks go.
  assert.deepEqual([w.p.queued, w.p.skipped], [2048 + 1024, 1664]);
  assert.equal(w.play(24).indexOf(0.5), 2048);
});

test("worklet: an empty queue plays silence and counts underruns once the stream began", () => {
  const w = worklet();
  w.play(2);
  assert.equal(w.p.underruns, 0, "before the first chunk");
  w.send(0.5, 128);
  const heard = w.play(2);
  assert.deepEqual([heard[0], heard[127], heard[128]], [0.5, 0.5, 0]);
  assert.equal(w.p.underruns, 1);
  assert.equal(w.reports.at(-1).underruns, 1, "a starved quantum reports at once");
});

test("worklet: a flush empties the queue and forgets its sound", () => {
  const w = worklet();
  w.send(0.5);
  w.p.feed.onmessage({ data: { flush: true } });
  assert.deepEqual([w.p.queued, w.p.sounded], [0, false]);
  for (let i = 0; i < 8; i++) w.send(0);
  w.send(0.5);
  assert.equal(w.p.skipped, 6144, "silence after a flush is skipped as at the start");
});

test("worklet: while the context waits it keeps the clock's latest HOLD (8192) frames, and acknowledges each chunk", () => {
  const w = worklet();
  for (let i = 0; i < 20; i++) w.pre(i + 1); // 20 chunks of sound, each its own value
  assert.equal(w.p.queued, 8192, "held");
  assert.equal(w.reports.length, 20, "a report for every chunk taken");
  const r = w.reports.at(-1);
  assert.deepEqual([r.queued, r.received, r.live], [8192, 20 * CHUNK, false]);
  // The first quantum plays the oldest held (chunk 13's), reports at once
  // that the context runs, and counts no underrun.
  const heard = w.play(1);
  assert.equal(heard[0], 13);
  assert.equal(w.reports.at(-1).live, true);
  assert.equal(w.p.underruns, 0);
});

test("worklet: the first sound held after silence keeps KEEP (2048) frames of it ahead while it waits", () => {
  const w = worklet();
  for (let i = 0; i < 12; i++) w.pre(0);
  w.pre(0.5);
  assert.deepEqual([w.p.queued, w.p.skipped], [2048 + 1024, 6144]);
});

test("worklet: as the context starts, the silence ahead of a held sound goes, but KEEP (2048) frames of queue", () => {
  const w = worklet();
  for (let i = 0; i < 12; i++) w.pre(0);
  w.pre(0.5);
  w.pre(0.5);
  // [1024 silence][1024 silence][sound][sound]: both silent chunks go.
  const heard = w.play(16);
  assert.equal(heard.indexOf(0.5), 0, "the sound from the first quantum");
  assert.equal(w.p.skipped, 6144 + 2048);
  // With one chunk of sound held, a chunk of silence stays ahead of it: the
  // queue keeps KEEP frames for the feed to begin.
  const v = worklet();
  for (let i = 0; i < 12; i++) v.pre(0);
  v.pre(0.5);
  assert.equal(v.play(16).indexOf(0.5), 1024);
  // Silence alone is kept as it is.
  const u = worklet();
  for (let i = 0; i < 3; i++) u.pre(0);
  u.play(1);
  assert.deepEqual([u.p.queued, u.p.skipped], [3072 - 128, 0]);
});

test("worklet: a held sound dropped as past leaves the next one to skip silence again", () => {
  const w = worklet();
  w.pre(0.5);
  for (let i = 0; i < 9; i++) w.pre(0); // the sound is dropped: 9216 frames of silence came after it
  assert.deepEqual([w.p.queued, w.p.sounded], [8192, false]);
  w.pre(0.25);
  assert.equal(w.p.queued, 2048 + 1024);
});

test("worklet: held chunks are not the feed: silence after them counts no underrun until the feed's first chunk", () => {
  const w = worklet();
  w.pre(0.5);
  w.play(10); // the context runs: the held chunk plays out, then nothing comes
  assert.equal(w.p.underruns, 0);
  w.send(0.5, 128);
  w.play(2);
  assert.equal(w.p.underruns, 1, "an underrun once the feed began");
});

test("worklet: once the context runs, the clock's chunks queue as they come (nothing is dropped)", () => {
  const w = worklet();
  w.play(1);
  for (let i = 0; i < 12; i++) w.pre(0.5);
  assert.equal(w.p.queued, 12 * CHUNK);
  // A flush (the audio stops) lets the queue hold again.
  w.p.take({ flush: true });
  for (let i = 0; i < 12; i++) w.pre(0.5);
  assert.equal(w.p.queued, 8192);
});
