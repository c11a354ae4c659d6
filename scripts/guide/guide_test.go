package main

import (
	"encoding/json"
	"os"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/scripts/reach"
	"vaultmcp/scripts/transcript"
)

// TestExcerptsMatchTheSource fails when the guide shows code or a transcript that is not what
// the repository holds. `make guide` brings the excerpts up to date.
func TestExcerptsMatchTheSource(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	stale, err := Sync(root, false)
	for _, s := range stale {
		t.Error(s)
	}
	if err != nil {
		t.Error(err)
	}
}

// TestEveryStepHasAChapter checks that each step has its chapter, that the chapter shows at
// least one excerpt checked against the step, and that relative links lead somewhere.
func TestEveryStepHasAChapter(t *testing.T) {
	root, steps := rootAndSteps(t)
	for _, s := range steps {
		data, err := os.ReadFile(filepath.Join(root, "guide", s.Name+".md"))
		if err != nil {
			t.Errorf("step %s has no chapter: %v", s.Name, err)
			continue
		}
		if !strings.Contains(string(data), "<!-- transcript: steps/"+s.Name) {
			t.Errorf("guide/%s.md shows none of its step's transcript", s.Name)
		}
	}
}

// rootAndSteps finds the repository and its steps.
func rootAndSteps(t *testing.T) (string, []transcript.Step) {
	t.Helper()
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, steps
}

var link = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

func TestRelativeLinksResolve(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", filepath.Base(f), target)
			}
		}
	}
}

