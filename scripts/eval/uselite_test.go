package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
	usestandin "vaultmcp/scripts/use-standin"
)

// TestUSELiteSearch runs the last step with a real embedding model, USE-lite, over the sample
// vault, as a user would start it (-embedder ollama -model use-lite), and checks what chapter 6
// promises whatever the model: nonsense finds nothing, with the floor measured on the index
// and logged; a word that one note holds finds that note first; and a question in other words
// than the note's, which no keyword matches, finds its note by meaning. Steps 6 to 9 rank as
// step 10 does, but only step 10 can be told which model to use.
//
// Without node or the model's packages it skips (see needUseLite).
func TestUSELiteSearch(t *testing.T) {
	root := needUseLite(t)
	ctx := t.Context()
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	step := steps[len(steps)-1]
	dir := t.TempDir()
	bin, err := transcript.Build(ctx, root, step, dir)
	if err != nil {
		t.Fatal(err)
	}
	standin, err := usestandin.Start(ctx, root, usestandin.Options{CacheDir: filepath.Join(dir, "vectors")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(standin.Stop)
	// The step writes into the vault it serves (its inbox folder), so it serves a copy.
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatal(err)
	}
	s, err := startServer(ctx, bin, vault, filepath.Join(dir, "index.db"), []string{"OLLAMA_HOST=" + standin.Host()},
		indexWatch{Activity: standin.Embedded}, "-embedder", "ollama", "-model", usestandin.Model)
	if err != nil {
		t.Fatalf("%v\nthe stand-in's log:\n%s", err, standin.Logs())
	}
	defer s.Close()

	for _, nonsense := range []string{"xyzzy plugh quux", "qwerty asdf zxcv", "lorem ipsum dolor"} {
		paths, scores, err := s.Search(ctx, nonsense)
		if err != nil || len(paths) != 0 {
			t.Errorf("%q found %q (scores %v), %v; want nothing: nonsense is at or below the floor", nonsense, paths, scores, err)
		}
	}
	logs := s.proc.Logs()
	if !strings.Contains(logs, `msg="score floor measured"`) || !strings.Contains(logs, "model="+usestandin.Model) {
		t.Errorf("the server did not log the floor it measured for %s:\n%s", usestandin.Model, logs)
	}

	for _, tc := range []struct{ why, query, want string }{
		{"a word one note holds", "hooch", "Kitchen/Bread/Sourdough starter.md"},
		// The keyword leg finds nothing for it (too little of its weight is in any note), nor does
		// the offline embedder: only a model of meaning finds the slugs.
		{"a paraphrase", "stop molluscs eating my seedlings", "Garden/Pests and slugs.md"},
	} {
		paths, scores, err := s.Search(ctx, tc.query)
		if err != nil || len(paths) == 0 || paths[0] != tc.want {
			t.Errorf("%s: %q found %q (scores %v), %v; want %s first", tc.why, tc.query, paths, scores, err, tc.want)
		}
		for _, score := range scores {
			if score <= 0 || score > 1 {
				t.Errorf("%s: %q scores %v; every score is above 0 and at most 1", tc.why, tc.query, scores)
				break
			}
		}
	}
}
