package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmarks compare the index with what it replaces or costs:
//
//	go test -run '^$' -bench . ./shared/store
//
//   - BenchmarkSearch: the p50 and p99 latency of a search (the signs in memory, then the
//     exact vectors of the candidates), and of a scan of the same vectors in plain Go, the bound: at
//     1k, 10k and 50k sections of 768 dimensions (50k left out with -short), with and without
//     a folder filter; and the search's recall of the exact k nearest.
//   - BenchmarkSearch/.../hybrid: what the keyword index adds to a search by vectors.
//   - BenchmarkPutNote: indexing 10k sections, one note or fifty a transaction.
//   - BenchmarkOpen: the start-up of a fresh process, with and without the compile cache.

// benchEmbedder has nomic-embed-text's dimension.
var benchEmbedder = Embedder{Name: "bench", Model: "random", Dimension: 768}

// folders is how many top-level folders a random corpus spreads its notes over; a folder
// filter selects one of them, a tenth of the corpus.
const folders = 10

// corpus is a generated set of notes, with their vectors at hand for a plain scan.
type corpus struct {
	notes   []corpusNote
	centers [][]float32 // the topics of a clusteredCorpus
}

type corpusNote struct {
	note     Note
	sections []Section
	vectors  [][]float32 // unit length
}

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var sum float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		sum += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(sum))
	}
	return v
}

// randomCorpus makes notes in folders F0…F9, each with a subfolder level ("F3/S1/n00042.md"),
// and sectionsPerNote random unit vectors per note.
func randomCorpus(r *rand.Rand, notes, sectionsPerNote, dim int) corpus {
	var c corpus
	for i := range notes {
		p := fmt.Sprintf("F%d/S%d/n%05d.md", i%folders, i/folders%3, i)
		n := corpusNote{note: Note{Path: p, Title: strings.TrimSuffix(filepath.Base(p), ".md"), Hash: p}}
		for j := range sectionsPerNote {
			n.sections = append(n.sections, Section{Heading: fmt.Sprintf("%s #%d", p, j), Line: j + 1, Text: randomText(r, 80)})
			n.vectors = append(n.vectors, randomUnit(r, dim))
		}
		c.notes = append(c.notes, n)
	}
	return c
}

// vocabulary is how many different words randomText writes.
const vocabulary = 20000

// randomText writes n words drawn from a Zipf distribution, as words are in prose: a few are
// in almost every section, most in a handful.
func randomText(r *rand.Rand, n int) string {
	zipf := rand.NewZipf(r, 1.1, 1, vocabulary-1)
	words := make([]string, n)
	for i := range words {
		words[i] = wordName(zipf.Uint64())
	}
	return strings.Join(words, " ")
}

// wordName is the i-th word of the vocabulary: letters only, as terms keeps them.
func wordName(i uint64) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		if i /= 26; i == 0 {
			return "w" + string(b)
		}
	}
}

// perTopic is how many sections clusteredCorpus gathers around each topic, on average.
const perTopic = 100

// clusteredCorpus is randomCorpus with vectors shaped like a model's: each section is near one
// of the topic directions (cosine about 0.7 with it), as texts about one subject are.
// Random vectors, evenly spread, are what no model makes, and the one case where the signs of
// the numbers say little about which vectors are nearest.
func clusteredCorpus(r *rand.Rand, notes, sectionsPerNote, dim int) corpus {
	c := randomCorpus(r, notes, sectionsPerNote, dim)
	c.centers = make([][]float32, max(1, notes*sectionsPerNote/perTopic))
	for i := range c.centers {
		c.centers[i] = randomUnit(r, dim)
	}
	for _, n := range c.notes {
		for j := range n.vectors {
			n.vectors[j] = c.near(r, c.centers[r.IntN(len(c.centers))])
		}
	}
	return c
}

// near returns a unit vector near center: center plus noise of about the same length.
func (c corpus) near(r *rand.Rand, center []float32) []float32 {
	noise := randomUnit(r, len(center))
	v := make([]float32, len(center))
	for i := range v {
		v[i] = center[i] + noise[i]
	}
	return unit(v)
}

// query is a query vector for the corpus: near one of its topics, if it has topics.
func (c corpus) query(r *rand.Rand) []float32 {
	if len(c.centers) == 0 {
		return randomUnit(r, len(c.notes[0].vectors[0]))
	}
	return c.near(r, c.centers[r.IntN(len(c.centers))])
}

