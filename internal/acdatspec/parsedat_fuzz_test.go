package acdatspec

import (
	"strings"
	"testing"
)

// FuzzParseDat holds ParseDat to parse_dat_param on any text: the four
// short names and their client file names in any case (cell also as
// client_cell.dat, local_english also as local-english) are a dat whose
// names read back the same; anything else is the service's 400 text,
// naming what was asked for.
func FuzzParseDat(f *testing.F) {
	for _, s := range []string{
		"portal", "PORTAL", "client_portal.dat", "cell", "client_cell.dat", "Client_Cell_1.DAT", "highres",
		"client_highres.dat", "local_english", "local-english", "client_local_English.dat", "", "portal ",
		"client_cell_2.dat", "ſortal", "K", "local_englisH", "portal\x00",
	} {
		f.Add(s)
	}
	names := map[Dat][]string{
		Portal:       {"portal", "client_portal.dat"},
		Cell:         {"cell", "client_cell.dat", "client_cell_1.dat"},
		Highres:      {"highres", "client_highres.dat"},
		LocalEnglish: {"local_english", "local-english", "client_local_english.dat"},
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDat(s)
		var match Dat
		found := false
		for dat, ns := range names {
			for _, n := range ns {
				// Unicode lowering, as Rust's to_lowercase: the Kelvin sign
				// "K" lowers to "k".
				if strings.ToLower(s) == n {
					match, found = dat, true
				}
			}
		}
		if found != (err == nil) || found && d != match {
			t.Fatalf("%q: %v, %v; want %v (a name: %v)", s, d, err, match, found)
		}
		if err != nil {
			if want := "Invalid dat name: " + s + ". Expected portal, cell, highres, or local_english."; err.Error() != want {
				t.Fatalf("%q: error %q, want %q", s, err, want)
			}
			return
		}
		for _, again := range []string{d.Name(), strings.ToUpper(d.ObjectKey())} {
			if back, err := ParseDat(again); err != nil || back != d {
				t.Fatalf("%q: %v written %q reads %v, %v", s, d, again, back, err)
			}
		}
	})
}
