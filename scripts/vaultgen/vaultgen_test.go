package vaultgen_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"vaultmcp/scripts/vaultgen"
	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

func generate(t testing.TB, opts vaultgen.Options) (string, vaultgen.Stats) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	s, err := vaultgen.Generate(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// treeHash hashes every folder and file under dir, names and contents, in a fixed order.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%q %v\n", filepath.ToSlash(rel), d.IsDir())
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestSameSeedSameVault(t *testing.T) {
	a, sa := generate(t, vaultgen.Options{Notes: 1000, Seed: 1})
	b, sb := generate(t, vaultgen.Options{Notes: 1000, Seed: 1})
	if ha, hb := treeHash(t, a), treeHash(t, b); ha != hb || sa != sb {
		t.Errorf("seed 1 twice gave different vaults: %s %+v and %s %+v", ha, sa, hb, sb)
	}
	c, _ := generate(t, vaultgen.Options{Notes: 200, Seed: 1})
	d, _ := generate(t, vaultgen.Options{Notes: 200, Seed: 2})
	if treeHash(t, c) == treeHash(t, d) {
		t.Errorf("seeds 1 and 2 gave the same vault")
	}
}

// TestGolden pins one small vault, so that a change to the generator, or to math/rand/v2,
// that changes what a seed writes is seen: benchmark figures from before it no longer compare.
func TestGolden(t *testing.T) {
	dir, s := generate(t, vaultgen.Options{Notes: 200, Seed: 42})
	const want = "25592e7ee2b4fb4a34a90602101f11fdd10991f465451b7a6508aa50b3b38c31"
	if got := treeHash(t, dir); got != want {
		t.Errorf("seed 42, 200 notes: tree hash %s, want %s (stats %+v)", got, want, s)
	}
}

func TestRefusesFolderWithFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Note.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: 10}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Generate into a folder with a note: error %v, want one saying it is not empty", err)
	}
	if _, err := vaultgen.Generate(filepath.Join(dir, "new"), vaultgen.Options{Notes: -1}); err == nil {
		t.Error("Generate of -1 notes: no error")
	}
}

func TestSmallVaults(t *testing.T) {
	for _, n := range []int{0, 1, 2, 19, 20} {
		dir, s := generate(t, vaultgen.Options{Notes: n, Seed: 1})
		if got := len(readVault(t, dir)); got != n || s.Notes != int64(n) {
			t.Errorf("%d notes asked for: %d written, Stats.Notes %d", n, got, s.Notes)
		}
	}
}