// quantized returns the corpus with each vector as the index keeps it (see quantize).
func (c corpus) quantized() corpus {
	q := corpus{centers: c.centers}
	for _, n := range c.notes {
		stored := n
		stored.vectors = make([][]float32, len(n.vectors))
		for i, v := range n.vectors {
			stored.vectors[i] = quantize(v).unit()
		}
		q.notes = append(q.notes, stored)
	}
	return q
}

func unit(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(sum))
	}
	return v
}

type scored struct {
	heading string
	score   float32
}

// bruteForce is the plain scan that the index competes with: the cosine similarity (a dot
// product, for unit vectors) of the query with every section in the folder, keeping the k best.
func (c corpus) bruteForce(q []float32, k int, folder string) []scored {
	best := make([]scored, 0, k+1)
	for _, n := range c.notes {
		if folder != "" && !strings.HasPrefix(n.note.Path, folder+"/") {
			continue
		}
		for i, v := range n.vectors {
			var dot float32
			for j := range v {
				dot += v[j] * q[j]
			}
			if len(best) == k && dot <= best[k-1].score {
				continue
			}
			at, _ := slices.BinarySearchFunc(best, dot, func(s scored, d float32) int {
				switch {
				case s.score > d:
					return -1
				case s.score < d:
					return 1
				}
				return 0
			})
			best = slices.Insert(best, at, scored{n.sections[i].Heading, dot})
			if len(best) > k {
				best = best[:k]
			}
		}
	}
	return best
}

func (c corpus) put(tb testing.TB, s *Store) { c.putBatches(tb, s, 50) }

