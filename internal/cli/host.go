package cli

import (
	"context"
	"fmt"
	"os"

	"acambient/core/session"
)

// openHost opens the data flags' sources and a host over them (gather,
// trace, render); non-fatal record problems go to stderr as warnings.
func openHost(ctx context.Context, df *DataFlags, opt session.Options) (*session.Host, func(), error) {
	d, err := df.Open()
	if err != nil {
		return nil, nil, err
	}
	opt.OnError = func(err error) { fmt.Fprintf(os.Stderr, "warning: %v\n", err) }
	h, err := session.New(ctx, d.Portal, d.Cell, opt)
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	return h, func() { d.Close() }, nil
}
