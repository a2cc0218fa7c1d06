package npmpkg

import (
	_ "embed"
	"strings"
)

//go:embed package-readme.md
var readme string

// Readme is the package's README.md: the bundler recipe, the map's
// convention, where the records come from, and the userscript's settings.
func Readme(version string) string {
	return strings.ReplaceAll(readme, "{{version}}", version)
}
