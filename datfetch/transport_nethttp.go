//go:build !js

package datfetch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// maxRedirects is how many redirects one request follows: a static host's
// "/files" → "/files/" or an http → https hop needs one or two. net/http's
// own default is 10 with no loop check, so a loop cost 10 requests an
// attempt, and every attempt was retried.
const maxRedirects = 5

// NetHTTP returns the native Transport: net/http with its default
// connection pool and proxy settings. It has no overall timeout (the source's
// idle timer bounds a stalled request, and a large record may take long on a
// slow link); it refuses a redirect back to a URL already visited and chains
// longer than 5, as ErrRedirectLoop (net/http's own would follow 10, and
// say "stopped after 10 redirects").
func NetHTTP() Transport { return netHTTP(&http.Client{CheckRedirect: checkRedirect}) }

// netHTTP is the native Transport over c.
func netHTTP(c *http.Client) Transport {
	return func(ctx context.Context, url string) (*Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrPermanent)
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		h := make(map[string]string, len(resp.Header))
		for k, v := range resp.Header {
			if len(v) > 0 {
				h[strings.ToLower(k)] = v[0]
			}
		}
		// A body net/http decodes (gzip it asked for) has lost its
		// Content-Length: ContentLength is -1, and no EncodedLength is known.
		return &Response{Status: resp.StatusCode, ContentLength: resp.ContentLength, Header: h, Body: resp.Body}, nil
	}
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return fmt.Errorf("%w: back to %s after %d redirects: %w", ErrRedirectLoop, req.URL, len(via), ErrPermanent)
		}
	}
	if len(via) > maxRedirects {
		return fmt.Errorf("%w: more than %d redirects: %w", ErrRedirectLoop, maxRedirects, ErrPermanent)
	}
	return nil
}

func defaultTransport() Transport { return NetHTTP() }
