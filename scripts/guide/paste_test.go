package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// The tests in this file read a chapter as a reader who pastes every command in it does: from
// the top, into a shell, on a fresh clone.

// TestTranscriptsBeforeRunItSayWhen: a chapter may show a section of its step's transcript
// while it teaches the code, before its "## Run it" starts the step. Pasted where it stands,
// the command meets no server (`curl: no URL specified!`, with $MCP not yet set) or the step
// before, whose answer differs. So the paragraph that introduces such a block links to
// #run-it, which says when to paste it, and a chapter that shows a transcript has a Run it.
func TestTranscriptsBeforeRunItSayWhen(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	chapters, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	shown := 0
	for _, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if !strings.Contains(text, "\n<!-- transcript") {
			continue
		}
		shown++
		if !slices.Contains(strings.Split(text, "\n"), "## Run it") {
			t.Errorf("%s shows its step's transcript and has no \"## Run it\" section that says how to start the step", filepath.Base(chapter))
		}
		for _, line := range unannouncedTranscripts(text) {
			t.Errorf("%s:%d shows a transcript before \"## Run it\"; say in the paragraph above it that it is pasted after [Run it](#run-it)",
				filepath.Base(chapter), line)
		}
	}
	if shown < 10 {
		t.Errorf("only %d chapters show a transcript; is this test still finding the markers?", shown)
	}
}

// unannouncedTranscripts returns the lines of the transcript markers that come before the
// chapter's "## Run it" heading, outside code blocks, whose paragraph above does not link to
// #run-it.
func unannouncedTranscripts(markdown string) []int {
	lines := strings.Split(markdown, "\n")
	var unannounced []int
	inCode := false
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
		case inCode:
		case line == "## Run it":
			return unannounced
		case strings.HasPrefix(line, "<!-- transcript"):
			above := i - 1
			for above >= 0 && strings.TrimSpace(lines[above]) == "" {
				above--
			}
			var paragraph []string
			for ; above >= 0 && strings.TrimSpace(lines[above]) != ""; above-- {
				paragraph = append(paragraph, lines[above])
			}
			if !strings.Contains(strings.Join(paragraph, " "), "](#run-it)") {
				unannounced = append(unannounced, i+1)
			}
		}
	}
	return unannounced
}

func TestUnannouncedTranscripts(t *testing.T) {
	chapter := strings.Join([]string{
		"# 1. A chapter", // 1
		"",
		"The code refuses a form's body:", // 3
		"",
		`<!-- transcript: steps/01-raw "http: a form" -->`, // 5: not announced
		"```console",
		"<!-- transcript: inside a block is text -->", // 7: in code, not a marker
		"```",
		"",
		"Pasted after [Run it](#run-it), this is", // 10: the link, in the paragraph's first line
		"refused too:",
		"",
		`<!-- transcript-part: steps/01-raw "errors" -->`, // 13: announced
		"",
		"## Run it",
		"",
		"Start it, and paste:",
		"",
		`<!-- transcript: steps/01-raw "discover" -->`, // 19: after Run it
	}, "\n")
	if got, want := unannouncedTranscripts(chapter), []int{5}; !slices.Equal(got, want) {
		t.Errorf("unannouncedTranscripts = %v, want %v", got, want)
	}
}

// TestScratchFoldersAreRemoved: a command that makes a temporary folder inline,
// `-db "$(mktemp -d)/index.db"`, leaves the folder, and an index in it, each time it is
// pasted, and nothing can remove it, since nothing names it. So the guide and the README make
// one as scratch=$(mktemp -d), a variable a later `rm -r "$scratch"` in the same file
// removes.
func TestScratchFoldersAreRemoved(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	made := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		made += len(mktemp.FindAllString(string(data), -1))
		for _, problem := range scratchLeftBehind(string(data)) {
			t.Errorf("%s: %s", filepath.Base(f), problem)
		}
	}
	if made == 0 {
		t.Error("no file of the guide makes a scratch folder; chapter 5 and the appendix did: is this test still finding them?")
	}
}

