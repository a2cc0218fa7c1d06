// Package browser finds what the benchmarks that drive the page in a
// browser need: Debian's chromium, node, and playwright-core.
package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Chromium finds Debian's chromium and node, and playwright-core at version
// (installing it into the cache folder e2e uses; never `npx playwright
// install`): what bench/soak and bench/tabmem drive a page with.
func Chromium(version string) (chromium, pwDir string, err error) {
	for _, p := range []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		return "", "", errors.New("no chromium (apt-get install chromium)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", "", errors.New("no node (apt-get install nodejs)")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	pwDir = filepath.Join(cache, "acambient-e2e", "playwright-core-"+version)
	if _, err := os.Stat(filepath.Join(pwDir, "node_modules", "playwright-core", "package.json")); err != nil {
		npm := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", pwDir, "playwright-core@"+version)
		var buf strings.Builder
		npm.Stdout, npm.Stderr = &buf, &buf
		if err := npm.Run(); err != nil {
			return "", "", fmt.Errorf("npm install playwright-core: %w\n%s", err, buf.String())
		}
	}
	return chromium, pwDir, nil
}
