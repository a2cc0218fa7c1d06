// Command repoint re-points the tree's citations of documents that lived
// outside the repository onto docs/, by the rules of docs/citations.tsv.
//
//	go run ./internal/cite/repoint            # list what would change (file:line, old → new)
//	go run ./internal/cite/repoint -w         # rewrite the files
//	go run ./internal/cite/repoint -check     # exit 1 if an old form is left or a docs/ citation does not resolve
//
// Run it from the repository root (or give -root). It is safe to run again:
// the rules do not match their own output.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"acambient/internal/cite"
)

func main() {
	root := flag.String("root", ".", "repository root")
	rules := flag.String("rules", "", "mapping file (default ROOT/docs/citations.tsv)")
	write := flag.Bool("w", false, "rewrite the files")
	check := flag.Bool("check", false, "report old forms left and docs/ citations that do not resolve; exit 1 if any")
	flag.Parse()
	if *rules == "" {
		*rules = filepath.Join(*root, "docs", "citations.tsv")
	}
	if err := run(*root, *rules, *write, *check); err != nil {
		fmt.Fprintln(os.Stderr, "repoint:", err)
		os.Exit(1)
	}
}

// unmapped are citations no rule maps: reported by -check, never rewritten.
var unmapped = regexp.MustCompile(`\bissue [0-9]+|\bjoints issue\b`)

func run(root, rulesFile string, write, check bool) error {
	rules, err := cite.LoadRules(rulesFile)
	if err != nil {
		return err
	}
	// "issue N" resolves to row N of docs/history.md.
	history := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(root, "docs", "history.md")); err == nil {
		for _, m := range regexp.MustCompile(`(?m)^\| ([0-9]+) \|`).FindAllStringSubmatch(string(b), -1) {
			history[m[1]] = true
		}
	}
	anchors, err := cite.LoadAnchors(filepath.Join(root, "docs"))
	if err != nil {
		return err
	}
	files, replaced, problems := 0, 0, 0
	err = cite.Walk(root, func(rel string, b []byte) error {
		text := string(b)
		out, n := cite.Apply(rules, rel, text)
		if n > 0 {
			files++
			replaced += n
			if check {
				problems += n
			}
			if !write || check {
				report(rel, text, out)
			}
			if write && !check {
				if err := os.WriteFile(filepath.Join(root, rel), []byte(out), 0o644); err != nil {
					return err
				}
			}
		}
		if check {
			for _, c := range cite.Find(out, anchors.Docs(), strings.HasPrefix(rel, "docs/")) {
				if !anchors.Resolves(c) {
					problems++
					fmt.Printf("%s:%d: %s: no %s §%s\n", rel, c.Line, c.Text, c.Doc, c.Section)
				}
			}
			for _, m := range unmapped.FindAllStringIndex(out, -1) {
				if n := strings.TrimPrefix(out[m[0]:m[1]], "issue "); history[n] {
					continue // a row of docs/history.md
				}
				fmt.Printf("%s:%d: unmapped (not in the repository): %s\n", rel, 1+strings.Count(out[:m[0]], "\n"), out[m[0]:m[1]])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	verb := "would change"
	if write && !check {
		verb = "changed"
	}
	fmt.Fprintf(os.Stderr, "%d citations in %d files %s\n", replaced, files, verb)
	if check && problems > 0 {
		return fmt.Errorf("%d problems", problems)
	}
	return nil
}

// report prints the changed lines of one file, old then new.
func report(rel, old, new string) {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	if len(a) != len(b) {
		fmt.Printf("%s: %d lines → %d lines\n", rel, len(a), len(b))
		return
	}
	for i := range a {
		if a[i] != b[i] {
			fmt.Printf("%s:%d:\n  - %s\n  + %s\n", rel, i+1, strings.TrimSpace(a[i]), strings.TrimSpace(b[i]))
		}
	}
}
