package e2e

import "testing"

// TestParserProperties runs e2e/parsers_props.test.mjs under node --test:
// generated inputs for the page's parsers of outside input (toPOS, the
// hash, ?server and its <meta> default, the zones.json loader).
func TestParserProperties(t *testing.T) {
	nodeTest(t, "parsers_props.test.mjs")
}
