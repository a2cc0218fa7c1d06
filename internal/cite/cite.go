// Package cite keeps the repository's citations followable: it maps the
// forms older code used — sections of research notes and design documents
// that lived outside the repository (`contracts §3`, `runtime §5`) — onto
// docs/ (docs/citations.tsv), and it
// finds every `docs/NAME.md §N` citation and checks that the section exists.
//
// The rules are applied by `go run ./internal/cite/repoint`; the package's
// tests hold the mapping to its examples and every citation in the tree to a
// heading of docs/.
package cite

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// Rule is one row of the mapping: within files whose path (slash-separated,
// relative to the repository root) starts with Scope, Old is replaced by New.
type Rule struct {
	Scope   string
	Old     *regexp.Regexp
	New     string // a regexp.Expand template: ${1} is Old's first group
	Example string // text from the tree that the rule rewrites …
	Want    string // … and what it becomes
	Note    string
	Line    int    // in the TSV file
	literal string // a string every match of Old contains: a file without it is skipped
}

// maxPasses bounds Apply's fixpoint: rules that extend a chain of sections
// (`§R1 and §5` → `§R1 and §R5`) rewrite one link per pass.
const maxPasses = 8

// LoadRules reads a mapping file: tab-separated columns scope, old (a Go
// regular expression), new, example, result, note, after a header line.
// In new, example and result, `\n` and `\t` stand for a newline and a tab.
// A scope of "*" matches every file.
func LoadRules(file string) ([]Rule, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rules []Rule
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 || strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 5 {
			return nil, fmt.Errorf("%s:%d: %d columns, want scope, old, new, example, result[, note]", file, n, len(f))
		}
		re, err := regexp.Compile(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: old: %w", file, n, err)
		}
		r := Rule{Scope: f[0], Old: re, New: unescape(f[2]), Example: unescape(f[3]), Want: unescape(f[4]), Line: n}
		r.literal = requiredLiteral(f[1])
		if r.Scope == "*" {
			r.Scope = ""
		}
		if len(f) > 5 {
			r.Note = f[5]
		}
		rules = append(rules, r)
	}
	return rules, sc.Err()
}

// requiredLiteral is the longest literal that a pattern's top-level
// sequence must contain ("" when there is none), so that Apply can skip a
// file without scanning it.
func requiredLiteral(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return ""
	}
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	best := ""
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(string(r.Rune)) > len(best) {
			best = string(r.Rune)
		}
	}
	if re.Op == syntax.OpConcat {
		for _, sub := range re.Sub {
			consider(sub)
		}
	} else {
		consider(re)
	}
	return best
}

func unescape(s string) string { return strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(s) }

// Apply rewrites text, the content of the file at rel, with every rule in
// scope, in order, until nothing changes; it returns the new text and the
// number of replacements.
func Apply(rules []Rule, rel, text string) (string, int) {
	n := 0
	for pass := 0; pass < maxPasses; pass++ {
		changed := false
		for _, r := range rules {
			if !strings.HasPrefix(rel, r.Scope) || !strings.Contains(text, r.literal) {
				continue
			}
			out := r.Old.ReplaceAllString(text, r.New)
			if out != text {
				n += len(r.Old.FindAllStringIndex(text, -1))
				text, changed = out, true
			}
		}
		if !changed {
			break
		}
	}
	return text, n
}

// Anchors lists, for each document of docs/, the sections it has: "R5.7"
// for a heading "### §R5.7 …", "10.1" for a label "**§10.1**".
type Anchors map[string]map[string]bool

var (
	headingAnchor = regexp.MustCompile(`(?m)^#{1,6}[ \t]+§([A-Z]?[0-9]+(?:\.[0-9]+)*)`)
	labelAnchor   = regexp.MustCompile(`\*\*§([A-Z]?[0-9]+(?:\.[0-9]+)*)\*\*`)
)

// LoadAnchors reads the sections of every .md file in dir.
func LoadAnchors(dir string) (Anchors, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	a := Anchors{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		secs := map[string]bool{}
		for _, re := range []*regexp.Regexp{headingAnchor, labelAnchor} {
			for _, m := range re.FindAllSubmatch(b, -1) {
				secs[string(m[1])] = true
			}
		}
		a[filepath.Base(f)] = secs
	}
	return a, nil
}

// Citation is one section (or, with Section "", one document) cited.
type Citation struct {
	Doc     string // "retail.md"
	Section string // "R5.7"; "" when the document is cited whole
	Line    int
	Text    string // as written
}

var (
	sectionRef = regexp.MustCompile(`§([A-Z]?[0-9]+(?:\.[0-9]+)*)`)
	section    = `§[A-Z]?[0-9]+(?:\.[0-9]+)*`
	chainTail  = `(?:[ \t]*` + section + `(?:(?:[–/-]|,[ \t]*|[ \t]+and[ \t]+|[ \t]+or[ \t]+)` + section + `)*)?`
)

// Find lists the citations of docs/ in text: `docs/NAME.md` followed by any
// chain of sections (`§3.11/§6/§8`, `§R5–§R6`, `§1 and §5`), and, when
// inDocs (text is a file of docs/), also the relative `NAME.md …` form.
func Find(text string, docs []string, inDocs bool) []Citation {
	if len(docs) == 0 {
		return nil
	}
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = regexp.QuoteMeta(strings.TrimSuffix(d, ".md"))
	}
	re := regexp.MustCompile(`(docs/)?(` + strings.Join(names, "|") + `)\.md\)?(` + chainTail + `)`)
	var out []Citation
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && strings.ContainsAny(text[m[0]-1:m[0]], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.-") {
			continue // part of another name or path
		}
		if m[2] < 0 && !inDocs {
			continue // outside docs/, only docs/NAME.md is this repository's
		}
		doc := text[m[4]:m[5]] + ".md"
		line := 1 + strings.Count(text[:m[0]], "\n")
		cited := strings.TrimSpace(text[m[0]:m[1]])
		refs := sectionRef.FindAllStringSubmatch(text[m[6]:m[7]], -1)
		if len(refs) == 0 {
			out = append(out, Citation{Doc: doc, Line: line, Text: cited})
		}
		for _, s := range refs {
			out = append(out, Citation{Doc: doc, Section: s[1], Line: line, Text: cited})
		}
	}
	return out
}

// Resolves reports whether the cited document exists and, when a section is
// cited, has it.
func (a Anchors) Resolves(c Citation) bool {
	secs, ok := a[c.Doc]
	return ok && (c.Section == "" || secs[c.Section])
}

// Docs lists the documents, sorted.
func (a Anchors) Docs() []string {
	var d []string
	for k := range a {
		d = append(d, k)
	}
	slices.Sort(d)
	return d
}

// sourceExt are the files that carry citations.
var sourceExt = map[string]bool{".go": true, ".js": true, ".mjs": true, ".ts": true, ".md": true, ".html": true, ".sh": true}

// Walk calls fn for every source file of the repository at root that a
// re-pointing may touch: Go, JavaScript, TypeScript, HTML, shell and
// Markdown, and .ci/run. It skips .git, node_modules, testdata, this
// package (which quotes the old forms), and docs/: the documents are written in the new forms, quote the old ones on
// purpose, and cite each other as NAME.md, which for dat-format.md is also
// an old form.
func Walk(root string, fn func(rel string, b []byte) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata":
				return filepath.SkipDir
			}
			if rel == "docs" || rel == "internal/cite" {
				return filepath.SkipDir
			}
			return nil
		}
		if !sourceExt[path.Ext(rel)] && rel != ".ci/run" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fn(rel, b)
	})
}
