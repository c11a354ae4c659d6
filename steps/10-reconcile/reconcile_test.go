package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
)

// embeddedFor is what the stand-in must receive to embed the notes at paths: one input per
// chunk, with the prefix the Ollama client adds.
func embeddedFor(t *testing.T, vaultDir string, paths ...string) []string {
	t.Helper()
	var inputs []string
	for _, path := range paths {
		content, err := os.ReadFile(filepath.Join(vaultDir, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range markdown.Parse(path, string(content)).Sections {
			for _, chunk := range s.Chunks {
				inputs = append(inputs, "search_document: "+chunk)
			}
		}
	}
	slices.Sort(inputs)
	return inputs
}

// documentsEmbedded lists the documents the stand-in embedded since its last Reset; search
// queries, which the tests also send, are left out.
func documentsEmbedded(ollama *ollamatest.Server) []string {
	var docs []string
	for _, input := range ollama.Inputs() {
		if strings.HasPrefix(input, "search_document: ") {
			docs = append(docs, input)
		}
	}
	slices.Sort(docs)
	return docs
}

func status(t testing.TB, url string) statusJSON {
	t.Helper()
	text, isError := steptest.CallTool(t, url, "index_status", map[string]any{})
	var st statusJSON
	if err := json.Unmarshal([]byte(text), &st); isError || err != nil {
		t.Fatalf("index_status = %s (isError %v, %v)", text, isError, err)
	}
	return st
}

func move(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestRestartEmbedsOnlyWhatChanged edits the vault while the server is off, in every way a
// user does, and counts at the Ollama stand-in what the next start embeds.
func TestRestartEmbedsOnlyWhatChanged(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := steptest.CopyVault(t)
	db := filepath.Join(t.TempDir(), "index.db")
	args := []string{"-embedder", "ollama", "-db", db, "-min-score", "0.17"}

	url, stop := launch(t, vaultDir, args...)
	waitReady(t, url)
	if got, want := documentsEmbedded(ollama), embeddedFor(t, vaultDir, notesIn(t, vaultDir)...); !slices.Equal(got, want) {
		t.Fatalf("the first start embedded %d inputs, want every chunk of the vault (%d)", len(got), len(want))
	}
	stop()

	// An unchanged vault costs nothing.
	ollama.Reset()
	url, stop = launch(t, vaultDir, args...)
	waitReady(t, url)
	if got := documentsEmbedded(ollama); len(got) != 0 {
		t.Errorf("a restart over an unchanged vault embedded %d inputs, want none", len(got))
	}
	stop()

	// Edits while the server is off: one of each kind.
	v := func(path string) string { return filepath.Join(vaultDir, filepath.FromSlash(path)) }
	steptest.Write(t, v("Garden/Seed saving.md"), "# Seed saving\n\nDry the tomato seeds on a plate for a week.\n")
	compost, err := os.ReadFile(v("Garden/Compost.md"))
	if err != nil {
		t.Fatal(err)
	}
	steptest.Write(t, v("Garden/Compost.md"), string(compost)+"\n## Winter\n\nCover the heap with cardboard when frost comes.\n")
	if err := os.Remove(v("Reading/Books 2026.md")); err != nil {
		t.Fatal(err)
	}
	move(t, v("Kitchen/Crème fraîche.md"), v("Kitchen/Cultured cream.md"))
	move(t, v("Projects"), v("Archive/2026/Projects"))
	// Touched but not changed: a sync tool resetting times. Read, never embedded.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(v("Garden/Tomatoes.md"), later, later); err != nil {
		t.Fatal(err)
	}

	ollama.Reset()
	url, stop = launch(t, vaultDir, args...)
	defer stop()
	waitReady(t, url)
	got, want := documentsEmbedded(ollama), embeddedFor(t, vaultDir, "Garden/Seed saving.md", "Garden/Compost.md")
	if !slices.Equal(got, want) {
		t.Errorf("after the edits, the restart embedded:\n  %s\nwant exactly the chunks of the new and the changed note:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	// The index now is what a fresh build of the edited vault would be.
	st := status(t, url)
	if onDisk := len(notesIn(t, vaultDir)); st.Notes != onDisk {
		t.Errorf("index_status counts %d notes, want the %d on disk", st.Notes, onDisk)
	}
	steptest.Eventually(t, steptest.Patience, finds(t, url, "cultured cream crème fraîche", "Kitchen/Cultured cream.md"))
	steptest.Eventually(t, steptest.Patience, finds(t, url, "rain barrel overflow", "Archive/2026/Projects/Rain barrel.md"))
	steptest.Eventually(t, steptest.Patience, finds(t, url, "cover the heap with cardboard when frost comes", "Garden/Compost.md"))
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "books 2026 reading list", "Reading/Books 2026.md"))
	// The link graph follows the moves: the moved notes' links come from their new paths.
	if in := backlinksOf(t, url, "Garden/Raised beds.md"); !slices.Contains(in, "Archive/2026/Projects/Rain barrel.md") ||
		slices.Contains(in, "Projects/Rain barrel.md") {
		t.Errorf("backlinks of Raised beds after the move: %v, want Archive/2026/Projects/Rain barrel.md and not the old path", in)
	}
}

// notesIn lists the notes under dir as the server sees them: Markdown files, outside
// Obsidian's folders.
func notesIn(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, _ := filepath.Rel(dir, path)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestEmbedderChangeRebuilds checks that an index is never searched with another model's
// query vectors: a new embedder, model or dimension empties the index, says why, and fills it
// again.
func TestEmbedderChangeRebuilds(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	db := filepath.Join(t.TempDir(), "index.db")
	start := func(ollama *ollamatest.Server, args ...string) statusJSON {
		t.Helper()
		if ollama != nil {
			t.Setenv("OLLAMA_HOST", ollama.URL)
		}
		url, stop := launch(t, vaultDir, append([]string{"-db", db, "-min-score", "0.17"}, args...)...)
		defer stop()
		waitReady(t, url)
		return status(t, url)
	}
	all := embeddedFor(t, vaultDir, notesIn(t, vaultDir)...)

	offline := start(nil, "-embedder", "offline")
	if offline.Model != "offline-lexical-v1" || offline.Notes != len(notesIn(t, vaultDir)) {
		t.Fatalf("offline index: %+v", offline)
	}

	nomic := ollamatest.NewServer(ollamatest.Options{})
	defer nomic.Close()
	st := start(nomic, "-embedder", "ollama")
	if got := documentsEmbedded(nomic); !slices.Equal(got, all) {
		t.Errorf("offline → Ollama embedded %d inputs, want every chunk (%d)", len(got), len(all))
	}
	if st.Model != "nomic-embed-text" || !strings.Contains(st.RebuiltBecause, "offline") || st.RebuiltAt == "" {
		t.Errorf("after offline → Ollama, index_status = %+v; want nomic-embed-text, and why it was rebuilt", st)
	}

	// Shorter vectors are another index: every note is embedded again, each request asking
	// Ollama for 256 numbers. While Ollama is down, auto keeps them; once it answers, the
	// index goes back to what the flags ask for.
	nomic.Reset()
	st = start(nomic, "-embedder", "ollama", "-dimensions", "256")
	if got := documentsEmbedded(nomic); !slices.Equal(got, all) {
		t.Errorf("-dimensions 256 embedded %d inputs, want every chunk (%d)", len(got), len(all))
	}
	for _, call := range nomic.Calls() {
		if call.Dimensions != 256 {
			t.Fatalf("with -dimensions 256, a request asked Ollama for %d dimensions", call.Dimensions)
		}
	}
	if st.Dimensions != 256 || !strings.Contains(st.RebuiltBecause, "768 dimensions") {
		t.Errorf("after -dimensions 256, index_status = %+v; want 256 dimensions, and why", st)
	}
	nomic.SetFailure(ollamatest.Down, 0)
	if st = start(nomic); st.Dimensions != 256 || st.Notes != len(notesIn(t, vaultDir)) {
		t.Errorf("auto with Ollama down: index_status = %+v; want the 256-dimension index kept whole", st)
	}
	nomic.SetFailure(ollamatest.None, 0)
	if st = start(nomic); st.Dimensions != 768 || !strings.Contains(st.RebuiltBecause, "256 dimensions") {
		t.Errorf("auto with Ollama back and no -dimensions: index_status = %+v; want 768 dimensions again, and why", st)
	}

	minilm := ollamatest.NewServer(ollamatest.Options{Model: "all-minilm", Dimensions: 384})
	defer minilm.Close()
	st = start(minilm, "-embedder", "ollama", "-model", "all-minilm")
	if got := documentsEmbedded(minilm); !slices.Equal(got, all) {
		t.Errorf("a new model embedded %d inputs, want every chunk (%d)", len(got), len(all))
	}
	if st.Model != "all-minilm" || st.Dimensions != 384 || !strings.Contains(st.RebuiltBecause, "nomic-embed-text") {
		t.Errorf("after a model change, index_status = %+v; want all-minilm, 384 dimensions, and why", st)
	}

	// -embedder auto keeps an index Ollama built even while Ollama is down: falling back to
	// the offline embedder would throw the index away.
	minilm.SetFailure(ollamatest.Down, 0)
	st = start(minilm, "-model", "all-minilm")
	if st.Model != "all-minilm" || st.Notes != len(notesIn(t, vaultDir)) {
		t.Errorf("auto with Ollama down: index_status = %+v; want the all-minilm index kept whole", st)
	}
}

// TestServesWhileCatchingUp starts over a vault whose embedding is slow: the server answers at
// once, and search says how far the index has got.
func TestServesWhileCatchingUp(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	for i := range 600 {
		steptest.Write(t, filepath.Join(vaultDir, "Notes", fmt.Sprintf("note %03d.md", i)), fmt.Sprintf("# Note %d\n\nsourdough number %d\n", i, i))
	}
	ollama.SetLatency(100*time.Millisecond, 0)
	url := startServing(t, vaultDir, "-embedder", "ollama", "-min-score", "0.17")

	// Until the first batch is stored, search finds nothing; it must say why.
	result, text := searchFor(t, url, map[string]any{"query": "sourdough"})
	if !strings.Contains(result.Incomplete, "of 600 notes") && !strings.Contains(result.Incomplete, "compared with the vault") {
		t.Errorf("search during the catch-up: %q, want it to say how many notes are indexed", result.Incomplete)
	}
	if text != "" {
		t.Errorf("search during the catch-up failed: %s", text)
	}
	if st := status(t, url); st.State == phaseReady {
		t.Errorf("index_status says ready while 600 notes wait to be embedded: %+v", st)
	}
	// Never caught up yet: no caughtUpAt at all, rather than an empty time.
	if text, _ := steptest.CallTool(t, url, "index_status", map[string]any{}); strings.Contains(text, "caughtUpAt") {
		t.Errorf("index_status before the first catch-up = %s; want no caughtUpAt", text)
	}
	// A note saved during the catch-up waits in the watcher, and is indexed after it.
	steptest.Write(t, filepath.Join(vaultDir, "Late", "Saved meanwhile.md"), "# Saved meanwhile\n\nkohlrabi fritters\n")

	ollama.SetLatency(0, 0)
	waitReady(t, url)
	steptest.Eventually(t, steptest.Patience, finds(t, url, "kohlrabi fritters", "Late/Saved meanwhile.md"))
	result, _ = searchFor(t, url, map[string]any{"query": "sourdough"})
	if result.Incomplete != "" || len(result.Results) == 0 {
		t.Errorf("search once ready: %+v", result)
	}
	if st := status(t, url); st.Notes != 601 || st.VaultNotes != 0 {
		t.Errorf("index_status once ready: %+v", st)
	}
}

// TestKillDuringCatchUp kills the server with SIGKILL while it embeds, and starts it again: the
// index is consistent, the second run embeds only what the first did not store, and the end
// result is complete.
func TestKillDuringCatchUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and runs it twice; `make check` runs it")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vaultmcp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	vaultDir := filepath.Join(dir, "vault")
	const notes = 1000
	for i := range notes {
		steptest.Write(t, filepath.Join(vaultDir, fmt.Sprintf("Folder %d", i%10), fmt.Sprintf("note %04d.md", i)),
			fmt.Sprintf("# Note %d\n\nword%d compost\n", i, i))
	}
	db := filepath.Join(dir, "index.db")
	ollama := ollamatest.NewServer(ollamatest.Options{Latency: 30 * time.Millisecond})
	defer ollama.Close()

	startProcess := func() (*exec.Cmd, string) {
		t.Helper()
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-vault", vaultDir, "-db", db, "-embedder", "ollama", "-min-score", "0.17")
		cmd.Env = append(os.Environ(), "OLLAMA_HOST="+ollama.URL)
		logs, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		select {
		case url := <-steptest.URLFrom(logs):
			return cmd, url
		case <-time.After(time.Minute):
			t.Fatal("the server did not log its url within a minute")
			return nil, ""
		}
	}

	first, url := startProcess()
	// Kill once some notes are stored and most are not.
	var before statusJSON
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		before = status(t, url)
		if before.Notes > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no note was stored within a minute")
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	if before.Notes >= notes {
		t.Fatalf("the catch-up finished before the kill (%d notes); slow the stand-in down", before.Notes)
	}

	ollama.Reset()
	ollama.SetLatency(0, 0)
	second, url := startProcess()
	waitReady(t, url)
	after := status(t, url)
	if after.Notes != notes || after.Sections != notes {
		t.Errorf("after the restart: %d notes and %d sections, want %d of each", after.Notes, after.Sections, notes)
	}
	if embedded := len(documentsEmbedded(ollama)); embedded > notes-before.Notes {
		t.Errorf("the restart embedded %d notes; %d were stored before the kill, so at most %d were left",
			embedded, before.Notes, notes-before.Notes)
	}
	steptest.Eventually(t, steptest.Patience, finds(t, url, "word999 compost", "Folder 9/note 0999.md"))
	second.Process.Signal(os.Interrupt)
	second.Wait()

	s, err := store.Open(context.Background(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestSearchAgreesWithStatus stops the catch-up between two notes, by holding SQLite's write
// lock from another connection, and asks both tools how far it got. In a first build every
// note stored is up to date, so search's count, index_status's upToDate and its count of notes
// in the database must be one number. A catch-up that counted by batch would be stopped, most
// of the time, part-way through one, and behind the database by the notes stored since.
func TestSearchAgreesWithStatus(t *testing.T) {
	vaultDir := t.TempDir()
	for i := range 1500 {
		steptest.Write(t, filepath.Join(vaultDir, "Notes", fmt.Sprintf("note %04d.md", i)), fmt.Sprintf("# Note %d\n\nsourdough number %d\n", i, i))
	}
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServing(t, vaultDir, "-embedder", "offline", "-db", db)
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := status(t, url); st.Notes == 0 {
			return "no note was stored"
		}
		return ""
	})

	other, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.BusyTimeout(time.Minute); err != nil {
		t.Fatal(err)
	}
	// The writer finishes the note it is storing, and waits at the next; the server's own
	// busy timeout (5 s) is far longer than this test holds the lock.
	if err := other.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	// The database cannot change now; the count of the last note stored may still be on its
	// way. A count kept by batch would stay behind for good. Within the server's busy timeout.
	var st statusJSON
	steptest.Eventually(t, 3*time.Second, func() string {
		if st = status(t, url); st.Notes != st.UpToDate {
			return fmt.Sprintf("with the writer held, index_status says %d notes up to date and %d in the index", st.UpToDate, st.Notes)
		}
		return ""
	})
	result, errText := searchFor(t, url, map[string]any{"query": "sourdough"})
	if err := other.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}

	var searched, total int
	if _, err := fmt.Sscanf(strings.ReplaceAll(result.Incomplete, ",", ""), "indexed %d of %d notes", &searched, &total); err != nil || errText != "" {
		t.Fatalf("search during the catch-up: %q %s; want it to say how many notes are indexed", result.Incomplete, errText)
	}
	if st.State != phaseIndexing || st.Notes != st.UpToDate || searched != st.Notes || total != 1500 || st.VaultNotes != 1500 {
		t.Errorf("with the writer held: index_status says %d of %d up to date and %d notes in the index (%s); search says %d of %d",
			st.UpToDate, st.VaultNotes, st.Notes, st.State, searched, total)
	}
	waitReady(t, url)
}

// Rounds of random edits made while the server is off, each followed by a restart: after each,
// the link graph the index holds answers exactly as one built from scratch from the notes on
// disk. The edits share names, aliases and folders, so that links move between notes.
func TestRestartKeepsLinksExact(t *testing.T) {
	vaultDir := t.TempDir()
	db := filepath.Join(t.TempDir(), "index.db")
	rng := rand.New(rand.NewPCG(3, 4))
	folders := []string{"", "A/", "B/", "A/C/"}
	names := []string{"Ideas", "Plan", "Levain", "Note", "Compost"}
	randomPath := func() string { return folders[rng.IntN(len(folders))] + names[rng.IntN(len(names))] + ".md" }
	randomNote := func() string {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "---\naliases: [%s]\n---\n", names[rng.IntN(len(names))])
		}
		for range rng.IntN(5) {
			target := []string{names[rng.IntN(len(names))], strings.TrimSuffix(randomPath(), ".md"),
				"../" + names[rng.IntN(len(names))], "Missing " + names[rng.IntN(len(names))]}[rng.IntN(4)]
			fmt.Fprintf(&b, "## Part %d\nSee [[%s]] and more.\n", rng.IntN(3), target)
		}
		return b.String()
	}
	onDisk := func(p string) string { return filepath.Join(vaultDir, filepath.FromSlash(p)) }
	for range 15 {
		steptest.Write(t, onDisk(randomPath()), randomNote())
	}

	for round := range 4 {
		url, stop := launch(t, vaultDir, "-embedder", "offline", "-db", db)
		waitReady(t, url)
		stop()
		compareLinks(t, vaultDir, db, round)

		// Edits while the server is off.
		for range 8 {
			p := randomPath()
			switch rng.IntN(4) {
			case 0, 1:
				steptest.Write(t, onDisk(p), randomNote())
			case 2:
				os.Remove(onDisk(p))
			case 3:
				if to := randomPath(); to != p {
					os.MkdirAll(filepath.Dir(onDisk(to)), 0o755)
					os.Rename(onDisk(p), onDisk(to)) // a rename the comparison pairs by content
				}
			}
		}
	}
}

