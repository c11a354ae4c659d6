package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/testvaults"
)

// BenchmarkParse runs markdown.Parse over every note of a vault, from memory, on one core. Its
// bound is reading the same files from disk with the page cache warm, also on one core: every
// start reads each note once to load its links, so a parser that kept up with the read would
// cost that start nothing more. x-bound is parse time over read time.
//
//   - generated-10k: the generated vault of 10,000 notes (1,000 with -short).
//   - real-vaults: every vault in ../shared/vaults together; skipped when they are absent.
func BenchmarkParse(b *testing.B) {
	b.Run("generated-10k", func(b *testing.B) {
		notes := 10_000
		if testing.Short() {
			notes = 1_000
		}
		benchParse(b, generateVault(b, notes))
	})
	b.Run("real-vaults", func(b *testing.B) {
		benchParse(b, realVaults(b)...)
	})
}

// realVaults returns the folder of every vault in ../shared/vaults, and skips the benchmark
// when they are absent.
func realVaults(b *testing.B) []string {
	root, err := testvaults.Root()
	if err != nil {
		b.Skipf("real vaults not available (%v); %s", err, testvaults.Fetch)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, testvaults.Dir(b, e.Name()))
		}
	}
	return dirs
}

// benchParse parses every note of the vaults in dirs, as a loop iteration, and reports the
// rate against that of reading them.
func benchParse(b *testing.B, dirs ...string) {
	type note struct{ file, path, content string }
	var notes []note
	var size int64
	for _, dir := range dirs {
		paths, contents := readVaultNotes(b, dir)
		for i, p := range paths {
			notes = append(notes, note{filepath.Join(dir, filepath.FromSlash(p)), p, contents[i]})
			size += int64(len(contents[i]))
		}
	}

	// The best of three reads: the notes were just read, so the cache is as warm as it gets.
	read := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		for _, n := range notes {
			if _, err := os.ReadFile(n.file); err != nil {
				b.Fatal(err)
			}
		}
		read = min(read, time.Since(start))
	}

	for b.Loop() {
		for _, n := range notes {
			markdown.Parse(n.path, n.content)
		}
	}
	parse := b.Elapsed() / time.Duration(b.N)

	mbPerSecond := func(d time.Duration) float64 { return float64(size) / 1e6 / d.Seconds() }
	b.ReportMetric(mbPerSecond(parse), "parse-MB/s")
	b.ReportMetric(mbPerSecond(read), "read-MB/s")
	b.ReportMetric(parse.Seconds()/read.Seconds(), "x-bound")
}