// TestVault checks a large vault: 10,000 notes, or 1,000 with -short.
func TestVault(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	dir, s := generate(t, vaultgen.Options{Notes: n, Seed: 1})
	notes := readVault(t, dir)
	paths := slices.Sorted(maps.Keys(notes))
	t.Logf("%d notes: %+v", n, s)

	t.Run("counts", func(t *testing.T) {
		var bytes int64
		for _, c := range notes {
			bytes += int64(len(c))
		}
		if int64(len(notes)) != int64(n) || s.Notes != int64(n) || s.Bytes != bytes {
			t.Errorf("the server sees %d notes of %d bytes; asked for %d, Stats say %d of %d", len(notes), bytes, n, s.Notes, s.Bytes)
		}
		folders := folderDepths(t, dir)
		if int64(len(folders)) != s.Folders {
			t.Errorf("%d folders, Stats say %d", len(folders), s.Folders)
		}
		if s.Folders < int64(n)*20/1000 || s.Folders > int64(n)*60/1000 {
			t.Errorf("%d folders for %d notes, want a few dozen per thousand", s.Folders, n)
		}
		if deepest := slices.Max(folders); deepest < 3 || deepest > 4 {
			t.Errorf("folders nest %d deep, want 3 or 4", deepest)
		}
	})

	t.Run("names", func(t *testing.T) {
		seen := map[string]string{}
		nonASCII := 0
		for _, p := range paths {
			if clean, err := vault.NotePath(p); err != nil || clean != p {
				t.Errorf("%q is not a clean note path: %q, %v", p, clean, err)
			}
			for _, name := range strings.Split(p, "/") {
				if !utf8.ValidString(name) || strings.ContainsAny(name, `<>:"\|?*#^[]`) || len(name) > 255 ||
					strings.HasSuffix(name, " ") || strings.HasSuffix(strings.TrimSuffix(name, ".md"), ".") {
					t.Errorf("%q: name %q is not valid on Windows or cannot be linked to", p, name)
				}
			}
			// Folders too: a/B.md and A/c.md would put two folders in one on macOS.
			for prefix := p; prefix != "."; prefix = path.Dir(prefix) {
				key := strings.ToLower(prefix)
				if other, ok := seen[key]; ok && other != prefix {
					t.Errorf("%q and %q differ only in letter case", prefix, other)
				}
				seen[key] = prefix
			}
			if strings.ContainsFunc(path.Base(p), func(r rune) bool { return r >= utf8.RuneSelf }) {
				nonASCII++
			}
		}
		if nonASCII < n*3/100 {
			t.Errorf("%d of %d note names are not ASCII, want 3%% or more", nonASCII, n)
		}
	})

	t.Run("parse", func(t *testing.T) {
		var headings, tags, links, fm int64
		for _, p := range paths {
			note := markdown.Parse(p, notes[p])
			headings += int64(len(note.Headings))
			tags += int64(len(note.Tags))
			links += int64(len(note.Links))
			if note.Frontmatter.Present {
				fm++
				if note.Frontmatter.Err != nil {
					t.Errorf("%s: bad frontmatter: %v", p, note.Frontmatter.Err)
				}
			}
			if len(note.Headings) > 15 {
				t.Errorf("%s: %d headings, want at most 15", p, len(note.Headings))
			}
			for _, h := range note.Headings {
				if h.Level < 1 || h.Level > 4 {
					t.Errorf("%s: heading %q at level %d, want 1 to 4", p, h.Text, h.Level)
				}
			}
		}
		// The parser finds exactly what the generator wrote: nothing in code, no stray '#'.
		got := [4]int64{headings, tags, links, fm}
		want := [4]int64{s.Headings, s.Tags, s.Links, s.Frontmatter}
		if got != want {
			t.Errorf("parsed headings, tags, links, frontmatter %v, Stats say %v", got, want)
		}
		if fm < int64(n)*50/100 || fm > int64(n)*70/100 {
			t.Errorf("%d of %d notes have frontmatter, want about 60%%", fm, n)
		}
	})

	t.Run("links", func(t *testing.T) {
		g := links.New()
		for _, p := range paths {
			g.Set(p, notes[p], markdown.Parse(p, notes[p]))
		}
		var total, resolved int64
		for _, p := range paths {
			for _, r := range g.Outgoing(p) {
				total++
				if r.To != "" {
					resolved++
				}
			}
		}
		missing := total - resolved
		if total != s.Links || missing != s.MissingLinks {
			t.Errorf("%d links, %d unresolved; Stats say %d and %d", total, missing, s.Links, s.MissingLinks)
		}
		if resolved*100 < total*90 || missing*100 < total*2 {
			t.Errorf("%d of %d links resolve, want 90%% to 98%%", resolved, total)
		}
		if len(g.Unresolved()) == 0 {
			t.Error("no missing notes")
		}
	})

	t.Run("sizes", func(t *testing.T) {
		sizes := make([]int, 0, len(notes))
		for _, c := range notes {
			sizes = append(sizes, len(c))
		}
		slices.Sort(sizes)
		median, p99 := sizes[len(sizes)/2], sizes[len(sizes)*99/100]
		if median < 500 || median > 5000 || p99 < 16<<10 {
			t.Errorf("median note %d bytes, 99th percentile %d: want a median of 500 B to 5 KB and a long tail", median, p99)
		}
		if biggest := sizes[len(sizes)-1]; biggest < 1<<20 || int64(biggest) != s.Largest {
			t.Errorf("largest note %d bytes, Stats say %d; want one over 1 MiB", biggest, s.Largest)
		}
		if n == 10000 && s.Bytes > 100e6 {
			t.Errorf("10,000 notes take %d bytes, want under 100 MB", s.Bytes)
		}
	})
}

// readVault reads every note the way the server lists and reads them.
func readVault(t *testing.T, dir string) map[string]string {
	t.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	paths, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	notes := make(map[string]string, len(paths))
	for _, p := range paths {
		_, content, err := v.ReadNote(p)
		if err != nil {
			t.Fatal(err)
		}
		notes[p] = string(content)
	}
	return notes
}

// folderDepths returns the depth of each folder below dir (1 for a folder in dir).
func folderDepths(t *testing.T, dir string) []int {
	t.Helper()
	var depths []int
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		depths = append(depths, strings.Count(filepath.ToSlash(rel), "/")+1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return depths
}

func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var s vaultgen.Stats
			for b.Loop() {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "vault")
				b.StartTimer()
				var err error
				if s, err = vaultgen.Generate(dir, vaultgen.Options{Notes: n, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Bytes)/1e6, "MB")
		})
	}
}
