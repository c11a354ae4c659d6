package bench

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces" // vec0, for the index's schema
	_ "github.com/ncruces/go-sqlite3/driver"

	"vaultmcp/shared/ollamatest"
)

// BenchmarkIndexSize indexes each vault of ../shared/vaults from empty, through the stand-in
// (768 numbers a vector, as nomic-embed-text gives), and reports the size of its index once
// the server stopped, the database and its write-ahead log, per section and per byte of the
// Markdown it indexes, over the vaults together. These are notes people wrote, with their
// lengths of section and their density of links; BenchmarkMemory reports the same per section
// for the generated vaults. An index holds about 34 tables and indexes of a page each before it
// holds a note: the size of an index of an empty vault is reported too, and the size per byte
// beyond it, which is what a large vault's index tends to. Skipped when the vaults are absent.
func BenchmarkIndexSize(b *testing.B) {
	dirs := realVaults(b)
	var markdown int64
	for _, dir := range dirs {
		_, contents := readVaultNotes(b, dir)
		for _, c := range contents {
			markdown += int64(len(c))
		}
	}
	bin := buildLastStep(b)
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	env := []string{"OLLAMA_HOST=" + ollama.URL, "XDG_CACHE_HOME=" + b.TempDir()}

	empty := indexFresh(b, bin, b.TempDir(), env...)

	b.Run("real-vaults", func(b *testing.B) {
		var sections int
		var index int64
		parts := map[string]int64{}
		for b.Loop() {
			sections, index = 0, 0
			clear(parts)
			for _, dir := range dirs {
				run := indexFresh(b, bin, dir, env...)
				ollama.Reset()
				sections += run.sections
				index += run.dbBytes
				for part, size := range indexParts(b, run.db) {
					parts[part] += size
				}
			}
		}
		for part, size := range parts {
			b.ReportMetric(float64(size)/float64(sections), part+"-B/section")
		}
		b.ReportMetric(float64(sections), "sections")
		b.ReportMetric(float64(markdown), "markdown-B")
		b.ReportMetric(float64(index)/float64(sections), "index-B/section")
		b.ReportMetric(float64(index)/float64(markdown), "index-B/markdown-B")
		b.ReportMetric(float64(empty.dbBytes)/1024, "empty-index-KiB")
		beyond := float64(index - int64(len(dirs))*empty.dbBytes)
		b.ReportMetric(beyond/float64(sections), "beyond-empty-B/section")
		b.ReportMetric(beyond/float64(markdown), "beyond-empty-B/markdown-B")
	})

	// The vaults copied into one, each in a folder of its own: one index, which pays for an
	// empty index once, as a large vault does. Everything the index leaves beside it once the
	// server stopped is counted: the database, its write-ahead log and the log's shared-memory
	// index; and the same while the server runs, once the catch-up is done. Then the same
	// with -dimensions, which keeps fewer numbers of each vector: what the option saves.
	one := filepath.Join(b.TempDir(), "vault")
	for _, dir := range dirs {
		if err := os.CopyFS(filepath.Join(one, filepath.Base(dir)), os.DirFS(dir)); err != nil {
			b.Fatal(err)
		}
	}
	asOne := func(env ...string) func(b *testing.B) {
		return func(b *testing.B) {
			var run indexRun
			var files int64
			for b.Loop() {
				run = indexFresh(b, bin, one, env...)
				ollama.Reset()
				files = 0
				for _, file := range []string{run.db, run.db + "-wal", run.db + "-shm"} {
					if info, err := os.Stat(file); err == nil {
						files += info.Size()
					}
				}
			}
			b.ReportMetric(float64(run.sections), "sections")
			b.ReportMetric(float64(files)/float64(run.sections), "index-B/section")
			b.ReportMetric(float64(files)/float64(markdown), "index-B/markdown-B")
			b.ReportMetric(float64(run.servingBytes)/float64(markdown), "serving-index-B/markdown-B")
			for part, size := range indexParts(b, run.db) {
				b.ReportMetric(float64(size)/float64(run.sections), part+"-B/section")
			}
		}
	}
	b.Run("real-vaults-as-one", asOne(env...))
	for _, n := range []string{"512", "256"} {
		b.Run("real-vaults-as-one-dimensions="+n, asOne(append(env, "VAULTMCP_DIMENSIONS="+n)...))
	}
}

// indexParts returns the bytes the index at path holds for each kind of thing, as the rows
// hold them (without the pages' own overhead): the vectors with their scales, the sections'
// texts and headings, the keyword index (FTS5's blocks and sizes), the signs (vec0's chunks)
// and the links (the strings of each link's row).
func indexParts(b *testing.B, path string) map[string]int64 {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	queries := map[string]string{
		"vectors":  `SELECT sum(length(vector) + 8) FROM embeddings`,
		"text":     `SELECT sum(length(text) + length(heading)) FROM sections`,
		"keywords": `SELECT (SELECT sum(length(block)) FROM words_data) + (SELECT sum(length(sz)) FROM words_docsize)`,
		"signs":    `SELECT sum(length(vectors)) FROM vectors_vector_chunks00`,
		"links":    `SELECT sum(length(written) + length(target_key) + ifnull(length(seeks_name), 0)) FROM links`,
	}
	sizes := map[string]int64{}
	for part, query := range queries {
		var size sql.NullInt64
		if err := db.QueryRow(query).Scan(&size); err != nil {
			b.Fatalf("the size of the %s in %s: %v", part, path, err)
		}
		sizes[part] = size.Int64
	}
	return sizes
}