var (
	mktemp      = regexp.MustCompile(`\$\(mktemp\b[^)]*\)`)
	mktempNamed = regexp.MustCompile(`\b([A-Za-z_]\w*)=\$\(mktemp -d\)(?:[^/\w]|$)`)
)

// scratchLeftBehind describes each temporary folder that markdown makes and never removes: one
// made inline, and one whose variable no later `rm -r "$name"` (or -rf) names.
func scratchLeftBehind(markdown string) []string {
	var problems []string
	named := map[int]bool{}
	for _, m := range mktempNamed.FindAllStringSubmatchIndex(markdown, -1) {
		name := markdown[m[2]:m[3]]
		named[m[2]+len(name)+1] = true // where its $(mktemp starts
		removed := regexp.MustCompile(`rm -rf? "?\$\{?` + name + `\b`)
		if !removed.MatchString(markdown[m[1]:]) {
			problems = append(problems, name+`=$(mktemp -d) makes a folder that no later rm -r "$`+name+`" removes`)
		}
	}
	for _, m := range mktemp.FindAllStringIndex(markdown, -1) {
		if !named[m[0]] {
			problems = append(problems, markdown[m[0]:m[1]]+` makes a folder that nothing names, so nothing removes it: make it as scratch=$(mktemp -d), and rm -r "$scratch" after`)
		}
	}
	return problems
}

func TestScratchLeftBehind(t *testing.T) {
	for _, tt := range []struct {
		markdown string
		problems int
	}{
		{"```sh\nscratch=$(mktemp -d)\nvaultmcp -db \"$scratch/index.db\"\nrm -r \"$scratch\"\n```", 0},
		{"Make `tmp=$(mktemp -d)`, and `rm -rf \"$tmp\"` when done.", 0},
		{"```sh\nvaultmcp -db \"$(mktemp -d)/index.db\"\n```", 1},                        // inline
		{"`VAULTMCP_DB=\"$(mktemp -d)/index.db\"`", 1},                                   // inline, though assigned
		{"```sh\nscratch=$(mktemp -d)\nvaultmcp -db \"$scratch/index.db\"\n```", 1},      // never removed
		{"```sh\nrm -r \"$scratch\"\nscratch=$(mktemp -d)\n```", 1},                      // removed before it is made
		{"```sh\nscratch=$(mktemp -d)\nrm -r \"$scratchpad\"\n```", 1},                   // another folder removed
		{"```sh\ndb=$(mktemp -d)/index.db\nvaultmcp -db \"$db\"\nrm -r \"$db\"\n```", 1}, // a file in a folder nobody names
	} {
		if got := scratchLeftBehind(tt.markdown); len(got) != tt.problems {
			t.Errorf("scratchLeftBehind(%q) = %q; want %d problems", tt.markdown, got, tt.problems)
		}
	}
}

// TestPlaceholdersExplainedWhereFirstShown: a transcript writes what varies between runs as a
// placeholder, `<string>` for a path that differs between machines, `<number>` for a score, which the
// runner matches and a reader's shell never prints. The chapter that first shows one, in the
// order the guide is read, names it in its prose, so the reader learns what it stands for
// before meeting it again.
func TestPlaceholdersExplainedWhereFirstShown(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	chapters, _ := filepath.Glob(filepath.Join(root, "guide", "*.md")) // sorted: 00-setup first
	firstShown := map[string]string{}
	for _, chapter := range chapters {
		data, err := os.ReadFile(chapter)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		prose := withoutComments(withoutCode(text))
		for _, p := range []string{transcript.AnyValue, transcript.AnyNumber, transcript.AnyString, transcript.Optional} {
			if _, seen := firstShown[p]; seen || strings.Count(text, p) == strings.Count(prose, p) {
				continue // shown before, or not shown here
			}
			firstShown[p] = filepath.Base(chapter)
			if !strings.Contains(prose, p) {
				t.Errorf("%s is the first chapter to show %s, and does not say what it stands for", filepath.Base(chapter), p)
			}
		}
	}
	if len(firstShown) < 2 {
		t.Errorf("the guide shows %d placeholders; is this test still finding them?", len(firstShown))
	}
}
