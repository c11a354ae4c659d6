package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// Each step's listing shows the shared declarations it starts to use, and none that a later
// step brings in.
func TestSharedDeclarations(t *testing.T) {
	tests := []struct {
		step      string
		want, not []string
	}{
		{"2", []string{"func Local(", "const DefaultMaxBody", "func Strict(", "func CleanPath(", "func HTTP(", "func Stdio("},
			[]string{"func Hostile(", "func CheckListenAddr(", "func (v *Vault) NoteInfos("}},
		{"9", []string{"func Hostile(", "func CheckListenAddr(", "func NewServer(", "==== new shared package vaultmcp/shared/inbox"},
			[]string{"func Local(", "func Strict("}},
		{"5", []string{"func (s *Store) Search(", "func (s *Store) knn(", "func (s *Store) Reset("},
			[]string{"func (s *Store) Compact(", "func (s *Store) KeepCompact(", "func (s *Store) trimLog(",
				"func (s *Store) writeError(", "type Options struct", "func (s *Store) allowedSections(",
				"func (s *Store) SearchNotes(", "func (s *Store) AddLinkTables(", "func (s *Store) Rebuild(",
				"func (s *Store) Check(", "func (o *Ollama) MeasureDimensions(", "_test.go\n@@"}},
		{"6", []string{"func (s *Store) allowedSections(", "func (s *Store) SearchNotes(", "type Options struct"},
			[]string{"func (s *Store) Compact("}},
		// sort.Search and slices.Compact are not the store's methods of those names.
		{"7", []string{"func (s *Store) CompleteNotes("},
			[]string{"func (s *Store) Search(", "func (s *Store) Compact("}},
		{"8", []string{"func (s *Store) KeepCompact(", "func (s *Store) Compact(", "func (s *Store) trimLog(",
			"func (s *Store) writeError(", "func diskFull("},
			[]string{"func (s *Store) AddLinkTables(", "func (s *Store) Rebuild("}},
		{"10", []string{"func (v *Vault) NoteInfos(", "==== new shared package vaultmcp/shared/reconcile",
			"func (s *Store) AddLinkTables(", "func (s *Store) Rebuild(", "func ChooseModel(", "func (o *Ollama) MeasureDimensions("},
			[]string{"stdio.go", "func Hostile(", "func (s *Store) Compact(", "func (s *Store) writeError("}},
	}
	for _, tt := range tests {
		t.Run("step "+tt.step, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(t.Context(), []string{"diff-step", tt.step}, &out); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("make diff %s lacks %q", tt.step, s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(out.String(), s) {
					t.Errorf("make diff %s shows %q, which is not new in it", tt.step, s)
				}
			}
		})
	}
}

// A step's transcript is summed up by its sections, and a file the step deletes is named, not
// printed; -tests prints the transcript's patch.
func TestTranscriptAndDeletions(t *testing.T) {
	var out, full bytes.Buffer
	if err := run(t.Context(), []string{"diff-step", "7"}, &out); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"diff-step", "-tests", "7"}, &full); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"+ get_backlinks: who links to a note, with the line that holds each link\n",
		"~ tools/list: every tool, with a description, an input schema and annotations\n",
		"- get_outline: a missing note is the same tool error as in get_note\n",
		"diff --git a/steps/06-search/outline.go b/steps/06-search/outline.go\ndeleted file mode",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("make diff 7 lacks %q", s)
		}
	}
	// Only its version changed: the summary leaves it out.
	for _, s := range []string{"~ tools/call, current revision", "+++ b/steps/07-backlinks/transcript.txt", "-func getOutline("} {
		if strings.Contains(out.String(), s) {
			t.Errorf("make diff 7 shows %q", s)
		}
	}
	if !strings.Contains(full.String(), "+++ b/steps/07-backlinks/transcript.txt") {
		t.Error("make diff 7 TESTS=1 lacks the transcript's patch")
	}
}

// go.sum is hashes: its row of the --stat table is left out, and the total says it counts it.
func TestGoSumLeftOut(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"diff-step", "2"}, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "go.sum |") || strings.Contains(out.String(), "+++ b/steps/02-sdk/go.sum") {
		t.Error("make diff 2 shows go.sum")
	}
	if !strings.Contains(out.String(), " files changed, ") || !strings.Contains(out.String(), "(go.sum's among them, not shown)\n") {
		t.Error("make diff 2's total does not say that it counts go.sum")
	}
}

// TestChaptersQuoteTheCounts: the counts each chapter gives of its step's transcript (the
// sections the test run passes, how many of the step before's it keeps, and how many of those
// changed) are the ones make diff prints, version-only changes included.
func TestChaptersQuoteTheCounts(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	var (
		passed  = regexp.MustCompile("`step [0-9a-z-]+: ([0-9]+) passed, 0 failed`")
		keeps   = regexp.MustCompile(`transcript keeps\s+(all |the )?(\w+)\s+(?:of the (\w+) )?sections of step`)
		changed = regexp.MustCompile(`(\w+) of (?:them|the old ones) changed`)
	)
	for i := 2; i < len(steps); i++ {
		prev, step := steps[i-1], steps[i]
		t.Run(step.Name, func(t *testing.T) {
			c, err := compareSections(root, prev, step)
			if err != nil {
				t.Fatal(err)
			}
			chapter, err := os.ReadFile(filepath.Join(root, "guide", step.Name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(strings.Fields(string(chapter)), " ")
			check := func(what string, re *regexp.Regexp, group int, want int) {
				m := re.FindStringSubmatch(text)
				if m == nil {
					t.Errorf("guide/%s.md gives no count of %s (want %d, as make diff %d prints)", step.Name, what, want, i+1)
					return
				}
				if got := number(m[group]); got != want {
					t.Errorf("guide/%s.md says %q: %s is %d, make diff %d prints %d", step.Name, m[0], what, got, i+1, want)
				}
			}
			check("the sections passed", passed, 1, c.after)
			check("the sections kept", keeps, 2, c.kept())
			if m := keeps.FindStringSubmatch(text); m != nil && m[3] != "" {
				check("the earlier step's sections", keeps, 3, c.before)
			} else if m != nil && c.kept() != c.before {
				t.Errorf("guide/%s.md says %q, but step %s retires %d sections", step.Name, m[0], step.Name, len(c.retired))
			}
			check("the sections changed", changed, 1, len(c.changed)+c.versionOnly)
		})
	}
}

// number reads a count written in digits or, up to twenty, in words; -1 when it is neither.
func number(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	return slices.Index(words, strings.ToLower(s))
}
