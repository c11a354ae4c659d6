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

// TestPollingAsQuoted: chapter 8 quotes what index_status says when the server polls the
// sample vault; the quote must be the one step 8's own test requires of a small vault polled
// by choice, so that it changes when the server's words or intervals do.
func TestPollingAsQuoted(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "08-watch.md"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile("`\"(polling every [^\"`]*)\"`").FindAllStringSubmatch(strings.Join(strings.Fields(string(chapter)), " "), -1)
	if len(quoted) == 0 {
		t.Fatal("guide/08-watch.md no longer quotes what index_status says when polling; keep the quote and this test together")
	}
	var required []string
	tests, _ := filepath.Glob(filepath.Join(root, "steps", "08-watch", "*_test.go"))
	for _, file := range tests {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"(polling every [^"]*)"`).FindAllStringSubmatch(string(src), -1) {
			required = append(required, m[1])
		}
	}
	for _, q := range quoted {
		if !slices.Contains(required, q[1]) {
			t.Errorf("guide/08-watch.md quotes index_status as %q, which no test of step 8 requires; they require %q", q[1], required)
		}
	}
}
