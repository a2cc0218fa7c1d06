package session

import (
	"sync"

	"acambient/core/ambient"
	"acambient/core/caption"
)

// maxProblems bounds the load problems kept for Drain, maxCaptions the
// captions (at most one a second: a minute's worth).
const (
	maxProblems = 64
	maxCaptions = 64
)

// Drained is what happened since the last Drain.
type Drained struct {
	Events   []ambient.Event   `json:"events"` // as docs/interfaces.md §1.3 writes them
	Errors   []Problem         `json:"errors"`
	Captions []caption.Caption `json:"captions"` // Options.Captions; docs/interfaces.md §3.3
	Dropped  int               `json:"dropped"`  // events lost to the bound
}

// Drain takes the events and load problems kept since the last Drain
// (Options.EventLog): a page that stops asking (a background tab) loses
// the oldest events, not memory.
func (h *Host) Drain() Drained { return h.log.drain() }

// eventLog is the page's one buffer of events and problems, bounded. It
// has its own lock: problems arrive from loading goroutines, events from
// Tick (under the host's lock, which is taken first).
type eventLog struct {
	max int // events kept; 0 keeps nothing

	mu       sync.Mutex
	evs      []ambient.Event
	problems []Problem
	captions []caption.Caption
	dropped  int
}

func (l *eventLog) events(evs []ambient.Event) {
	if l.max <= 0 || len(evs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, evs...)
	// Trimmed once it holds twice the bound, so that a log nobody drains
	// costs a copy every max events, not every tick.
	if len(l.evs) >= 2*l.max {
		l.trim()
	}
}

func (l *eventLog) trim() {
	if over := len(l.evs) - l.max; over > 0 {
		l.dropped += over
		l.evs = append(l.evs[:0], l.evs[over:]...)
	}
}

func (l *eventLog) problem(err error) {
	if l.max <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.problems) >= maxProblems {
		l.problems = append(l.problems[:0], l.problems[1:]...)
	}
	l.problems = append(l.problems, Classify(err))
}

// caption keeps a caption; the oldest go past maxCaptions.
func (l *eventLog) caption(c caption.Caption) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.captions) >= maxCaptions {
		l.captions = append(l.captions[:0], l.captions[1:]...)
	}
	l.captions = append(l.captions, c)
}

func (l *eventLog) drain() Drained {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.trim()
	d := Drained{Events: l.evs, Errors: l.problems, Captions: l.captions, Dropped: l.dropped}
	if d.Events == nil {
		d.Events = []ambient.Event{}
	}
	if d.Errors == nil {
		d.Errors = []Problem{}
	}
	if d.Captions == nil {
		d.Captions = []caption.Caption{}
	}
	l.evs, l.problems, l.captions, l.dropped = nil, nil, nil, 0
	return d
}