// compareLinks fails the test unless the link graph in the index at db answers, for every note
// of the vault and every missing one, as a graph built from the notes on disk does.
func compareLinks(t *testing.T, vaultDir, db string, round int) {
	t.Helper()
	notes, err := vault.Open(vaultDir)
	if err != nil {
		t.Fatal(err)
	}
	defer notes.Close()
	paths, err := notes.Notes()
	if err != nil {
		t.Fatal(err)
	}
	fresh := links.New()
	for _, p := range paths {
		_, content, err := notes.ReadNote(p)
		if err != nil {
			t.Fatal(err)
		}
		fresh.Set(p, string(content), markdown.Parse(p, string(content)))
	}
	s, err := store.Open(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stored, err := links.NewStored(t.Context(), s, func(p string) (string, error) {
		_, content, err := notes.ReadNote(p)
		return string(content), err
	})
	if err != nil {
		t.Fatal(err)
	}
	inGraph, err := stored.Notes(t.Context())
	if slices.Sort(inGraph); err != nil || !slices.Equal(inGraph, paths) {
		t.Fatalf("round %d: the stored graph holds %v (%v), want the notes on disk %v", round, inGraph, err, paths)
	}
	for _, p := range paths {
		back, err1 := stored.Backlinks(t.Context(), p)
		out, err2 := stored.Outgoing(t.Context(), p)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, fresh.Backlinks(p)) || !reflect.DeepEqual(out, fresh.Outgoing(p)) {
			t.Fatalf("round %d, %s: after the restart\n backlinks %+v\n links     %+v\nfrom scratch\n backlinks %+v\n links     %+v",
				round, p, back, out, fresh.Backlinks(p), fresh.Outgoing(p))
		}
	}
	missing, err := stored.Unresolved(t.Context())
	if err != nil || !reflect.DeepEqual(missing, fresh.Unresolved()) {
		t.Fatalf("round %d: after the restart, unresolved %+v (%v)\nfrom scratch %+v", round, missing, err, fresh.Unresolved())
	}
}