// withoutCode blanks out fenced code blocks: code may hold text shaped like a link.
func withoutCode(markdown string) string {
	var out []string
	inCode := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if !inCode {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func TestDeclaration(t *testing.T) {
	src := []byte("package p\n\n// Doc says hi.\nfunc Hi() {}\n\ntype T struct{}\n\nfunc (t *T) M() {}\n\nvar x, y = 1, 2\n")
	for name, want := range map[string]string{
		"Hi":  "// Doc says hi.\nfunc Hi() {}",
		"T":   "type T struct{}",
		"T.M": "func (t *T) M() {}",
		"y":   "var x, y = 1, 2",
	} {
		got, err := declaration("p.go", src, name)
		if err != nil || got != want {
			t.Errorf("declaration(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := declaration("p.go", src, "Nope"); err == nil {
		t.Error("declaration(Nope) succeeded")
	}
}

// TestCommandsInTheGuideExist checks the commands a chapter asks the reader to paste, outside
// the transcripts (which run for real): every make target exists, and every fuzz target named
// lives in the package given.
func TestCommandsInTheGuideExist(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+):`).FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	makeCmd := regexp.MustCompile(`(?:^|\s)make ([a-z-]+)`)
	fuzzCmd := regexp.MustCompile(`-fuzz=(\w+).*\s(\./\S+)`)
	chapters, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	checked := 0
	for _, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range commandLines(string(data)) {
			if makeCmd.MatchString(line) || fuzzCmd.MatchString(line) {
				checked++
			}
			if m := makeCmd.FindStringSubmatch(line); m != nil && !targets[m[1]] {
				t.Errorf("%s: %q: the Makefile has no target %q", filepath.Base(chapter), line, m[1])
			}
			if m := fuzzCmd.FindStringSubmatch(line); m != nil {
				files, _ := filepath.Glob(filepath.Join(root, m[2], "*_test.go"))
				found := false
				for _, f := range files {
					src, _ := os.ReadFile(f)
					found = found || strings.Contains(string(src), "func "+m[1]+"(")
				}
				if !found {
					t.Errorf("%s: %q: %s has no %s", filepath.Base(chapter), line, m[2], m[1])
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d commands found in the guide's shell blocks; is commandLines still reading them?", checked)
	}
}

// commandLines returns the lines of a chapter's shell blocks that are not filled from a
// transcript.
func commandLines(markdown string) []string {
	var lines []string
	inBlock, fromMarker, shell := false, false, false
	for _, line := range strings.Split(markdown, "\n") {
		switch {
		case strings.HasPrefix(line, "<!-- "):
			fromMarker = true
		case strings.HasPrefix(line, "```"):
			if inBlock {
				inBlock, fromMarker = false, false
				continue
			}
			inBlock = true
			info := strings.TrimPrefix(line, "```")
			shell = info == "sh" || info == "console" || info == "bash"
		case inBlock && shell && !fromMarker:
			lines = append(lines, line)
		}
	}
	return lines
}

// The counts a chapter gives of its step's transcript: what `make check-step N` prints at the
// end, how many sections of the step before it keeps, and how many of those changed.
var (
	passedCount = regexp.MustCompile("`step (\\d\\d-[a-z0-9]+): (\\d+) passed, 0 failed`")
	keptCount   = regexp.MustCompile(`keeps\s+(?:all\s+|the\s+)?(\d+)(?:\s+of\s+the\s+(\d+))?\s+sections\s+of\s+step\s+(\d+)`)
	changedWord = regexp.MustCompile(`(?i)\b(\w+)\s+of\s+(?:them|the\s+old\s+ones)\s+changed`)
	numberWords = map[string]int{"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
)

// TestCountsMatchTheTranscripts keeps those counts true as transcripts grow.
func TestCountsMatchTheTranscripts(t *testing.T) {
	root, steps := rootAndSteps(t)
	sections := map[string][]transcript.Section{}
	for _, s := range steps {
		parsed, err := transcript.ParseFile(s.Transcript())
		if err != nil {
			t.Fatal(err)
		}
		sections[s.Name] = parsed
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text, chapter := withoutCode(string(data)), filepath.Base(file)
		for _, m := range passedCount.FindAllStringSubmatch(text, -1) {
			if got := len(sections[m[1]]); strconv.Itoa(got) != m[2] {
				t.Errorf("%s: says %s passes %s sections; its transcript has %d", chapter, m[1], m[2], got)
			}
		}
		for _, m := range keptCount.FindAllStringSubmatchIndex(text, -1) {
			before, _ := strconv.Atoi(text[m[6]:m[7]])
			step := strings.TrimSuffix(chapter, ".md")
			if before < 1 || before >= len(steps) || steps[before].Name != step {
				t.Errorf("%s: counts the sections of step %d, which is not the step before this chapter's", chapter, before)
				continue
			}
			titles := map[string]string{}
			for _, s := range sections[step] {
				titles[s.Title] = s.Text
			}
			kept, changed := 0, 0
			for _, s := range sections[steps[before-1].Name] {
				if text, ok := titles[s.Title]; ok {
					kept++
					if text != s.Text {
						changed++
					}
				}
			}
			if got := text[m[2]:m[3]]; got != strconv.Itoa(kept) {
				t.Errorf("%s: says it keeps %s sections of step %d; it keeps %d", chapter, got, before, kept)
			}
			if m[4] >= 0 && text[m[4]:m[5]] != strconv.Itoa(len(sections[steps[before-1].Name])) {
				t.Errorf("%s: says step %d has %s sections; it has %d", chapter, before, text[m[4]:m[5]], len(sections[steps[before-1].Name]))
			}
			rest := text[m[1]:min(len(text), m[1]+200)]
			if c := changedWord.FindStringSubmatch(rest); c != nil {
				n, ok := numberWords[strings.ToLower(c[1])]
				if !ok {
					n, _ = strconv.Atoi(c[1])
				}
				if n != changed {
					t.Errorf("%s: says %s of step %d's sections changed; %d did", chapter, c[1], before, changed)
				}
			}
		}
	}
}

func TestTranscriptPart(t *testing.T) {
	section := "$ curl a\n{\n  \"x\": 1,\n  \"y\": 2,\n  \"z\": 3\n}"
	for _, tt := range []struct {
		part    []string
		missing string
	}{
		{[]string{"$ curl a", "…", `  "z": 3`, "}"}, ""},
		{[]string{`  "x": 1,`, `  "y": 2,`}, ""},
		{[]string{`  "y": 2,`, "…", `  "x": 1,`}, `"  \"x\": 1,"`}, // out of order
		{[]string{`  "x": 1,`, `  "z": 3`}, `"  \"x\": 1,"`},       // a gap not marked with …
		{[]string{`"x": 1,`}, `"\"x\": 1,"`},                       // indentation changed
	} {
		if got := notIn(section, tt.part); got != tt.missing {
			t.Errorf("notIn(%q) = %s; want %s", tt.part, got, tt.missing)
		}
	}
	// Answers may be cut short, but every command, continuation lines included, is shown.
	twoCommands := "$ curl a \\\n    -d 1\n{}\n$ curl b\n{}"
	for _, tt := range []struct {
		part    []string
		missing string
	}{
		{[]string{"$ curl a \\", "    -d 1", "…", "$ curl b"}, ""},
		{[]string{"$ curl a \\", "    -d 1", "{}"}, `"$ curl b"`},
		{[]string{"$ curl a \\", "…", "$ curl b"}, `"    -d 1"`},
	} {
		if got := commandLeftOut(twoCommands, tt.part); got != tt.missing {
			t.Errorf("commandLeftOut(%q) = %s; want %s", tt.part, got, tt.missing)
		}
	}
	// The part is a slice of the chapter's lines: the fence after it must survive the check.
	chapter := []string{"$ curl a", "```"}
	notIn(section, chapter[:1])
	if chapter[1] != "```" {
		t.Errorf("notIn wrote %q over the line after the part", chapter[1])
	}
}

// TestFencesAreClosed catches a code block left open, which swallows the prose after it, and a
// "…" outside a transcript-part block, where it would be pasted into a shell.
func TestFencesAreClosed(t *testing.T) {
	root, _ := rootAndSteps(t)
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		open, part := -1, false
		for i, line := range lines {
			switch {
			case strings.HasPrefix(line, "```") && open < 0:
				open, part = i, i > 0 && strings.HasPrefix(lines[i-1], "<!-- transcript-part:")
			case line == "```":
				open = -1
			case strings.HasPrefix(line, "```"):
				t.Errorf("%s:%d: a block opens inside the block of line %d", filepath.Base(file), i+1, open+1)
			case open >= 0 && !part && strings.TrimSpace(line) == "…":
				t.Errorf("%s:%d: a line of … in a block that is not a transcript part", filepath.Base(file), i+1)
			}
		}
		if open >= 0 {
			t.Errorf("%s:%d: the block is never closed", filepath.Base(file), open+1)
		}
	}
}

// TestNoStepStartedWithGoRun: the guide starts a step, or the Ollama stand-in, the way make
// does, by building it and running the binary. `go run` starts the program as a child of its own and does not pass
// SIGTERM on, so a `kill` of the `go run` a reader started leaves the server holding its port.
func TestNoStepStartedWithGoRun(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	goRunStep := regexp.MustCompile("go run(?: -\\S+)* \\./(?:steps/|scripts/ollama-standin)")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if goRunStep.MatchString(line) {
				t.Errorf("%s:%d starts a server with go run; build it and run the binary, as make step and make standin do: %s",
					filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestSetUpAgreesWithChapterZero: the README shows its set-up commands first, under its title,
// and they are the ones chapter 0 walks through, in the same order, so a reader who starts from
// either meets the same path.
func TestSetUpAgreesWithChapterZero(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The first thing after the title is the block of set-up commands.
	title, rest, _ := strings.Cut(string(readme), "\n")
	if !strings.HasPrefix(title, "# ") || !strings.HasPrefix(strings.TrimLeft(rest, "\n"), "```sh\n") {
		t.Fatalf("README.md must open with its title and then its set-up commands in a sh block; it opens with %.80q", readme)
	}
	block, _, _ := strings.Cut(strings.TrimLeft(rest, "\n")[len("```sh\n"):], "```")
	setup := "```sh\n" + block + "```"
	var want []string
	for _, line := range commandLines(setup) {
		if cmd, _, _ := strings.Cut(line, "#"); strings.TrimSpace(cmd) != "" {
			want = append(want, strings.TrimSpace(cmd))
		}
	}
	if len(want) < 2 {
		t.Fatalf("README.md's first block shows %d commands; want its two set-up commands", len(want))
	}
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "00-setup.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range commandLines(string(chapter)) {
		if slices.Contains(want, strings.TrimSpace(line)) && !slices.Contains(got, strings.TrimSpace(line)) {
			got = append(got, strings.TrimSpace(line))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("README.md's set-up runs %q; guide/00-setup.md runs them as %q: same commands, same order", want, got)
	}
}

// TestEveryChapterLeadsToTheNext: each chapter ends with a "Next:" line that links to the
// next chapter, and opens with a link to it; the last step's chapter leads to the page on
// using the server on your own vault.
func TestEveryChapterLeadsToTheNext(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	chapters, _ := filepath.Glob(filepath.Join(root, "guide", "[0-9][0-9]-*.md"))
	if len(chapters) < 11 {
		t.Fatalf("found %d numbered chapters; want 0 to 10", len(chapters))
	}
	next := append(slices.Clone(chapters[1:]), filepath.Join(root, "guide", "own-vault.md"))
	for i, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		target := "](" + filepath.Base(next[i]) + ")"
		if len(lines) < 3 || !strings.Contains(lines[2], target) {
			t.Errorf("%s: its third line, the navigation, does not link to %s", filepath.Base(chapter), filepath.Base(next[i]))
		}
		if i == len(chapters)-1 {
			continue // the last chapter closes with "Where next", on the pages after the steps
		}
		last := ""
		for _, line := range lines {
			if strings.HasPrefix(line, "Next: ") {
				last = line
			}
		}
		if !strings.HasPrefix(last, "Next: [") || !strings.Contains(last, target) {
			t.Errorf("%s: its closing line %q is no link to %s; write \"Next: [N. Title](%s), where ...\"",
				filepath.Base(chapter), last, filepath.Base(next[i]), filepath.Base(next[i]))
		}
	}
}

// TestAppendixCountsTheTools: the appendix says how many tools the finished server offers,
// and how many are left with -read-only, which offers only the tools that read. Both counts
// come from the last step's transcript, where tools/list shows every tool and its
// readOnlyHint; every tool is named there too.
func TestAppendixCountsTheTools(t *testing.T) {
	root, steps := rootAndSteps(t)
	last := steps[len(steps)-1]
	sections, err := transcript.ParseFile(last.Transcript())
	if err != nil {
		t.Fatal(err)
	}
	var list string
	for _, s := range sections {
		if strings.HasPrefix(s.Title, "tools/list: every tool") {
			list = s.Text
		}
	}
	names := regexp.MustCompile(`(?m)^\s*"name": "([a-z_]+)",$`).FindAllStringSubmatch(list, -1)
	readers := strings.Count(list, `"readOnlyHint": true`)
	if len(names) == 0 || readers == 0 {
		t.Fatalf("%s's transcript has no tools/list section naming the tools and their readOnlyHint", last.Name)
	}
	data, err := os.ReadFile(filepath.Join(root, "guide", "appendix-clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	m := regexp.MustCompile(`serve the same tools, (\w+) in the finished server: ([^.]+)\. `).FindStringSubmatch(text)
	if m == nil {
		t.Fatal(`appendix-clients.md no longer says "serve the same tools, N in the finished server: …"; keep the count and this test together`)
	}
	if numberWords[m[1]] != len(names) {
		t.Errorf("the appendix says %s tools; %s's tools/list has %d", m[1], last.Name, len(names))
	}
	for _, n := range names {
		if !strings.Contains(m[2], "`"+n[1]+"`") {
			t.Errorf("the appendix's list of tools leaves out %s", n[1])
		}
	}
	if ro := regexp.MustCompile("with `-read-only` there (?:are|is) (\\w+)").FindStringSubmatch(m[2]); ro == nil || numberWords[ro[1]] != readers {
		t.Errorf("the appendix's sentence on the tools (%q) does not say that -read-only leaves %d, the tools whose readOnlyHint is true", m[2], readers)
	}
}

// TestEveryChangedFileIsNamed checks that a chapter names, in its prose, every file its step
// adds or changes (the Go files that are not tests), so a reader who opens the step's folder
// knows which file holds what the chapter teaches. A file whose only change is the server's
// version is not a change to teach: every chapter gives its step's version where it counts
// the transcript's changes.
func TestEveryChangedFileIsNamed(t *testing.T) {
	root, steps := rootAndSteps(t)
	for i := 1; i < len(steps); i++ {
		prev, step := steps[i-1], steps[i]
		chapter, err := os.ReadFile(filepath.Join(root, "guide", step.Name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		prose := withoutComments(withoutCode(string(chapter)))
		changed, err := changedFiles(filepath.Join(root, "steps", prev.Name), filepath.Join(root, "steps", step.Name))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range changed {
			// The bare name, or the path from the repository; not shared/store/search.go
			// for the step's search.go.
			named := regexp.MustCompile(`(^|[^\w/.-]|steps/` + regexp.QuoteMeta(step.Name) + `/)` + regexp.QuoteMeta(name) + `\b`)
			if !named.MatchString(prose) {
				t.Errorf("guide/%s.md does not name %s, which step %d adds or changes: name it where the chapter teaches it",
					step.Name, name, step.Number)
			}
		}
	}
}

// changedFiles lists the Go files of dir, tests left out, that prevDir lacks or holds
// otherwise, once the server's version is hidden in both.
func changedFiles(prevDir, dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		now, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		before, err := os.ReadFile(filepath.Join(prevDir, name))
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err != nil || withoutVersion(string(before)) != withoutVersion(string(now)) {
			changed = append(changed, name)
		}
	}
	return changed, nil
}

// versionNumber is the server's version as main.go gives it to server.NewMCPServer,
// "0.6.0": each step has its own.
var versionNumber = regexp.MustCompile(`"\d+\.\d+\.\d+"`)

func withoutVersion(src string) string { return versionNumber.ReplaceAllString(src, `"…"`) }

// withoutComments drops the HTML comments that open a line, such as the markers that name an
// excerpt's source: a reader of the rendered chapter does not see them. A "<!--" within a line
// of prose is text, as Markdown has it.
func withoutComments(markdown string) string {
	return htmlComment.ReplaceAllString(markdown, "")
}

var htmlComment = regexp.MustCompile(`(?ms)^<!--.*?-->`)

func TestChangedFiles(t *testing.T) {
	prev, dir := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(prev, "main.go", "package main\n\nvar s = server.NewMCPServer(\"vaultmcp\", \"0.5.0\")\n")
	write(dir, "main.go", "package main\n\nvar s = server.NewMCPServer(\"vaultmcp\", \"0.6.0\")\n")
	write(prev, "tools.go", "package main\n")
	write(dir, "tools.go", "package main\n\nfunc addTools() {}\n")
	write(dir, "new.go", "package main\n")
	write(dir, "new_test.go", "package main\n")
	got, err := changedFiles(prev, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"new.go", "tools.go"}; !slices.Equal(got, want) {
		t.Errorf("changedFiles = %v, want %v (a change of version alone is no change)", got, want)
	}
}

// TestEveryStartedSharedFileIsNamed checks that a chapter names every shared file that make
// diff prints for its step: after the step's own diff, diff-step shows the shared declarations
// the step starts to use under a heading per file, and a reader who meets a file there should
// find it where the chapter teaches what it holds. The list is diff-step's own (reach.Started),
// for the system the test runs on.
//
// The rule: the chapter's prose (code blocks and excerpt markers left out) gives the file's path
// from the repository, as the heading prints it, shared/store/links.go, bare, in backticks or in
// a link (../shared/store/links.go). A shell pattern counts for the files it matches, so that
// shared/vault/stamp_*.go names, once, the file that reads a file's stamp on each system,
// whichever of them the test runs on; a pattern for a whole folder, shared/store/*.go, names
// nothing.
func TestEveryStartedSharedFileIsNamed(t *testing.T) {
	root, steps := rootAndSteps(t)
	programs := make([]*reach.Program, len(steps))
	for i, s := range steps {
		p, err := reach.Load(t.Context(), root, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		programs[i] = p
	}
	for i := 1; i < len(steps); i++ {
		step := steps[i]
		chapter, err := os.ReadFile(filepath.Join(root, "guide", step.Name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		var started []string
		for _, pkg := range reach.Started(programs[i-1], programs[i]) {
			for _, f := range pkg.Files {
				started = append(started, f.Path)
			}
		}
		if len(started) == 0 && step.Number == 2 {
			t.Fatal("step 2 starts to use no shared file: is reach.Started still finding them?")
		}
		for _, path := range unnamedFiles(withoutComments(withoutCode(string(chapter))), started) {
			t.Errorf("guide/%s.md does not name %s, which make diff %d prints: name it where the chapter teaches what it holds",
				step.Name, path, step.Number)
		}
	}
}

// sharedPath is a shared path, or a shell pattern, as prose gives it: on its own, or at the end
// of a relative link. It runs to its last letter, so a sentence's full stop is left out and
// shared/edit/edit.go.orig is not shared/edit/edit.go.
var sharedPath = regexp.MustCompile(`(?:^|[^\w/.-]|\.\./)(shared/[\w/*?.-]*[\w*?])`)

// unnamedFiles returns the paths that prose names neither as they are nor by a pattern.
func unnamedFiles(prose string, paths []string) []string {
	var named []string
	for _, m := range sharedPath.FindAllStringSubmatch(prose, -1) {
		if strings.HasSuffix(m[1], ".go") && pathpkg.Base(m[1]) != "*.go" {
			named = append(named, m[1])
		}
	}
	var unnamed []string
	for _, p := range paths {
		if !slices.ContainsFunc(named, func(pattern string) bool {
			ok, _ := pathpkg.Match(pattern, p)
			return ok
		}) {
			unnamed = append(unnamed, p)
		}
	}
	return unnamed
}

func TestUnnamedFiles(t *testing.T) {
	prose := "The graph lives in shared/links/links.go; `shared/store/links.go` keeps it.\n" +
		"Each system reads a stamp in [its own file](../shared/vault/stamp_*.go), and shared/watch/*.go is a folder.\n" +
		"Step 8's shared/inbox/inbox.go.orig is not inbox.go, nor is myshared/edit/edit.go.\n"
	paths := []string{
		"shared/links/links.go", "shared/store/links.go", "shared/vault/stamp_ctim.go",
		"shared/links/stored.go", "shared/watch/watch.go", "shared/vault/stamp.go",
		"shared/inbox/inbox.go", "shared/edit/edit.go",
	}
	want := []string{"shared/links/stored.go", "shared/watch/watch.go", "shared/vault/stamp.go",
		"shared/inbox/inbox.go", "shared/edit/edit.go"}
	if got := unnamedFiles(prose, paths); !slices.Equal(got, want) {
		t.Errorf("unnamedFiles = %v, want %v", got, want)
	}
}

// maxChapterWords is the most a chapter may hold: about an hour's reading. A chapter that needs
// more is teaching two things, or saying one twice.
const maxChapterWords = 6000

// TestChaptersAreShort holds every chapter in guide/, appendices included, to maxChapterWords,
// counted as wc -w counts them: the tokens of the whole file between ASCII whitespace (a
// no-break space joins two words, as it does for wc), code and transcripts included, since the
// reader reads those too.
func TestChaptersAreShort(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	chapters, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	if len(chapters) < 13 {
		t.Fatalf("found %d chapters in guide/; is the glob still finding them?", len(chapters))
	}
	for _, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(strings.FieldsFunc(string(data), isASCIISpace)); n > maxChapterWords {
			t.Errorf("guide/%s has %d words (wc -w), over %d: say the same facts shorter, or move figures to BENCHMARKS.md",
				filepath.Base(chapter), n, maxChapterWords)
		}
	}
}

// isASCIISpace is the whitespace wc -w splits words at.
func isASCIISpace(r rune) bool { return strings.ContainsRune(" \t\n\v\f\r", r) }

// TestSchemaVersionShown: chapter 5 shows the rows of a fresh index's meta table as sqlite3
// prints them; the schema version among them is the one shared/store writes.
func TestSchemaVersionShown(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile(filepath.Join(root, "shared", "store", "schema.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^const schemaVersion = (\d+)$`).FindSubmatch(source)
	if want == nil {
		t.Fatal("shared/store/schema.go no longer declares `const schemaVersion = N`; keep it and this test together")
	}
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "05-store.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile(`(?m)^schema_version\|(\d+)$`).FindAllSubmatch(chapter, -1)
	if len(shown) == 0 {
		t.Fatal("guide/05-store.md no longer shows the meta row schema_version|N; keep it and this test together")
	}
	for _, m := range shown {
		if string(m[1]) != string(want[1]) {
			t.Errorf("guide/05-store.md shows schema_version|%s; shared/store writes schema version %s", m[1], want[1])
		}
	}
}

// TestInspectorPinned: every npx command of the guide and the README that starts the MCP
// Inspector names the version make check's interop tests run (scripts/interop/package.json).
// Without one, npx picks the newest version the reader's Node.js can run, which on an older
// Node is an old Inspector that listens more widely, without a word.
func TestInspectorPinned(t *testing.T) {
	root, manifest := repoFile(t, "scripts/interop/package.json")
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		t.Fatal(err)
	}
	tested := pkg.Dependencies["@modelcontextprotocol/inspector"]
	if tested == "" {
		t.Fatal("scripts/interop/package.json does not list @modelcontextprotocol/inspector")
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	npx := regexp.MustCompile("npx(?:\\s+-[-\\w]+)*\\s+@modelcontextprotocol/inspector(@[^\\s`]*)?")
	found := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range npx.FindAllStringSubmatch(string(data), -1) {
			found++
			if m[1] != "@"+tested {
				t.Errorf("%s: %q; name the version make check tests: @modelcontextprotocol/inspector@%s", filepath.Base(f), m[0], tested)
			}
		}
	}
	if found == 0 {
		t.Error("no npx command starts the Inspector in the guide; chapter 1 and the appendix did")
	}
}

// TestReadmeListsMakeHelp: the README's table of make targets and `make help` list the same
// targets, so a target a test's skip message names (such as `make use-standin-deps`) is one the
// reader can look up in either. make help lists the Makefile's targets that have a "## "
// description, as this test reads them.
func TestReadmeListsMakeHelp(t *testing.T) {
	_, makefile := repoFile(t, "Makefile")
	_, readme := repoFile(t, "README.md")
	var help, table []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+):.*## `).FindAllStringSubmatch(string(makefile), -1) {
		help = append(help, m[1])
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `make ([a-z-]+)").FindAllStringSubmatch(string(readme), -1) {
		table = append(table, m[1])
	}
	if len(help) < 10 || len(table) < 10 {
		t.Fatalf("make help lists %d targets and the README's table %d; is this test still reading them?", len(help), len(table))
	}
	for _, target := range help {
		if !slices.Contains(table, target) {
			t.Errorf("make help lists %s, and the README's table of make targets does not", target)
		}
	}
	for _, target := range table {
		if !slices.Contains(help, target) {
			t.Errorf("the README's table lists make %s, and make help does not: give its target a \"## \" description in the Makefile", target)
		}
	}
	for _, line := range regexp.MustCompile("`make ([a-z-]+)").FindAllStringSubmatch(string(readme), -1) {
		if !slices.Contains(help, line[1]) {
			t.Errorf("the README names make %s, which make help does not list", line[1])
		}
	}
}

// repoFile returns the repository's root and the file at path (slash-separated) in it.
func repoFile(t *testing.T, path string) (root string, data []byte) {
	t.Helper()
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	data, err = os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return root, data
}
