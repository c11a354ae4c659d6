// Command guide keeps the guide's excerpts true to the source. A chapter marks each excerpt
// with an HTML comment (invisible when the Markdown is rendered) naming where it comes from:
//
//	<!-- code: steps/01-raw/mcp.go initialize -->       a Go declaration, with its doc comment
//	<!-- code: steps/01-raw/go.mod -->                   a whole file
//	<!-- transcript: steps/01-raw "tools/call: ping answers pong" -->   one transcript section
//	<!-- transcript-part: steps/05-store "index_status: ..." -->        lines cut from one section
//
// and the fenced block right after it holds the excerpt. `go run ./scripts/guide` (make guide)
// rewrites every block from its source; the test in this folder fails when one differs, so the
// book cannot drift from the code. A transcript-part block is written by hand, to show only what
// matters in a long answer: a line holding only "…" stands for lines left out, and every run of
// lines between them must appear, in order and unchanged, in the section.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"vaultmcp/scripts/transcript"
)

func main() {
	check := flag.Bool("check", false, "only report excerpts that differ from the source")
	flag.Parse()
	root, err := transcript.Root()
	if err != nil {
		fmt.Fprintln(os.Stderr, "guide:", err)
		os.Exit(1)
	}
	stale, err := Sync(root, !*check)
	for _, s := range stale {
		fmt.Println(s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "guide:", err)
		os.Exit(1)
	}
	if *check && len(stale) > 0 {
		os.Exit(1)
	}
}

// directive matches a marker comment: kind, source path, and an optional name or quoted title.
var directive = regexp.MustCompile(`^<!-- (code|transcript|transcript-part): (\S+)(?: (.+?))? -->$`)

// Sync checks every chapter in root/guide and returns a line for each excerpt that differs
// from its source. With write set it also rewrites those excerpts.
func Sync(root string, write bool) ([]string, error) {
	chapters, err := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	if err != nil {
		return nil, err
	}
	var stale []string
	var broken []error // a chapter that cannot be read stops no other from being checked
	for _, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			return nil, err
		}
		updated, diffs, err := syncChapter(root, string(data))
		if err != nil {
			broken = append(broken, fmt.Errorf("%s: %w", filepath.Base(chapter), err))
			continue
		}
		for _, d := range diffs {
			stale = append(stale, filepath.Base(chapter)+": "+d)
		}
		if write && updated != string(data) {
			if err := os.WriteFile(chapter, []byte(updated), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, errors.Join(broken...)
}

// syncChapter replaces each marked fenced block with the current excerpt.
func syncChapter(root, text string) (updated string, stale []string, err error) {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		m := directive.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		kind, source, name := m[1], m[2], m[3]
		if len(name) >= 2 && name[0] == '"' && name[len(name)-1] == '"' {
			name = name[1 : len(name)-1] // a quoted title may itself contain quotes
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return "", nil, fmt.Errorf("line %d: the marker must be followed by a fenced block", i+1)
		}
		end := i + 2
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			return "", nil, fmt.Errorf("line %d: the fenced block is not closed", i+2)
		}
		if kind == "transcript-part" {
			section, err := excerpt(root, "transcript", source, name)
			if err != nil {
				return "", nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			if missing := notIn(section, lines[i+2:end]); missing != "" {
				stale = append(stale, fmt.Sprintf("line %d: the part of %s %q is not in the section: %s", i+1, source, name, missing))
			}
			if missing := commandLeftOut(section, lines[i+2:end]); missing != "" {
				stale = append(stale, fmt.Sprintf("line %d: the part of %s %q leaves out a command a reader must paste: %s", i+1, source, name, missing))
			}
			out = append(out, lines[i+1:end+1]...)
			i = end
			continue
		}
		want, err := excerpt(root, kind, source, name)
		if err != nil {
			return "", nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if got := strings.Join(lines[i+2:end], "\n"); got != want {
			stale = append(stale, fmt.Sprintf("line %d: the excerpt of %s %s differs from the source; run `make guide`", i+1, source, name))
		}
		out = append(out, lines[i+1])
		out = append(out, want)
		out = append(out, "```")
		i = end
	}
	return strings.Join(out, "\n"), stale, nil
}

// notIn returns the first line of part that is not in section where it should be, or "" if
// every run of lines between "…" lines appears in the section, in order.
func notIn(section string, part []string) string {
	rest := strings.Split(section, "\n")
	var run []string
	find := func() bool {
		for at := 0; at+len(run) <= len(rest); at++ {
			if slices.Equal(rest[at:at+len(run)], run) {
				rest = rest[at+len(run):]
				return true
			}
		}
		return false
	}
	for _, line := range append(slices.Clip(part), "…") { // Clip: never write into the chapter's lines
		if strings.TrimSpace(line) != "…" {
			run = append(run, line)
			continue
		}
		if len(run) > 0 && !find() {
			return fmt.Sprintf("%q", run[0])
		}
		run = nil
	}
	return ""
}

// commandLeftOut returns the first line of a command in section (a "$ " line, or one that
// continues it) that part does not show, or "" if part shows them all: a part may cut the
// answers short, but a reader pastes every command.
func commandLeftOut(section string, part []string) string {
	inCommand := false
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "$ ") || inCommand {
			if !slices.Contains(part, line) {
				return fmt.Sprintf("%q", line)
			}
			inCommand = strings.HasSuffix(line, "\\")
		}
	}
	return ""
}

func excerpt(root, kind, source, name string) (string, error) {
	switch kind {
	case "transcript":
		sections, err := transcript.ParseFile(filepath.Join(root, source, "transcript.txt"))
		if err != nil {
			return "", err
		}
		for _, s := range sections {
			if s.Title == name {
				return s.Text, nil
			}
		}
		return "", fmt.Errorf("%s has no transcript section %q", source, name)
	case "code":
		data, err := os.ReadFile(filepath.Join(root, source))
		if err != nil {
			return "", err
		}
		if name == "" {
			return strings.TrimRight(string(data), "\n"), nil
		}
		return declaration(source, data, name)
	}
	return "", fmt.Errorf("unknown marker %q", kind)
}

// declaration returns the source of a top-level Go declaration (func, method as
// "Type.Method", type, var or const), with its doc comment.
func declaration(file string, src []byte, name string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, decl := range f.Decls {
		var doc *ast.CommentGroup
		match := false
		switch d := decl.(type) {
		case *ast.FuncDecl:
			doc = d.Doc
			fn := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				fn = receiverName(d.Recv.List[0].Type) + "." + fn
			}
			match = fn == name
		case *ast.GenDecl:
			doc = d.Doc
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					match = match || s.Name.Name == name
				case *ast.ValueSpec:
					for _, n := range s.Names {
						match = match || n.Name == name
					}
				}
			}
		}
		if !match {
			continue
		}
		start := decl.Pos()
		if doc != nil {
			start = doc.Pos()
		}
		from, to := fset.Position(start).Offset, fset.Position(decl.End()).Offset
		return string(bytes.TrimRight(src[from:to], "\n")), nil
	}
	return "", errors.New(file + " has no declaration " + name)
}

func receiverName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return receiverName(t.X)
	}
	return ""
}
