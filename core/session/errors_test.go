package session

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"acambient/core/dat"
	"acambient/core/world"
	"acambient/datfetch"
	"acambient/datfetch/source"
)

// Classify reads what an error wraps, however deeply and whatever its
// text says: a message that reads like another kind does not fool it.
func TestClassify(t *testing.T) {
	_, posErr := world.ParsePOS("north of here")
	decode := &dat.DecodeError{Kind: dat.KindWave, ID: 0x0A000002, Offset: 12, Msg: "data size lies", Err: dat.ErrTruncated}
	wrap := func(err error) error { return fmt.Errorf("setPlayer: %w", fmt.Errorf("terrain height: %w", err)) }
	for _, tc := range []struct {
		name string
		err  error
		want Problem
	}{
		{"pos", posErr, Problem{Code: CodeBadPosition}},
		{"outside", wrap(fmt.Errorf("x: %w", world.ErrOutsideWorld)), Problem{Code: CodeBadPosition}},
		{"missing landblock", wrap(&MissingError{Kind: dat.KindLandBlock, ID: 0xA3AEFFFF}), Problem{Code: CodeMissingLandblock, Landblock: 0xA3AEFFFF}},
		{"missing envcell", wrap(&MissingError{Kind: dat.KindEnvCell, ID: 0xA9B40150}), Problem{Code: CodeNotFound, ID: 0xA9B40150}},
		{"not found", wrap(source.NotFound(0x13000000)), Problem{Code: CodeNotFound, ID: 0x13000000}},
		{"network", recordErr(dat.KindWave, 7, fmt.Errorf("record not found, 404: %w", datfetch.ErrNetwork)), Problem{Code: CodeNetwork}},
		{"bad bytes from the source", wrap(fmt.Errorf("0x0A000002: record starts with DID 0x0A000003: %w", datfetch.ErrBadRecord)), Problem{Code: CodeBadRecord}},
		{"decode", recordErr(dat.KindWave, 0x0A000002, decode), Problem{Code: CodeBadRecord, ID: 0x0A000002}},
		{"bad bytes", recordErr(dat.KindLandBlock, 0xA9B4FFFF, errors.New("record starts with DID 0x00000000")), Problem{Code: CodeBadRecord, ID: 0xA9B4FFFF}},
		{"other", errors.New("landblock 0xA9B4FFFF is missing (not found, 404)"), Problem{Code: CodeWasm}},
		{"cancelled", context.Canceled, Problem{Code: CodeWasm}},
	} {
		got := Classify(tc.err)
		tc.want.Message = tc.err.Error()
		if got != tc.want {
			t.Errorf("%s: Classify(%v) = %+v, want %+v", tc.name, tc.err, got, tc.want)
		}
	}
	// The texts stay what they were: the kind and id in front, once.
	if got := recordErr(dat.KindWave, 0x0A000002, decode).Error(); got != decode.Error() {
		t.Errorf("a decode error reads %q, want %q", got, decode.Error())
	}
	if got := recordErr(dat.KindLandBlock, 0xA9B4FFFF, errors.New("boom")).Error(); got != "landblock 0xA9B4FFFF: boom" {
		t.Errorf("a fetch error reads %q", got)
	}
	if !errors.Is(&MissingError{Kind: dat.KindLandBlock, ID: 1}, source.ErrNotFound) {
		t.Error("a MissingError is not ErrNotFound")
	}
}
