package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"acambient/core/dat"
	"acambient/datfetch/source"
)

// Inspect is `inspect`.
var Inspect = &Command{Name: "inspect", UsageLine: "inspect KIND ID [data flags] | inspect ls [-db portal|cell] [-prefix 0x20] [-l] [data flags]", Short: "JSON of one record: inspect KIND ID, or inspect ls", Run: cmdInspect}

// cmdInspect prints one parsed record as JSON (docs/interfaces.md §1), or lists ids.
func cmdInspect(cmd *Command, args []string) error {
	if len(args) > 0 && args[0] == "ls" {
		return inspectList(args[1:])
	}
	fs := cmd.FlagSet()
	df := AddDataFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run . %s\n", cmd.UsageLine)
		fmt.Fprintln(fs.Output(), "KIND: region soundtable wave landblock envcell. A landblock ID may be the landblock (0xA9B4FFFF), any cell in it (0xA9B4001F) or just 0xA9B4 (exactly four hex digits).")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return errors.New("want KIND and ID")
	}
	kind := dat.Kind(strings.ToLower(pos[0]))
	id, err := dat.ParseID(strings.TrimSpace(pos[1]))
	if err != nil {
		return err
	}
	if kind == dat.KindLandBlock && isShortBlock(pos[1]) {
		id = id<<16 | dat.LandBlockLow
	}
	d, err := df.Open()
	if err != nil {
		return err
	}
	defer d.Close()
	v, err := inspectRecord(context.Background(), d, kind, id)
	if err != nil {
		return err
	}
	return writeJSON(os.Stdout, v, true)
}

// inspectRecord fetches and decodes one record into its JSON view.
func inspectRecord(ctx context.Context, d *Data, kind dat.Kind, id uint32) (any, error) {
	var src source.Source
	switch kind {
	case dat.KindRegion, dat.KindSoundTable, dat.KindWave:
		src = d.Portal
	case dat.KindLandBlock:
		src = d.Cell
		id = id&0xFFFF0000 | dat.LandBlockLow // any cell of the block names it
	case dat.KindEnvCell:
		src = d.Cell
	default:
		return nil, fmt.Errorf("unknown kind %q (want region, soundtable, wave, landblock or envcell)", kind)
	}
	b, err := src.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("%s 0x%08X: %w", kind, id, err)
	}
	rec, err := dat.Decode(kind, id, b)
	if err != nil {
		return nil, err
	}
	switch r := rec.(type) {
	case *dat.SoundTable:
		return soundTableView(r), nil
	case *dat.EnvCell:
		return envCellView{EnvCell: r, SeenOutside: r.SeenOutside(), RestBytes: len(r.Rest)}, nil
	}
	return rec, nil
}

// isShortBlock reports whether a landblock argument is the short form
// 0xXXYY: exactly four hex digits. Anything else is a full id taken as
// written, so 0x0000FFFF is landblock 0x0000 and 0x00000100 a cell in it
// (an id test, id ≤ 0xFFFF, read both as block XXYY).
func isShortBlock(s string) bool {
	t := strings.TrimSpace(s)
	return len(t) == 6 && (t[:2] == "0x" || t[:2] == "0X")
}

// soundTableJSON adds the Sound enum name to each child, since a hash key of
// 70 means nothing to a reader and "Ambient1" does.
type soundTableJSON struct {
	ID   dat.DID       `json:"id"`
	Root soundNodeJSON `json:"root"`
}

type soundNodeJSON struct {
	HashKey  uint32            `json:"hashKey"`
	Sound    string            `json:"sound,omitempty"`
	Records  []dat.SoundRecord `json:"records"`
	Children []soundNodeJSON   `json:"children"`
}

func soundTableView(t *dat.SoundTable) soundTableJSON {
	var node func(n *dat.SoundNode, depth int) soundNodeJSON
	node = func(n *dat.SoundNode, depth int) soundNodeJSON {
		v := soundNodeJSON{HashKey: n.HashKey, Records: n.Records, Children: []soundNodeJSON{}}
		if v.Records == nil {
			v.Records = []dat.SoundRecord{}
		}
		if depth > 0 { // the root's key is a placeholder, its children's keys are Sound values
			v.Sound = dat.SoundName(n.HashKey)
		}
		for i := range n.Children {
			v.Children = append(v.Children, node(&n.Children[i], depth+1))
		}
		return v
	}
	return soundTableJSON{ID: t.ID, Root: node(&t.Root, 0)}
}

type envCellView struct {
	*dat.EnvCell
	SeenOutside bool `json:"seenOutside"`
	RestBytes   int  `json:"restBytes"`
}

// inspectList prints the ids of one db, one "0x%08X" a line; -l adds the kind.
func inspectList(args []string) error {
	fs := flag.NewFlagSet("inspect ls", flag.ContinueOnError)
	df := AddDataFlags(fs)
	db := fs.String("db", "portal", "which dat: portal or cell")
	prefix := fs.String("prefix", "", "only ids whose hex form starts with this (0x20 = SoundTables, 0xA9B4 = one landblock)")
	long := fs.Bool("l", false, "also print each record's kind")
	if _, err := parseInterspersed(fs, args); err != nil {
		return err
	}
	want := strings.ToUpper(strings.TrimPrefix(strings.TrimPrefix(*prefix, "0x"), "0X"))
	d, err := df.Open()
	if err != nil {
		return err
	}
	defer d.Close()
	var src source.Lister
	kindOf := dat.PortalKind
	switch *db {
	case "portal":
		src = d.Portal
	case "cell":
		src, kindOf = d.Cell, dat.CellKind
	default:
		return fmt.Errorf("-db %q: want portal or cell", *db)
	}
	ids, err := src.IDs(context.Background())
	if err != nil {
		return err
	}
	var out strings.Builder
	for _, id := range ids {
		s := fmt.Sprintf("0x%08X", id)
		if !strings.HasPrefix(s[2:], want) {
			continue
		}
		out.WriteString(s)
		if *long {
			k := kindOf(id)
			if k == dat.KindUnknown {
				k = "-"
			}
			out.WriteString(" " + string(k))
		}
		out.WriteByte('\n')
	}
	_, err = os.Stdout.WriteString(out.String())
	return err
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments ("inspect region 0x13000000 -dats DIR").
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
