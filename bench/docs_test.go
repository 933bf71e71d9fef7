package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/capsim/capsim/internal/testenv"
)

// generatedDocs are pages that a command writes and links may name before
// it has run: docs/reference/cli.md is generated from capsim's commands.
var generatedDocs = map[string]bool{"docs/reference/cli.md": true}

// mdLink matches an inline Markdown link or image: [text](target) with an
// optional title after the target.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinks checks every relative link of every Markdown file in the
// repository: the file (or folder) it names exists and, where it names a
// heading (#anchor), a heading of that Markdown file has that anchor as
// GitHub writes it. Links inside code spans and fenced blocks are not links.
func TestDocLinks(t *testing.T) {
	root := testenv.ModuleRoot(t)
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "out" || d.Name() == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, l := range links(t, f) {
			target, frag, _ := strings.Cut(l.target, "#")
			dest := f
			if target != "" {
				dest = filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
				if _, err := os.Stat(dest); err != nil {
					if r, _ := filepath.Rel(root, dest); !generatedDocs[filepath.ToSlash(r)] {
						t.Errorf("%s:%d: link %q: no such file", rel, l.line, l.target)
					}
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if anchors[dest] == nil {
				anchors[dest] = headingAnchors(t, dest)
			}
			if !anchors[dest][frag] {
				t.Errorf("%s:%d: link %q: no heading with anchor #%s", rel, l.line, l.target, frag)
			}
		}
	}
}

// TestDocsIndexed checks that docs/README.md, the index of the docs,
// links every Markdown page under docs/.
func TestDocsIndexed(t *testing.T) {
	docs := filepath.Join(testenv.ModuleRoot(t), "docs")
	index := filepath.Join(docs, "README.md")
	linked := map[string]bool{}
	for _, l := range links(t, index) {
		target, _, _ := strings.Cut(l.target, "#")
		linked[filepath.Join(docs, filepath.FromSlash(target))] = true
	}
	err := filepath.WalkDir(docs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") || path == index {
			return err
		}
		if !linked[path] {
			rel, _ := filepath.Rel(docs, path)
			t.Errorf("docs/README.md does not link docs/%s", filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMarkdownHelpers checks the link extraction and GitHub's anchors on
// small cases.
func TestMarkdownHelpers(t *testing.T) {
	for _, c := range []struct{ heading, anchor string }{
		{"What capsim guarantees", "what-capsim-guarantees"},
		{"capsim's Arrow format, version 1", "capsims-arrow-format-version-1"},
		{"OTF2 (Score-P, Vampir)", "otf2-score-p-vampir"},
		{"DUMPI (SST DUMPI: SST/macro, CODES)", "dumpi-sst-dumpi-sstmacro-codes"},
		{"The `lp` policy", "the-lp-policy"},
		{"Exact max-min by default: the cost", "exact-max-min-by-default-the-cost"},
	} {
		if got := anchor(c.heading); got != c.anchor {
			t.Errorf("anchor(%q) = %q, want %q", c.heading, got, c.anchor)
		}
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "p.md")
	text := "# Title\n\nSee [a](a.md) and ![b](img/b.png \"B\") and `[c](c.md)`.\n```\n[d](d.md)\n```\n[e](https://example.com) [f](#title)\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range links(t, page) {
		got = append(got, l.target)
	}
	if want := "a.md img/b.png #title"; strings.Join(got, " ") != want {
		t.Errorf("links = %q, want %q", strings.Join(got, " "), want)
	}
	if h := headingAnchors(t, page); !h["title"] || len(h) != 1 {
		t.Errorf("headingAnchors = %v, want title", h)
	}
}

type link struct {
	line   int
	target string
}

// links returns the relative link targets of the Markdown file at path,
// outside fenced blocks and code spans.
func links(t *testing.T, path string) []link {
	var out []link
	for i, l := range mdLines(t, path) {
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(l), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, link{i + 1, target})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives the headings of the
// Markdown file at path (a repeated heading gets -1, -2, ...).
func headingAnchors(t *testing.T, path string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range mdLines(t, path) {
		h := strings.TrimLeft(l, "#")
		if h == l || !strings.HasPrefix(h, " ") {
			continue
		}
		a := anchor(strings.TrimSpace(h))
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// anchor is GitHub's anchor of a heading: lower case, code marks and
// punctuation dropped, spaces as hyphens.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLines returns the lines of the Markdown file at path, with the lines
// of fenced code blocks blanked.
func mdLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// stripCode blanks the code spans of a line.
func stripCode(l string) string {
	parts := strings.Split(l, "`")
	for i := 1; i < len(parts); i += 2 {
		if i < len(parts)-1 { // an unclosed backtick is no code span
			parts[i] = ""
		}
	}
	return strings.Join(parts, "`")
}
