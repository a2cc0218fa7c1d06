package cite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const root = "../.."

func load(t *testing.T) ([]Rule, Anchors) {
	t.Helper()
	rules, err := LoadRules(filepath.Join(root, "docs", "citations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := LoadAnchors(filepath.Join(root, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	return rules, anchors
}

// Every row rewrites its example, taken from the tree, into its result, when
// all the rules run over it as over a file in the row's scope.
func TestRulesRewriteTheirExamples(t *testing.T) {
	rules, _ := load(t)
	for _, r := range rules {
		rel := r.Scope + "x.go"
		got, n := Apply(rules, rel, r.Example)
		if got != r.Want {
			t.Errorf("citations.tsv:%d: %q\n got %q\nwant %q", r.Line, r.Example, got, r.Want)
		}
		if n == 0 {
			t.Errorf("citations.tsv:%d: no rule matched its example", r.Line)
		}
	}
}

// Every target the mapping points at exists: each section its results cite
// is a heading (or label) of that document.
func TestMappingTargetsExist(t *testing.T) {
	rules, anchors := load(t)
	for _, r := range rules {
		cs := Find(r.Want, anchors.Docs(), false)
		if len(cs) == 0 && strings.Contains(r.New, "docs/") {
			t.Errorf("citations.tsv:%d: result %q cites no document", r.Line, r.Want)
		}
		for _, c := range cs {
			if !anchors.Resolves(c) {
				t.Errorf("citations.tsv:%d: %s has no §%s", r.Line, c.Doc, c.Section)
			}
		}
	}
}

// Re-pointing twice changes nothing more than once: the lead may run it again
// after any merge.
func TestApplyIsIdempotent(t *testing.T) {
	rules, _ := load(t)
	err := Walk(root, func(rel string, b []byte) error {
		once, _ := Apply(rules, rel, string(b))
		if twice, n := Apply(rules, rel, once); n != 0 || twice != once {
			t.Errorf("%s: a second pass changes %d more", rel, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every citation of docs/ in the tree — code, README, and the documents
// citing each other — names a document and a section that exist.
func TestTreeCitationsResolve(t *testing.T) {
	_, anchors := load(t)
	docs := anchors.Docs()
	check := func(rel string, b []byte) error {
		for _, c := range Find(string(b), docs, strings.HasPrefix(rel, "docs/")) {
			if !anchors.Resolves(c) {
				t.Errorf("%s:%d: %q: %s has no §%s", rel, c.Line, c.Text, c.Doc, c.Section)
			}
		}
		return nil
	}
	if err := Walk(root, check); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(root, "docs", d))
		if err != nil {
			t.Fatal(err)
		}
		check("docs/"+d, b)
	}
}

// The documents of docs/ (which Walk leaves to their authors) and the parts of
// the README and divergences.md already re-pointed cite nothing outside the
// repository.
func TestDocsCiteNothingOutside(t *testing.T) {
	for _, f := range []string{"docs/divergences.md", "docs/architecture.md", "docs/interfaces.md",
		"docs/dat-format.md", "docs/browser-testing.md"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, bad := range []string{"shared/", "contracts §", "contracts.md", "runtime §", "authoring §", "authoring note", "runtime note", "retail-ambient-"} {
				if strings.Contains(line, bad) {
					t.Errorf("%s:%d: cites %q", f, i+1, bad)
				}
			}
		}
	}
}

// Nothing else in the tree (code, README, .ci/run) names a path of the
// research notes outside the repository: a clone has none of them, and
// docs/ holds what they said. (Every such path was re-pointed once; the
// mapping's rules for them are gone with them.)
func TestTreeCitesNothingOutside(t *testing.T) {
	err := Walk(root, func(rel string, b []byte) error {
		for i, line := range strings.Split(string(b), "\n") {
			for _, bad := range []string{"shared/spec/", "shared/design/", "shared/guides/"} {
				if strings.Contains(line, bad) {
					t.Errorf("%s:%d: cites %q, outside the repository", rel, i+1, bad)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	docs := []string{"retail.md", "dat-format.md", "interfaces.md"}
	for _, tc := range []struct {
		text   string
		inDocs bool
		want   []string // doc§section
	}{
		{"see docs/retail.md §R5.7.", false, []string{"retail.md§R5.7"}},
		{"(docs/dat-format.md §3.11/§6/§8)", false, []string{"dat-format.md§3.11", "dat-format.md§6", "dat-format.md§8"}},
		{"docs/retail.md §R1 and §R5, docs/interfaces.md §1.1–§1.3", false,
			[]string{"retail.md§R1", "retail.md§R5", "interfaces.md§1.1", "interfaces.md§1.3"}},
		{"the whole of docs/interfaces.md, then", false, []string{"interfaces.md§"}},
		{"dat-format.md §6.3 without docs/", false, nil},
		{"dat-format.md §6.3 inside docs", true, []string{"dat-format.md§6.3"}},
		{"[dat-format.md](dat-format.md) §8", true, []string{"dat-format.md§", "dat-format.md§8"}},
		{"xdocs/retail.md §R1", false, nil},
	} {
		var got []string
		for _, c := range Find(tc.text, docs, tc.inDocs) {
			got = append(got, c.Doc+"§"+c.Section)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Find(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	_, anchors := load(t)
	for doc, secs := range map[string][]string{
		"retail.md":          {"0.3", "A3.1", "A4.1", "A4.2", "A4.3", "A10", "R1", "R5.7", "R8.3", "R11", "R12"},
		"dat-format.md":      {"1.1", "1.7", "3.11", "6.3", "9.2", "10.1", "10.9", "11"},
		"interfaces.md":      {"0", "1.1", "1.3", "1.4", "2.3", "3.4", "4.1", "5"},
		"architecture.md":    {"2.2", "2.3", "4.5", "4.7", "5"},
		"browser-testing.md": {"4", "5", "8"},
	} {
		for _, s := range secs {
			if !anchors[doc][s] {
				t.Errorf("%s has no §%s", doc, s)
			}
		}
	}
	if anchors["retail.md"]["R13"] {
		t.Error("retail.md: §R13 found, but there is none")
	}
}

func TestRequiredLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		`(^|[^\w/])[Rr]untime §`:               "untime §",
		`\(architecture\.md: it adds`:          "(architecture.md: it adds",
		`(?:\.\./)*shared/spec/dat-format\.md`: "shared/spec/dat-format.md",
		`a|b`:                                  "",
	} {
		if got := requiredLiteral(pattern); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", pattern, got, want)
		}
	}
}
