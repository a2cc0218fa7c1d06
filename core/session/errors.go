package session

import (
	"errors"
	"fmt"

	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// Code is what kind of problem an error is, as the page's JavaScript API
// reports it (docs/interfaces.md §3.4: every error is an Error with
// a code). A page switches on it, never on the message.
type Code string

// The codes. CodeCORS, CodeWrongAPI and CodeDisposed are told by
// ambient.js itself, which sees what Go cannot (an opaque answer, the other
// API's route, its own state); the rest come from Classify.
const (
	CodeNotFound         Code = "not-found"         // a record the source does not have (ID)
	CodeMissingLandblock Code = "missing-landblock" // a landblock a position needs is not there (Landblock)
	CodeNetwork          Code = "network"           // unreachable, timed out, failing after the retries
	CodeCORS             Code = "cors"              // the browser may not read the source's answers
	CodeBadRecord        Code = "bad-record"        // a record failed verification or decoding (ID)
	CodeBadPosition      Code = "bad-position"      // a POS that does not parse or is off the map
	CodeWrongAPI         Code = "wrong-api"         // the source answers, but not these routes (told by ambient.js)
	CodeWasm             Code = "wasm"              // the module failed to load or run (any other error)
	CodeDisposed         Code = "disposed"          // the instance was disposed
)

// Problem is an error as it crosses to the page: its code, its text, and
// the record it is about where the code has one.
type Problem struct {
	Code      Code    `json:"code"`
	Message   string  `json:"message"`
	ID        dat.DID `json:"id,omitempty"`        // CodeNotFound, CodeBadRecord
	Landblock dat.DID `json:"landblock,omitempty"` // CodeMissingLandblock: 0xXXYYFFFF
	// Reason and Status say more of a CodeNetwork failure: "no-answer"
	// (offline, unreachable), "status" (the server answered Status),
	// "stalled", "damaged" (datfetch.NetworkReason).
	Reason string `json:"reason,omitempty"`
	Status int    `json:"status,omitempty"`
}

// Classify sorts err by what it wraps (errors.Is and As, never its text):
// the typed errors of world (POSError), datfetch (NotFoundError, and its
// classes ErrNetwork and ErrBadRecord), dat (DecodeError) and this package
// (MissingError, RecordError, which names the record). The first that
// applies, in that order of precedence: position, missing, network, bad
// record; anything else is CodeWasm.
func Classify(err error) Problem {
	p := Problem{Code: CodeWasm}
	if err == nil {
		return p
	}
	p.Message = err.Error()
	var (
		pos *world.POSError
		mis *MissingError
		nf  *source.NotFoundError
		de  *dat.DecodeError
		re  *RecordError
	)
	switch {
	case errors.As(err, &pos) || errors.Is(err, world.ErrOutsideWorld):
		p.Code = CodeBadPosition
	case errors.As(err, &mis) && mis.Kind == dat.KindLandBlock:
		p.Code, p.Landblock = CodeMissingLandblock, dat.DID(mis.ID)
	case errors.As(err, &mis):
		p.Code, p.ID = CodeNotFound, dat.DID(mis.ID)
	case errors.As(err, &nf):
		p.Code, p.ID = CodeNotFound, dat.DID(nf.ID)
	case errors.Is(err, source.ErrNotFound): // a source's own not-found, without the id
		p.Code = CodeNotFound
	case errors.Is(err, datfetch.ErrNetwork):
		p.Code = CodeNetwork
		p.Reason, p.Status, _ = datfetch.NetworkReason(err)
	case errors.As(err, &de):
		p.Code, p.ID = CodeBadRecord, dat.DID(de.ID)
	case errors.As(err, &re):
		// The record the host needed, which failed to verify (a
		// datfetch.ErrBadRecord) or decode, or to be had at all.
		p.Code, p.ID = CodeBadRecord, dat.DID(re.ID)
	case errors.Is(err, datfetch.ErrBadRecord):
		p.Code = CodeBadRecord
	}
	return p
}

// MissingError is a record that a position needs and the source does not
// have: the landblock whose terrain gives a map position its height, the
// EnvCell an indoor position names. It is source.ErrNotFound (errors.Is).
type MissingError struct {
	Kind dat.Kind
	ID   uint32
}

func (e *MissingError) Error() string {
	if e.Kind == dat.KindLandBlock {
		return fmt.Sprintf("landblock 0x%08X is missing", e.ID)
	}
	return fmt.Sprintf("%s 0x%08X does not exist", e.Kind, e.ID)
}

func (e *MissingError) Is(target error) bool { return target == source.ErrNotFound }

// RecordError names the record a problem is about: a fetch that failed, or
// bytes that did not verify or decode. Its text is its cause's, which
// names the record too.
type RecordError struct {
	Kind dat.Kind
	ID   uint32
	Err  error
}

func (e *RecordError) Error() string { return e.Err.Error() }
func (e *RecordError) Unwrap() error { return e.Err }

// recordErr wraps err for record id with the kind and id in front, unless
// err is a decode error, whose text names both already.
func recordErr(kind dat.Kind, id uint32, err error) error {
	var de *dat.DecodeError
	if !errors.As(err, &de) {
		err = fmt.Errorf("%s 0x%08X: %w", kind, id, err)
	}
	return &RecordError{Kind: kind, ID: id, Err: err}
}
