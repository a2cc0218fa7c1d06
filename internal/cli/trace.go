package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"

	"acambient/core/session"
)

// Trace is `trace`.
var Trace = &Command{Name: "trace", UsageLine: "trace -player POS [-camera POS] [-seconds N] [-seed S] [-tick DT] [-volume A] [-path FILE] [data flags]", Short: "simulated run; JSON lines of play decisions", Run: cmdTrace}

// cmdTrace runs the engine on a simulated clock and prints its decisions as
// JSON lines (docs/interfaces.md §1.3). The same flags and seed give the same bytes.
func cmdTrace(cmd *Command, args []string) error {
	fs := cmd.FlagSet()
	o := addRunFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	w, closeData, err := o.open(context.Background(), fs)
	if err != nil {
		return err
	}
	defer closeData()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	return runTrace(w, o.seconds, o.tick, out)
}

// runTrace ticks the walk every tick seconds from 0 to seconds and writes
// every event as a JSON line.
func runTrace(w *session.Walk, seconds, tick float64, out io.Writer) error {
	for k := 0; ; k++ {
		now := float64(k) * tick // from k, not summed, so long runs do not drift
		if now > seconds {
			return nil
		}
		for _, ev := range w.Tick(now) {
			b, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			if _, err := out.Write(append(b, '\n')); err != nil {
				return err
			}
		}
	}
}
