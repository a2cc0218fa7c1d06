// ambient.worklet.js: the audio thread's end of the stream (docs/architecture.md,
// "The page's threads"). ambient.js adds it to its AudioContext and hands
// the node one end of a MessagePort whose other end the worker holds; the
// worker (ambient.worker.js) sends stereo float32 chunks (planar: the left
// channel, then the right) and this plays them from a queue. The worker
// keeps the queue at its target from what this reports: every REPORT
// render quanta, the frames it holds and has received, the frames played,
// and the underruns (render quanta it had to fill with silence since the
// stream began). No SharedArrayBuffer: a page needs no special headers.

// How often the queue reports (render quanta of 128 frames): 1024 frames,
// the worker's chunk.
const REPORT = 8;

class AmbientOutput extends AudioWorkletProcessor {
  constructor() {
    super();
    this.chunks = []; // planar Float32Arrays, oldest first
    this.at = 0; // frames of chunks[0] already played
    this.queued = 0; // frames held
    this.received = 0; // frames received, all told
    this.played = 0;
    this.underruns = 0;
    this.began = false; // a chunk has come: silence from now on is an underrun
    this.quanta = 0;
    this.feed = null;
    this.port.onmessage = (e) => {
      if (e.data.port) {
        this.feed = e.data.port;
        this.feed.onmessage = (m) => this.take(m.data);
      }
      if (e.data.close) { this.feed?.close(); this.feed = null; this.closed = true; }
    };
  }

  take(m) {
    if (m.flush) {
      this.chunks = [];
      this.at = 0;
      this.queued = 0;
      this.began = false;
      return;
    }
    this.chunks.push(m.chunk);
    const n = m.chunk.length / 2;
    this.queued += n;
    this.received += n;
    this.began = true;
  }

  process(_inputs, outputs) {
    if (this.closed) return false;
    const out = outputs[0], L = out[0], R = out[1] || out[0];
    const want = L.length;
    let i = 0;
    while (i < want && this.chunks.length) {
      const c = this.chunks[0], n = c.length / 2;
      const k = Math.min(want - i, n - this.at);
      L.set(c.subarray(this.at, this.at + k), i);
      if (R !== L) R.set(c.subarray(n + this.at, n + this.at + k), i);
      i += k;
      this.at += k;
      if (this.at === n) { this.chunks.shift(); this.at = 0; }
    }
    this.queued -= i;
    this.played += i;
    if (i < want) {
      L.fill(0, i);
      if (R !== L) R.fill(0, i);
      if (this.began) this.underruns++;
    }
    // Every REPORT quanta, and every quantum it starves (the worker then
    // learns at once that the audio thread runs).
    if (++this.quanta % REPORT === 0 || i < want) {
      this.feed?.postMessage({ queued: this.queued, received: this.received, played: this.played, underruns: this.underruns });
    }
    return true;
  }
}

registerProcessor("acambient-output", AmbientOutput);
