package main

import (
	"bytes"
	"strings"
	"testing"
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