// putBatches stores the corpus with PutNotes, size notes a transaction.
func (c corpus) putBatches(tb testing.TB, s *Store, size int) {
	for batch := range slices.Chunk(c.notes, size) {
		entries := make([]Entry, len(batch))
		for i, n := range batch {
			entries[i] = Entry{Note: n.note, Sections: n.sections, Vectors: n.vectors}
		}
		for _, err := range s.PutNotes(context.Background(), entries) {
			if err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// searchQueries is how many queries BenchmarkSearch asks at least, each of the index and the
// scan: -benchtime=1x runs the loop once, and one latency has no percentiles. A longer
// -benchtime asks more (one query per iteration), for a steadier p99.
const searchQueries = 20

func BenchmarkSearch(b *testing.B) {
	const k, sectionsPerNote = 20, 5
	sizes := []int{1000, 10000, 50000}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, size := range sizes {
		b.Run(fmt.Sprintf("sections=%d", size), func(b *testing.B) {
			// The data is made once per size and shared by the sub-benchmarks.
			r := rand.New(rand.NewPCG(uint64(size), 1))
			data := clusteredCorpus(r, size/sectionsPerNote, sectionsPerNote, benchEmbedder.Dimension)
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "index.db"), Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.Reset(b.Context(), benchEmbedder); err != nil {
				b.Fatal(err)
			}
			data.put(b, s)
			// 200 different queries, reused in turn if the loop runs longer.
			queries := make([][]float32, 200)
			for i := range queries {
				queries[i] = data.query(r)
			}

			b.Run("hybrid", func(b *testing.B) { benchmarkHybrid(b, s, r, queries) })

			for _, folder := range []string{"", "F3"} {
				name := "unfiltered"
				if folder != "" {
					name = "folder-filter"
				}
				b.Run(name, func(b *testing.B) {
					opts := Options{K: k, Folder: folder}
					// How many of the exact k nearest the search finds, over the first 20
					// queries. These also warm SQLite's page cache.
					var found int
					for _, q := range queries[:searchQueries] {
						hits, err := s.filtered(b.Context(), q, opts)
						if err != nil {
							b.Fatal(err)
						}
						exact := map[string]bool{}
						for _, w := range data.bruteForce(q, k, folder) {
							exact[w.heading] = true
						}
						for _, h := range hits {
							if exact[h.Heading] {
								found++
							}
						}
					}

					// Each query is timed alone, in the index and then in the scan, so that both see
					// the same moments of a busy machine. ns/op is the pair and means little:
					// read the percentiles.
					var index, scan []time.Duration
					ask := func(q []float32) {
						start := time.Now()
						if _, err := s.filtered(b.Context(), q, opts); err != nil {
							b.Fatal(err)
						}
						index = append(index, time.Since(start))
						start = time.Now()
						data.bruteForce(q, k, folder)
						scan = append(scan, time.Since(start))
					}
					for b.Loop() {
						ask(queries[len(index)%len(queries)])
					}
					for len(index) < searchQueries {
						ask(queries[len(index)%len(queries)])
					}
					reportAgainstScan(b, index, scan)
					b.ReportMetric(float64(found)/float64(searchQueries*k), "recall")
				})
			}
		})
	}
}

// benchmarkHybrid measures what the keyword leg adds to a search: the 20 best notes by their
// vectors alone (SearchNotes), against the same and the 20 best by keywords (KeywordNotes),
// as step 6's hybrid search asks both, at once; and the keyword leg alone. Each query has three words: a common one, one of
// middling frequency and a rare one.
func benchmarkHybrid(b *testing.B, s *Store, r *rand.Rand, vectors [][]float32) {
	words := make([]string, len(vectors))
	for i := range words {
		words[i] = fmt.Sprintf("%s %s %s", wordName(r.Uint64N(10)), wordName(100+r.Uint64N(900)), wordName(5000+r.Uint64N(vocabulary-5000)))
	}
	opts := Options{K: 20}
	var keyword, vector, hybrid []time.Duration
	ask := func(i int) {
		i %= len(vectors)
		start := time.Now()
		if _, _, err := s.KeywordNotes(b.Context(), words[i], opts); err != nil {
			b.Fatal(err)
		}
		keyword = append(keyword, time.Since(start))
		start = time.Now()
		if _, err := s.SearchNotes(b.Context(), vectors[i], opts); err != nil {
			b.Fatal(err)
		}
		vector = append(vector, time.Since(start))
		start = time.Now()
		var keywordErr error
		var wg sync.WaitGroup
		wg.Go(func() { _, _, keywordErr = s.KeywordNotes(b.Context(), words[i], opts) })
		if _, err := s.SearchNotes(b.Context(), vectors[i], opts); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
		if keywordErr != nil {
			b.Fatal(keywordErr)
		}
		hybrid = append(hybrid, time.Since(start))
	}
	ask(0) // warms the page cache for both
	keyword, vector, hybrid = keyword[:0], vector[:0], hybrid[:0]
	for b.Loop() {
		ask(len(vector))
	}
	for len(vector) < searchQueries {
		ask(len(vector))
	}
	p50, hybridP50 := percentile(vector, 50), percentile(hybrid, 50)
	b.ReportMetric(ms(percentile(keyword, 50)), "keyword-p50-ms")
	b.ReportMetric(ms(p50), "vector-p50-ms")
	b.ReportMetric(ms(hybridP50), "hybrid-p50-ms")
	b.ReportMetric(ms(percentile(hybrid, 99)), "hybrid-p99-ms")
	b.ReportMetric(ms(hybridP50-p50), "added-ms")
	b.ReportMetric(float64(hybridP50)/float64(p50), "x-vector")
}

// percentile returns the p-th percentile of the latencies by the nearest-rank method: the
// smallest latency that at least p% of them do not exceed. It sorts latencies.
func percentile(latencies []time.Duration, p int) time.Duration {
	slices.Sort(latencies)
	rank := (len(latencies)*p + 99) / 100 // ⌈n·p/100⌉, counted from 1
	return latencies[max(rank, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// liveHeap is the memory the program's live objects take, in bytes, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// reportAgainstScan reports the latencies of the index and of the scan it is measured against,
// each timed for the same queries, and their ratio at p50.
func reportAgainstScan(b *testing.B, index, scan []time.Duration) {
	p50, scanP50 := percentile(index, 50), percentile(scan, 50)
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(percentile(index, 99)), "p99-ms")
	b.ReportMetric(ms(scanP50), "scan-p50-ms")
	b.ReportMetric(ms(percentile(scan, 99)), "scan-p99-ms")
	b.ReportMetric(float64(p50)/float64(scanP50), "x-bound")
}

// BenchmarkPutNote writes 2,000 notes of five sections into an empty index, a transaction per
// note, as the watcher does, and fifty notes a transaction, as a build does.
func BenchmarkPutNote(b *testing.B) {
	const notes, sectionsPerNote = 2000, 5
	data := randomCorpus(rand.New(rand.NewPCG(1, 1)), notes, sectionsPerNote, benchEmbedder.Dimension)
	for _, perTransaction := range []int{1, 50} {
		b.Run(fmt.Sprintf("notes-a-transaction=%d", perTransaction), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s, err := Open(b.Context(), filepath.Join(b.TempDir(), "index.db"), Config{})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Reset(b.Context(), benchEmbedder); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				data.putBatches(b, s, perTransaction)
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N*notes*sectionsPerNote)/b.Elapsed().Seconds(), "sections/s")
		})
	}
}

// openChildEnv tells a child process, started by BenchmarkOpen, which compile cache to use.
const openChildEnv = "VAULTMCP_STORE_OPEN_CHILD"

// TestOpenChild is BenchmarkOpen's child: SQLite is compiled once per process, so only a new
// process measures a cold start. It prints how long Open took.
func TestOpenChild(t *testing.T) {
	cacheDir := os.Getenv(openChildEnv)
	if cacheDir == "" {
		t.Skip("run by BenchmarkOpen")
	}
	start := time.Now()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), Config{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	s.Close()
	fmt.Printf("open-ns %d\n", elapsed.Nanoseconds())
}

var openNS = regexp.MustCompile(`open-ns (\d+)`)

// BenchmarkOpen times a process that opens an index: ns/op is the whole process, open-ms/op
// the Open call in it. "cold" starts with an empty compile cache, "warm" with a full one.
func BenchmarkOpen(b *testing.B) {
	child := func(b *testing.B, cacheDir string) time.Duration {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), openChildEnv+"="+cacheDir)
		out, err := cmd.CombinedOutput()
		m := openNS.FindSubmatch(out)
		if err != nil || m == nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		ns, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return time.Duration(ns)
	}
	report := func(b *testing.B, open time.Duration) {
		b.ReportMetric(float64(open.Microseconds())/1000/float64(b.N), "open-ms/op")
	}

	b.Run("cold", func(b *testing.B) {
		var open time.Duration
		for b.Loop() {
			open += child(b, b.TempDir())
		}
		report(b, open)
	})
	b.Run("warm", func(b *testing.B) {
		cacheDir := b.TempDir()
		child(b, cacheDir) // fills the cache
		var open time.Duration
		for b.Loop() {
			open += child(b, cacheDir)
		}
		report(b, open)
	})
}

