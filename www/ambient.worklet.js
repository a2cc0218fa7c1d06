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

// The silence the stream's first sound keeps ahead of it (frames, 43 ms):
// the first chunk with sound in it since the stream began (or was flushed)
// skips the silence queued past this. The engine's clock does not move:
// what goes is zeros mixed already, so a first sound that comes while the
// queue is full of the wait's silence (a click made while loading) is
// heard a queue sooner, and the queue's depth is back as the worker
// refills it, on this report. What stays covers that refill. Only the
// first: a skip moves every later sound's place on the audio clock against
// the engine's by what it skipped, once, not at every sound after a pause.
const KEEP = 2048;

// What the queue holds while the context waits (frames, 171 ms at 48
// kHz): before the click the worker sends the engine's clock here as it
// mixes it (marked pre), and the queue keeps its latest HOLD frames, so
// that the click's first quantum plays them with no message to the worker
// first (a cold visit's click waited 40–110 ms for a worker busy decoding
// the ring's waves, bench/firstsound), and the worker has this long to
// start its feed. Older frames are the past: dropped.
const HOLD = 8192;

class AmbientOutput extends AudioWorkletProcessor {
  constructor() {
    super();
    this.chunks = []; // planar Float32Arrays, oldest first
    this.sounded = false; // a chunk with sound in it has come since the stream began
    this.skipped = 0; // frames of silence skipped (KEEP), all told
    this.at = 0; // frames of chunks[0] already played
    this.queued = 0; // frames held
    this.received = 0; // frames received, all told
    this.played = 0;
    this.underruns = 0;
    this.began = false; // a chunk of the feed has come: silence from now on is an underrun
    this.live = false; // process() has run since the stream began (or was flushed): the context runs
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
      this.sounded = false;
      this.began = false;
      this.live = false;
      return;
    }
    const n = m.chunk.length / 2;
    this.received += n;
    if (!m.pre) this.began = true;
    const first = m.sound && !this.sounded && this.queued > KEEP;
    m.chunk.sound = !!m.sound;
    if (m.sound) this.sounded = true;
    this.chunks.push(m.chunk);
    this.queued += n;
    if (first) this.skip(n);
    if (m.pre && !this.live) this.hold();
    // A pre chunk is acknowledged at once: the worker sends the next only
    // to a queue that takes them while the context waits.
    if (first || m.pre) this.report();
  }

  // hold drops the oldest chunks past HOLD frames while the context waits;
  // a sound they held is gone, and the next one skips silence again (KEEP).
  hold() {
    this.shed(HOLD, false);
    this.sounded = this.chunks.some((c) => c.sound);
  }

  // skip drops whole chunks of silence from the queue's front while KEEP
  // frames or more of it would stay ahead of the sound's n.
  skip(n) { this.skipped += this.shed(KEEP + n, true); }

  // lead drops, as the context starts on what it held (no chunk of the
  // feed yet), the silence queued ahead of a sound it holds, but KEEP frames
  // of the queue: a click just after started() found the first sound
  // behind KEEP frames of silence, heard 43 ms late. Nothing has played
  // yet: the audio clock's offset to the engine's is set from here on, once.
  lead() {
    if (this.chunks.some((c) => c.sound)) this.skipped += this.shed(KEEP, true);
  }

  // shed drops whole chunks from the queue's front (only silent ones if
  // silent) while keep frames or more would stay, and returns the frames
  // it dropped.
  shed(keep, silent) {
    let dropped = 0;
    while (this.chunks.length && !(silent && this.chunks[0].sound)) {
      const left = this.chunks[0].length / 2 - this.at;
      if (this.queued - left < keep) break;
      this.chunks.shift();
      this.at = 0;
      this.queued -= left;
      dropped += left;
    }
    return dropped;
  }

  report() {
    this.feed?.postMessage({ queued: this.queued, received: this.received, played: this.played, underruns: this.underruns, skipped: this.skipped, live: this.live });
  }

  process(_inputs, outputs) {
    if (this.closed) return false;
    const starting = !this.live;
    this.live = true;
    if (starting && !this.began) this.lead();
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
    // Every REPORT quanta, the first since the context ran, and every
    // quantum it starves (the worker then learns at once that the audio
    // thread runs).
    if (++this.quanta % REPORT === 0 || i < want || starting) this.report();
    return true;
  }
}

registerProcessor("acambient-output", AmbientOutput);