// Once the worker has nothing left to write, after the catch-up and again after an edit, the
// write-ahead log is emptied: an idle index is one file, not a file and a log of up to 4 MiB.
func TestIdleIndexLeavesNoLog(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServer(t, vaultDir, "-db", db)
	logEmptied := func() string {
		info, err := os.Stat(db + "-wal")
		switch {
		case errors.Is(err, os.ErrNotExist):
			return ""
		case err != nil:
			return err.Error()
		case info.Size() > 0:
			return fmt.Sprintf("the write-ahead log beside an idle index holds %d bytes", info.Size())
		}
		return ""
	}
	steptest.Eventually(t, steptest.Patience, logEmptied)

	writeNote(t, vaultDir, "Idle.md", "# Idle\n\nA note written while the server runs.")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "written while the server runs", "Idle.md"))
	steptest.Eventually(t, steptest.Patience, logEmptied)
}

// A catch-up gives the collector a budget, and lifts it when it is done, the last of several
// at once included; a limit the user set with GOMEMLIMIT stands. Not parallel: the limit is
// the process's.
func TestBudgetMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	debug.SetMemoryLimit(math.MaxInt64) // none set
	lift := budgetMemory()
	if got := limit(); got != catchUpMemory {
		t.Fatalf("during a catch-up the limit is %d, want %d", got, catchUpMemory)
	}
	liftOther := budgetMemory()
	lift()
	if got := limit(); got != catchUpMemory {
		t.Fatalf("with a second catch-up still running the limit is %d, want %d", got, catchUpMemory)
	}
	liftOther()
	if got := limit(); got != math.MaxInt64 {
		t.Fatalf("after the catch-ups the limit is %d, want none", got)
	}

	const users = 1 << 30 // as GOMEMLIMIT=1GiB sets it
	debug.SetMemoryLimit(users)
	lift = budgetMemory()
	if got := limit(); got != users {
		t.Fatalf("with GOMEMLIMIT set, a catch-up changed the limit to %d", got)
	}
	lift()
	if got := limit(); got != users {
		t.Fatalf("with GOMEMLIMIT set, the end of a catch-up changed the limit to %d", got)
	}
}