// BenchmarkCompleteNotes times CompleteNotes, a person's typing completed to note paths, in an
// index of 10,000 and 50,000 notes (two folders deep, a tenth with an alias), against the
// same search over the same names held in memory as Go strings: the least a scan can cost.
// Each query is three to six letters of a note's name, or of a folder's.
//
// Besides the completions one after another, it reports the first completion after Open,
// which reads the names into memory (first-ms), and the memory they then take (names-MiB, the
// live heap they add); and completions each right after a write to the index (an edit of a
// note's aliases or a rename, in turn), which changes the names in memory as it commits
// (after-write-p50-ms, and the writes' own time, write-p50-ms); and the query that gives the
// same answers from SQLite (query-p50-ms).
func BenchmarkCompleteNotes(b *testing.B) {
	sizes := []int{10000, 50000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	words := strings.Fields("garden kitchen bread tomato soil compost rain barrel sensor sourdough " +
		"starter planting calendar seed swap library reading notes project ideas meeting weekly " +
		"review journal travel recipe budget health sleep running books film music")
	for _, size := range sizes {
		b.Run(fmt.Sprintf("notes=%d", size), func(b *testing.B) {
			r := rand.New(rand.NewPCG(uint64(size), 2))
			word := func() string { return words[r.IntN(len(words))] }
			s, err := Open(b.Context(), filepath.Join(b.TempDir(), "index.db"), Config{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.Reset(b.Context(), benchEmbedder); err != nil {
				b.Fatal(err)
			}
			type names struct{ path, title, aliases string }
			var all []names
			var notes []Note // the notes themselves, in the order of all
			var entries []Entry
			for i := range size {
				title := fmt.Sprintf("%s %s %d", word(), word(), i)
				n := Note{Path: fmt.Sprintf("%s/%s %d/%s.md", word(), word(), i%97, title), Title: title}
				if i%10 == 0 {
					n.Aliases = []string{word() + " " + word()}
				}
				all = append(all, names{strings.ToLower(n.Path), strings.ToLower(title), strings.ToLower(strings.Join(n.Aliases, "\n"))})
				notes = append(notes, n)
				entries = append(entries, Entry{Note: n})
				if len(entries) == 500 || i == size-1 {
					for _, err := range s.PutNotes(b.Context(), entries) {
						if err != nil {
							b.Fatal(err)
						}
					}
					entries = entries[:0]
				}
			}
			queries := make([]string, 200)
			for i := range queries {
				w := word()
				queries[i] = w[:min(len(w), 3+r.IntN(4))]
			}

			var index, scan []time.Duration
			ask := func(q string) {
				start := time.Now()
				if _, _, err := s.CompleteNotes(b.Context(), q, MaxCompletions); err != nil {
					b.Fatal(err)
				}
				index = append(index, time.Since(start))
				if !s.names.loaded {
					b.Fatal("the names are not in memory")
				}
				start = time.Now()
				var found []string
				for _, n := range all {
					if strings.Contains(n.path, q) || strings.Contains(n.title, q) || strings.Contains(n.aliases, q) {
						found = append(found, n.path)
					}
				}
				slices.Sort(found)
				scan = append(scan, time.Since(start))
			}
			before := liveHeap()
			ask(queries[0]) // reads the names
			first, held := index[0], liveHeap()-before
			for _, q := range queries[1:searchQueries] {
				ask(q)
			}
			index, scan = index[:0], scan[:0]
			for b.Loop() {
				ask(queries[len(index)%len(queries)])
			}
			for len(index) < searchQueries {
				ask(queries[len(index)%len(queries)])
			}
			reportAgainstScan(b, index, scan)

			// The query that states the rules, which answered before the names were in memory.
			var query []time.Duration
			for _, q := range queries[:searchQueries] {
				start := time.Now()
				if _, _, err := s.queryNames(b.Context(), q, MaxCompletions); err != nil {
					b.Fatal(err)
				}
				query = append(query, time.Since(start))
			}
			b.ReportMetric(ms(percentile(query, 50)), "query-p50-ms")

			// Each completion right after a write: an edit of a note's aliases, or a rename.
			index, scan = nil, nil
			var writes []time.Duration
			for i := range 2 * searchQueries {
				j := r.IntN(len(notes))
				n := &notes[j]
				start := time.Now()
				if i%2 == 0 {
					n.Aliases = []string{word() + " " + word()}
					if err := s.PutNote(b.Context(), *n, nil, nil); err != nil {
						b.Fatal(err)
					}
				} else {
					to := strings.TrimSuffix(n.Path, ".md") + " renamed.md"
					if err := s.RenameNote(b.Context(), n.Path, to); err != nil {
						b.Fatal(err)
					}
					n.Path, n.Title = to, strings.TrimSuffix(path.Base(to), ".md")
				}
				writes = append(writes, time.Since(start))
				all[j] = names{strings.ToLower(n.Path), strings.ToLower(n.Title), strings.ToLower(strings.Join(n.Aliases, "\n"))}
				ask(queries[i%len(queries)])
			}
			b.ReportMetric(ms(percentile(index, 50)), "after-write-p50-ms")
			b.ReportMetric(ms(percentile(index, 99)), "after-write-p99-ms")
			b.ReportMetric(ms(percentile(writes, 50)), "write-p50-ms")
			b.ReportMetric(ms(first), "first-ms")
			b.ReportMetric(float64(held)/(1<<20), "names-MiB")
		})
	}
}

// BenchmarkChurn is a vault's life in the index: 2,000 notes of four sections, then 10,000
// changes at random (edits that store a note's sections anew, deletions, renames), with
// searches running all along, against a fresh index of the notes as they end. It reports the
// size of the index file and the p50 of a search (by vectors, then by keywords), each as a
// ratio to the fresh index's, the largest size the index reached on the way, how often it
// compacted and how long that took, and the longest a search took while it did. The same
// churn without compaction shows what it saves.
func BenchmarkChurn(b *testing.B) {
	b.Run("compacting", func(b *testing.B) { benchmarkChurn(b, true) })
	b.Run("never-compacting", func(b *testing.B) { benchmarkChurn(b, false) })
}

func benchmarkChurn(b *testing.B, compact bool) {
	notes, changes := 2000, 10000
	if testing.Short() {
		notes, changes = 500, 2500
	}
	for b.Loop() {
		r := rand.New(rand.NewPCG(11, 11))
		c := clusteredCorpus(r, notes, 4, benchEmbedder.Dimension)
		dir := b.TempDir()
		s, err := Open(b.Context(), filepath.Join(dir, "churned.db"), Config{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Reset(b.Context(), benchEmbedder); err != nil {
			b.Fatal(err)
		}
		compaction := s.KeepCompact()
		if !compact {
			compaction.retryAt.Store(math.MaxInt64) // as if every compaction had failed
		}
		c.put(b, s)
		queries := make([][]float32, 200)
		words := make([]string, len(queries))
		for i := range queries {
			queries[i] = c.query(r)
			words[i] = fmt.Sprintf("%s %s", wordName(100+r.Uint64N(900)), wordName(5000+r.Uint64N(vocabulary-5000)))
		}
		search := func(s *Store, i int) time.Duration {
			start := time.Now()
			if _, err := s.SearchNotes(b.Context(), queries[i%len(queries)], Options{K: 20}); err != nil {
				b.Fatal(err)
			}
			if _, _, err := s.KeywordNotes(b.Context(), words[i%len(words)], Options{K: 20}); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}

		// Searches run beside the changes; each is kept with its interval.
		type span struct{ start, end time.Time }
		var searches []span
		done := make(chan struct{})
		var searching sync.WaitGroup
		searching.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				start := time.Now()
				search(s, i)
				searches = append(searches, span{start, time.Now()})
			}
		})
		var compactions []span
		var peak int64
		_, lastDead, _ := s.Slots(b.Context())
		changed := 0
		final := churn(b, s, r, c, changes, func(took time.Duration) {
			changed++
			_, dead, err := s.Slots(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if dead < lastDead {
				end := time.Now()
				compactions = append(compactions, span{end.Add(-took), end})
			}
			lastDead = dead
			if changed%100 == 0 {
				peak = max(peak, fileSize(b, s))
			}
		})
		close(done)
		searching.Wait()
		if err := compaction.Err(); err != nil {
			b.Fatalf("a compaction failed: %v", err)
		}

		var stall time.Duration
		var longest time.Duration
		for _, sp := range searches {
			for _, cp := range compactions {
				if sp.start.Before(cp.end) && sp.end.After(cp.start) {
					stall = max(stall, sp.end.Sub(sp.start))
				}
			}
		}
		for _, cp := range compactions {
			longest = max(longest, cp.end.Sub(cp.start))
		}

		// The write-ahead log as the churn left it: searches that never pause would keep
		// SQLite from ever starting it again from the top.
		if wal, err := os.Stat(s.Path() + "-wal"); err == nil {
			b.ReportMetric(float64(wal.Size())/(1<<20), "wal-MiB")
		}

		// Both indexes as a restarted server finds them: closed, opened, searched.
		s.Close()
		fresh := freshIndex(b, filepath.Join(dir, "fresh.db"), benchEmbedder, final)
		fresh.Close()
		var sizes [2]int64
		var p50s [2]time.Duration
		for i, name := range []string{"churned.db", "fresh.db"} {
			info, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				b.Fatal(err)
			}
			sizes[i] = info.Size()
			s, err := Open(b.Context(), filepath.Join(dir, name), Config{})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.CheckEmbedder(b.Context(), benchEmbedder); err != nil {
				b.Fatal(err)
			}
			search(s, 0) // loads the signs
			var latencies []time.Duration
			for q := range len(queries) {
				latencies = append(latencies, search(s, q))
			}
			p50s[i] = percentile(latencies, 50)
			s.Close()
		}
		b.ReportMetric(float64(sizes[0])/float64(sizes[1]), "x-size-fresh")
		b.ReportMetric(float64(peak)/float64(sizes[1]), "x-peak-size-fresh")
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		b.ReportMetric(float64(sizes[0])/(1<<20), "index-MiB")
		b.ReportMetric(float64(sizes[1])/(1<<20), "fresh-MiB")
		b.ReportMetric(float64(p50s[0])/float64(p50s[1]), "x-search-fresh")
		b.ReportMetric(ms(p50s[0]), "search-p50-ms")
		b.ReportMetric(ms(p50s[1]), "fresh-search-p50-ms")
		b.ReportMetric(float64(len(compactions)), "compactions")
		b.ReportMetric(ms(longest), "compact-ms")
		b.ReportMetric(ms(stall), "stall-ms")
	}
}

// fileSize is the index's size as the database sees it: its pages, those still in the
// write-ahead log included.
func fileSize(tb testing.TB, s *Store) int64 {
	var pages, size int64
	err := s.db.QueryRowContext(context.Background(), `SELECT * FROM pragma_page_count, pragma_page_size`).Scan(&pages, &size)
	if err != nil {
		tb.Fatal(err)
	}
	return pages * size
}
