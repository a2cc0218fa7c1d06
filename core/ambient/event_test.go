package ambient

import (
	"encoding/json"
	"math"
	"testing"
)

func TestEventJSON(t *testing.T) {
	tests := []struct {
		ev   Event
		want string
	}{
		{Event{T: 1.5, Kind: KindPlay, STBIndex: 2, SoundIndex: 0, SType: 70, Continuous: true, Wave: 0x0A000123,
			Variant: 1, Gain: 0.25, DB: -12, Pan: -3, Dir: 7, Dist: 10.5, Reason: "ignored"},
			`{"t":1.5,"event":"play","stbIndex":2,"soundIndex":0,"sType":70,"continuous":true,"wave":"0x0A000123","variant":1,"gain":0.25,"db":-12,"pan":-3,"dir":7,"dist":10.5}`},
		// Tiny numbers stay plain decimals.
		{Event{T: 1e-7, Kind: KindPlay, Wave: 1, Gain: 3e-7},
			`{"t":0.0000001,"event":"play","stbIndex":0,"soundIndex":0,"sType":0,"continuous":false,"wave":"0x00000001","variant":0,"gain":0.0000003,"db":0,"pan":0,"dir":0,"dist":0}`},
		{Event{T: 2, Kind: KindSkip, STBIndex: 1, SoundIndex: 3, Wave: 9, Reason: ReasonChance},
			`{"t":2,"event":"skip","stbIndex":1,"soundIndex":3,"reason":"chance"}`},
		{Event{T: 3, Kind: KindDequeue, STBIndex: 1, SoundIndex: 3, Reason: "x"},
			`{"t":3,"event":"dequeue","stbIndex":1,"soundIndex":3}`},
		{Event{T: 4, Kind: KindSteal, STBIndex: 5, Wave: 0x0A000001},
			`{"t":4,"event":"steal","wave":"0x0A000001"}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.ev)
		if err != nil {
			t.Errorf("%s: %v", tt.ev.Kind, err)
			continue
		}
		if string(b) != tt.want {
			t.Errorf("Marshal %s:\n got %s\nwant %s", tt.ev.Kind, b, tt.want)
		}
	}
	for _, bad := range []Event{{Kind: "boom"}, {Kind: KindPlay, Gain: math.NaN()}, {Kind: KindSkip, T: math.Inf(1)}} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("Marshal %+v: no error", bad)
		}
	}
}
