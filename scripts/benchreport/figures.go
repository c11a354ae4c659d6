package main

import (
	"fmt"
	"strconv"
)

// The report's figures: which benchmark result each comes from, which metric is the figure and
// which its lower bound, and the target where the project set one. The benchmarks measure the
// bound in the same run as the figure, so the ratio holds on any machine even when the
// absolute times do not.

// metric picks one value of a result and says how to show it.
type metric struct {
	Unit  string  // as the benchmark reports it: "ns/op", "catch-up-ms"
	Scale float64 // multiplies the value for display; 0 means 1
	Label string  // the unit shown: "ms"
}

// figure is one row of the report.
type figure struct {
	What  string
	Bench string // the result's name, without the -GOMAXPROCS suffix
	Value metric
	// Extra is shown beside the value, such as p99 beside p50, named by ExtraWhat.
	Extra     metric
	ExtraWhat string
	// Bound is the lower bound, from the same result, or from BoundBench when it is set.
	Bound      metric
	BoundBench string
	BoundWhat  string
	// Ratio is the metric that holds the ratio to the bound; "" computes value / bound.
	Ratio string
	// Target is the goal, as text; MaxRatio or MaxValue (in displayed units) is how it is
	// checked. Miss says why a missed target is missed and what would close the gap.
	Target   string
	MaySkip  bool // the benchmark needs ../shared/vaults, which may be absent
	Long     bool // the benchmark does not run with -short
	MaxRatio float64
	MaxValue float64
	MinValue float64 // for a figure where more is better, such as recall
	Miss     string
}

type section struct {
	Title string
	Intro string
	Rows  []figure
	Chart *chart
}

var (
	ms = func(unit string) metric { return metric{Unit: unit, Label: "ms"} }
	s  = func(unit string) metric { return metric{Unit: unit, Label: "s"} }
)

var sections = []section{
	{
		Title: "Parsing",
		Intro: "Notes into sections, links and tags (`shared/markdown`), against reading the same bytes from a warm file cache.",
		Rows: []figure{
			{What: "generated vault, 10,000 notes", Bench: "BenchmarkParse/generated-10k",
				Value: metric{Unit: "parse-MB/s", Label: "MB/s"}, Bound: metric{Unit: "read-MB/s", Label: "MB/s"}, BoundWhat: "reading", Ratio: "x-bound"},
			{What: "the real vaults in ../shared/vaults", Bench: "BenchmarkParse/real-vaults", MaySkip: true,
				Value: metric{Unit: "parse-MB/s", Label: "MB/s"}, Bound: metric{Unit: "read-MB/s", Label: "MB/s"}, BoundWhat: "reading", Ratio: "x-bound"},
		},
	},
	{
		Title: "Indexing",
		Intro: "Step 10 indexing a generated vault of 1,000 notes into an empty index, through the real Ollama client and the stand-in, against embedding the same sections alone (the time the model needs whatever the server does). The server's own clock, from its log: process start and opening the database are not counted.",
		Rows: []figure{
			{What: "stand-in without latency", Bench: "BenchmarkIndexing/zero-latency",
				Value: s("index-s"), Bound: s("embed-bound-s"), BoundWhat: "embedding alone", Ratio: "x-bound",
				Target: "≤ 1.5×", MaxRatio: 1.5,
				Miss: "Without latency the stand-in answers in well under a millisecond a section, and the server's own work is what is left: writing each section to SQLite, which runs in WebAssembly (its row, its vector, its signs in vec0, its words in FTS5), and every note's links. The rest (reading and parsing the notes, once for their links and once for their sections, working out the words, deflating the texts, quantizing the vectors, decoding the model's answers) runs on other goroutines beside the writer, so the writer's time in SQLite is what sets the pace. Closing the gap to 1.5× would take a database write several times cheaper than SQLite in WebAssembly gives here (a native SQLite through cgo, which this project gives up to build without a C compiler), or fewer indexes to keep: no keyword index, no link graph."},
			{What: "stand-in with 5 ms a request and 1 ms an input", Bench: "BenchmarkIndexing/simulated-latency",
				Value: s("index-s"), Bound: s("embed-bound-s"), BoundWhat: "embedding alone", Ratio: "x-bound",
				Target: "≤ 1.05×", MaxRatio: 1.05,
				Miss: "One goroutine writes the index: the batches of notes embedded by the time it is free, in one transaction, and the notes' links whenever it waits. A batch gives up its place as the writer takes it, so the model embeds the next two while one is written. What is left: the server's own work (parsing, the keyword index's words, deflating, SQLite in WebAssembly) shares the two cores with the stand-in and with decoding the model's answers, so each answer is read later than in the bound, which has the machine to itself; batches are written in order, so a note of over a thousand sections (the generated vault has one) holds back the batches embedded after it until it is written; and the last batch's writes, which nothing hides. A cheaper write would close most of it (see the row above); a slower model, as Ollama on a CPU is, leaves the writer time to spare."},
			{What: "one request per section (the original tutorial's way), per section", Bench: "BenchmarkIndexing/one-per-section",
				Value: ms("per-section-ms"), Bound: ms("batched-per-section-ms"), BoundWhat: "batches of 32, two in flight (ours)", Ratio: "x-batched"},
		},
	},
	{
		Title: "Search",
		Intro: "k = 20 nearest sections among 768-dimension vectors gathered around topics of about 100 sections, as a model's are: the sections' signs (kept in sqlite-vec's vec0 table, compared in memory), then the stored vectors of the best candidates (a signed byte a number and a scale), read from the index file, against a brute-force scan of the model's float32 vectors in memory. Recall: the share of the 20 nearest by the float32 vectors that the search returns. Hybrid: the 20 best notes by keywords (FTS5, three-word queries of a common, a middling and a rare word over Zipf-distributed text) and by vectors, asked at once as step 6 does, against the vectors alone. Query embedding not included.",
		Rows: []figure{
			searchRow("1,000 sections", "sections=1000", 0, false),
			searchRow("10,000 sections", "sections=10000", 5, false),
			searchRow("50,000 sections", "sections=50000", 15, true),
			{What: "recall at 50,000 sections", Bench: "BenchmarkSearch/sections=50000/unfiltered", Long: true,
				Value: metric{Unit: "recall", Label: ""}, Target: "≥ 0.95", MinValue: 0.95,
				Miss: "The signs leave out some of the nearest sections. More candidates (candidatesPerHit, minCandidates in shared/store/search.go) buy recall with time."},
			hybridRow("hybrid, 10,000 sections", "sections=10000", false),
			hybridRow("hybrid, 50,000 sections", "sections=50000", true),
		},
		Chart: &chart{File: "search-latency.svg", Title: "Search latency (k = 20, 768 dimensions)", X: "sections", Y: "ms",
			Bench: "BenchmarkSearch/sections=%d/unfiltered", Sizes: []int{1000, 10000, 50000},
			Lines: []chartLine{{"index p50", "p50-ms"}, {"index p99", "p99-ms"}, {"scan p50 (bound)", "scan-p50-ms"}}},
	},
	{
		Title: "The index over months",
		Intro: "A vault's life in the index (`shared/store`): 2,000 notes of four sections, then 10,000 changes at random (seven in ten edits, each storing a note's sections anew; deletions; renames) with searches running throughout, against a fresh index of the notes as they end. sqlite-vec reuses a deleted vector's slot only in its newest chunk, and SQLite's tables keep the space deletions leave: the index gives empty pages back to the file system once more than 64 wait, and compacts itself when a quarter of the vector slots are dead. Sizes are the file after closing; the largest is sampled every 100 changes. Search: a vector search and a keyword search of 20 notes each, after a restart. The same churn never compacting shows what compaction saves.",
		Rows: []figure{
			{What: "index file after 10,000 changes", Bench: "BenchmarkChurn/compacting",
				Value: metric{Unit: "index-MiB", Label: "MiB"}, Bound: metric{Unit: "fresh-MiB", Label: "MiB"}, BoundWhat: "fresh index", Ratio: "x-size-fresh",
				Target: "≤ 1.3×", MaxRatio: 1.3,
				Miss: "Compaction runs when a quarter of the vector slots are dead (store.MinLiveShare): the file grows by a few KB for each dead slot until then. A ratio above 1.3 means the waste per dead slot grew, or compaction failed (index_status says why)."},
			{What: "index file at its largest on the way", Bench: "BenchmarkChurn/compacting",
				Value: metric{Unit: "peak-MiB", Label: "MiB"}, Bound: metric{Unit: "fresh-MiB", Label: "MiB"}, BoundWhat: "fresh index", Ratio: "x-peak-size-fresh",
				Target: "≤ 1.3×", MaxRatio: 1.3,
				Miss: "The largest size comes just before a compaction; store.MinLiveShare decides it. With vectors of a byte a number, a quarter of what they were, the waste that compaction clears (keyword segments that still hold deleted sections, the signs' dead slots, part-empty pages) is a larger share of a smaller file."},
			{What: "search p50 after 10,000 changes", Bench: "BenchmarkChurn/compacting",
				Value: ms("search-p50-ms"), Bound: ms("fresh-search-p50-ms"), BoundWhat: "fresh index", Ratio: "x-search-fresh",
				Target: "≤ 1.3×", MaxRatio: 1.3,
				Miss: "Search compares the signs in memory, then reads a few hundred rows from the file: a slower search means those rows are spread over more pages than in a fresh file, which compaction undoes."},
			{What: "longest compaction", Bench: "BenchmarkChurn/compacting",
				Value: ms("compact-ms"), Extra: ms("stall-ms"), ExtraWhat: "longest search meanwhile"},
			{What: "write-ahead log after the churn", Bench: "BenchmarkChurn/compacting",
				Value: metric{Unit: "wal-MiB", Label: "MiB"}},
			{What: "never compacting: index file after 10,000 changes", Bench: "BenchmarkChurn/never-compacting",
				Value: metric{Unit: "index-MiB", Label: "MiB"}, Bound: metric{Unit: "fresh-MiB", Label: "MiB"}, BoundWhat: "fresh index", Ratio: "x-size-fresh"},
			{What: "never compacting: search p50", Bench: "BenchmarkChurn/never-compacting",
				Value: ms("search-p50-ms"), Bound: ms("fresh-search-p50-ms"), BoundWhat: "fresh index", Ratio: "x-search-fresh"},
		},
	},
	{
		Title: "Completions",
		Intro: "`completion/complete` for the note template's path (`store.CompleteNotes`): three to six letters of a name or a folder, completed to at most 100 note paths, best first, in an index of generated notes two folders deep, a tenth of them with an alias; against the same search over the same names held in memory as Go strings, the least a scan can cost. The index answers from the notes' names in memory, read at the first completion and changed by each write as it commits: completions one after another; each right after a write (an edit of a note's aliases or a rename, in turn); the SQL query that states the rules and answered before, reading every note's row at every keystroke; and the first completion after start, which reads the names from SQLite once.",
		Rows: []figure{
			completeRow("10,000 notes", "notes=10000", "p50-ms", "p99-ms", false),
			completeRow("50,000 notes", "notes=50000", "p50-ms", "p99-ms", true),
			completeRow("50,000 notes, each right after a write", "notes=50000", "after-write-p50-ms", "after-write-p99-ms", true),
			{What: "50,000 notes, the same answers from the SQL query alone", Bench: "BenchmarkCompleteNotes/notes=50000", Long: true,
				Value: ms("query-p50-ms"), Bound: ms("scan-p50-ms"), BoundWhat: "scan in memory, p50"},
			{What: "50,000 notes, the first after start, which reads the names", Bench: "BenchmarkCompleteNotes/notes=50000", Long: true,
				Value: ms("first-ms"), Extra: metric{Unit: "names-MiB", Label: "MiB"}, ExtraWhat: "the names in memory"},
		},
	},
	{
		Title: "Restart: catching up with the vault",
		Intro: "Step 10 restarted over a generated vault of 10,000 notes it indexed before. The server's own clock, from its log.",
		Rows: []figure{
			{What: "nothing changed: until search and backlinks answer from a complete index", Bench: "BenchmarkReconcile/unchanged",
				Value: ms("catch-up-ms"), Bound: ms("stat-bound-ms"), BoundWhat: "walking the vault and stat-ing every note", Ratio: "x-bound",
				Target: "≤ 3×", MaxRatio: 3,
				Miss: "Besides the walk, the comparison reads every note's row from the index and compares the link graph with the index in two queries, both beside the walk, and sorts the paths that differ. On a machine too busy to give the three a core each, they run in turn. A walk that hands each folder's entries to the comparison as it goes, instead of a map of the whole vault, would save most of the rest."},
			{What: "1% of the notes changed", Bench: "BenchmarkReconcile/1%-changed",
				Value: ms("catch-up-ms"), Bound: ms("embed-bound-ms"), BoundWhat: "embedding that 1% alone (5 ms a request, 1 ms an input)", Ratio: "x-bound",
				Miss: "On top of the embedding: the comparison of the whole vault (the first row), reading the changed notes, and the writes of the last batch, which no embedding follows to hide them."},
		},
	},
	{
		Title: "Watching",
		Intro: "From a write on disk to the change coming out of the watcher (a 20 ms debounce window in the benchmark), and from a save to the note being searchable in step 10's server (offline embedder, whose work takes microseconds; beyond the 500 ms window).",
		Rows: []figure{
			{What: "write to change, beyond the debounce window", Bench: "BenchmarkLatency/watcher",
				Value: metric{Unit: "ns/change", Scale: 1e-6, Label: "ms"}, Bound: metric{Unit: "ns/change", Scale: 1e-6, Label: "ms"},
				BoundBench: "BenchmarkLatency/fsnotify", BoundWhat: "the raw fsnotify event"},
			{What: "changes out of a burst of 50 writes to one note", Bench: "BenchmarkBurst",
				Value: metric{Unit: "changes/burst", Label: ""}},
			{What: "save to searchable, beyond the debounce window", Bench: "steps/10-reconcile.BenchmarkSaveToSearchable",
				Value: ms("ms-beyond-debounce")},
			{What: "save to searchable when polling (-watch poll, a small vault: every 2 s)", Bench: "steps/10-reconcile.BenchmarkSaveToSearchablePolling",
				Value: ms("save-to-searchable-ms")},
			pollRow("polling, 10,000 notes: one pass, and the share of a core", "notes=10000", false),
			pollRow("polling, 50,000 notes: one pass, and the share of a core", "notes=50000", true),
			pollSavesRow("polling, 10,000 notes, a note saved through a temporary file every second: the share of a core", "notes=10000", false),
			pollSavesRow("polling, 50,000 notes, a note saved through a temporary file every second: the share of a core", "notes=50000", true),
		},
	},
	{
		Title: "Start-up",
		Intro: "Step 10 on the sample vault, from exec to the first answered request. Cold: SQLite's WebAssembly is compiled (an empty cache, as on a machine's first run). Warm: the compiled code comes from the cache.",
		Rows: []figure{
			{What: "cold", Bench: "BenchmarkStartup/cold", Value: metric{Unit: "ns/op", Scale: 1e-6, Label: "ms"}, Extra: metric{Unit: "peak-MiB", Label: "MiB"}, ExtraWhat: "peak memory"},
			{What: "warm", Bench: "BenchmarkStartup/warm", Value: metric{Unit: "ns/op", Scale: 1e-6, Label: "ms"}, Extra: metric{Unit: "peak-MiB", Label: "MiB"}, ExtraWhat: "peak memory",
				Target: "< 300 ms", MaxValue: 300},
		},
	},
	{
		Title: "Memory",
		Intro: "Peak resident memory of step 10 indexing a generated vault from empty, through the stand-in, read from /proc (VmHWM) when the index is up to date; then of the server restarted over that index, answering forty searches and forty backlink lookups. While it catches up, the server holds a few batches of notes, and the paths of the notes still to index and the watcher's (about 150 bytes a note); it gives Go's collector a budget of 56 MiB, so that a note of a few megabytes, tens of megabytes for a moment, does not double the heap. SQLite (its page caches in WebAssembly) and the program's code are outside the budget, and fixed. Serving keeps the sections' signs, which search compares in memory once it has searched (96 bytes a section, and twice that before Go's collector runs), and the names of the folders a path is resolved in, 8,192 names at most; the link graph is kept in the index. Every result gives the counts of sections and links.",
		Rows: []figure{
			memoryRow("1,000 notes", 1000),
			memoryRow("10,000 notes", 10000),
			{What: "50,000 notes", Bench: "BenchmarkMemory/notes=50000", Long: true,
				Value: metric{Unit: "peak-MiB", Label: "MiB"}, Extra: s("index-s"), ExtraWhat: "indexed in",
				Target: "≤ 100 MiB", MaxValue: 100},
			{What: "50,000 notes, serving afterwards", Bench: "BenchmarkMemory/notes=50000", Long: true,
				Value: metric{Unit: "serving-MiB", Label: "MiB"}, Target: "≤ 150 MiB", MaxValue: 150},
			{What: "50,000 notes: peak memory per section", Bench: "BenchmarkMemory/notes=50000", Long: true,
				Value: metric{Unit: "peak-B/section", Label: "bytes"}, Extra: metric{Unit: "peak-B/link", Label: "bytes"}, ExtraWhat: "per link"},
			{What: "50,000 notes: index file per section", Bench: "BenchmarkMemory/notes=50000", Long: true,
				Value: metric{Unit: "index-B/section", Label: "bytes"}, Target: "≤ 4,533 bytes, the index before it held the link graph", MaxValue: 4533,
				Miss: indexSizeMiss},
			{What: "50,000 notes: index file per byte of Markdown", Bench: "BenchmarkMemory/notes=50000", Long: true,
				Value: metric{Unit: "index-B/markdown-B", Label: "bytes"}, Target: "≤ 4 bytes", MaxValue: 4,
				Miss: indexPerByteMiss},
			{What: "the real vaults in ../shared/vaults: index file per section", Bench: "BenchmarkIndexSize/real-vaults", MaySkip: true,
				Value: metric{Unit: "index-B/section", Label: "bytes"}, Extra: metric{Unit: "beyond-empty-B/section", Label: "bytes"}, ExtraWhat: "beyond empty indexes"},
			{What: "the real vaults: index file per byte of Markdown", Bench: "BenchmarkIndexSize/real-vaults", MaySkip: true,
				Value: metric{Unit: "index-B/markdown-B", Label: "bytes"}, Extra: metric{Unit: "beyond-empty-B/markdown-B", Label: "bytes"}, ExtraWhat: "beyond empty indexes",
				Target: "≤ 4 bytes", MaxValue: 4, Miss: indexPerByteMiss},
			{What: "the real vaults copied into one vault: index file per byte of Markdown", Bench: "BenchmarkIndexSize/real-vaults-as-one", MaySkip: true,
				Value: metric{Unit: "index-B/markdown-B", Label: "bytes"}, Extra: metric{Unit: "index-B/section", Label: "bytes"}, ExtraWhat: "per section",
				Target: "≤ 4 bytes", MaxValue: 4, Miss: indexPerByteMiss},
			{What: "the same, while the server runs: the database, its write-ahead log and the log's index", Bench: "BenchmarkIndexSize/real-vaults-as-one", MaySkip: true,
				Value: metric{Unit: "serving-index-B/markdown-B", Label: "bytes"}},
			{What: "the same, vectors cut to 512 numbers (-dimensions 512)", Bench: "BenchmarkIndexSize/real-vaults-as-one-dimensions=512", MaySkip: true,
				Value: metric{Unit: "index-B/markdown-B", Label: "bytes"}, Extra: metric{Unit: "index-B/section", Label: "bytes"}, ExtraWhat: "per section"},
			{What: "the same, vectors cut to 256 numbers (-dimensions 256)", Bench: "BenchmarkIndexSize/real-vaults-as-one-dimensions=256", MaySkip: true,
				Value: metric{Unit: "index-B/markdown-B", Label: "bytes"}, Extra: metric{Unit: "index-B/section", Label: "bytes"}, ExtraWhat: "per section"},
			{What: "the real vaults, per section: the vector, its signs", Bench: "BenchmarkIndexSize/real-vaults", MaySkip: true,
				Value: metric{Unit: "vectors-B/section", Label: "bytes"}, Extra: metric{Unit: "signs-B/section", Label: "bytes"}, ExtraWhat: "signs"},
			{What: "the real vaults, per section: the text, the keyword index", Bench: "BenchmarkIndexSize/real-vaults", MaySkip: true,
				Value: metric{Unit: "text-B/section", Label: "bytes"}, Extra: metric{Unit: "keywords-B/section", Label: "bytes"}, ExtraWhat: "keyword index"},
			{What: "the real vaults, per section: the links", Bench: "BenchmarkIndexSize/real-vaults", MaySkip: true,
				Value: metric{Unit: "links-B/section", Label: "bytes"}},
		},
		Chart: &chart{File: "memory.svg", Title: "Peak memory while indexing", X: "notes", Y: "MiB",
			Bench: "BenchmarkMemory/notes=%d", Sizes: []int{1000, 10000, 50000},
			Lines: []chartLine{{"peak RSS", "peak-MiB"}}, LinearY: true},
	},
	{
		Title: "What the tools cost a model",
		Intro: "Every step's `tools/list`, as compact JSON: the names, descriptions and schemas a client sends the model with every turn, in bytes and in tokens at about four bytes a token. `TestToolsListBudget` fails a step over 5,000 bytes; the transcripts pin every description and schema, so a change to one shows in `make diff N`.",
		Rows:  toolsRows("01-raw", "02-sdk", "03-parse", "04-embed", "05-store", "06-search", "07-backlinks", "08-watch", "09-safety", "10-reconcile"),
	},
	{
		Title: "A hostile call",
		Intro: "Step 10 answering a `create_note` call of 3.8 MB whose `tags` hold 1.9 million numbers (the schema allows 20 strings), once and then 16 at a time (as many as it serves at once), against its own resident memory when idle. mcp-go's own validation answered this call with 92 MB, one line per number, and took the server from 33 MiB to 1.2 GiB for one call and, for sixteen, to 19 GB. `jsonrpc.Strict` now refuses it before anything decodes it, and `toolargs` bounds every answer about arguments.",
		Rows: []figure{
			{What: "one call", Bench: "BenchmarkOversizedCall/at-once=1",
				Value: metric{Unit: "peak-MiB", Label: "MiB"}, Extra: metric{Unit: "answer-bytes", Label: "bytes"}, ExtraWhat: "answer",
				Bound: metric{Unit: "idle-MiB", Label: "MiB"}, BoundWhat: "idle", Ratio: "x-idle",
				Target: "≤ 2×", MaxRatio: 2,
				Miss: "The body itself is read whole (at most 4 MiB) before its values are counted; what else grew with it is a regression."},
			{What: "16 calls at once", Bench: "BenchmarkOversizedCall/at-once=16",
				Value: metric{Unit: "peak-MiB", Label: "MiB"}, Extra: metric{Unit: "answer-bytes", Label: "bytes"}, ExtraWhat: "answer",
				Bound: metric{Unit: "idle-MiB", Label: "MiB"}, BoundWhat: "idle", Ratio: "x-idle",
				Target: "≤ 10×", MaxRatio: 10,
				Miss: "Sixteen bodies of 3.8 MB are 61 MB before any work, and Go's collector lets the heap reach twice what is live; more than that is a regression."},
		},
	},
	{
		Title: "A string where a short one belongs",
		Intro: "Step 10 answering a message whose resource URI, id or method is 3.9 MB, 16 at a time (as many as it serves at once): the growth of its resident memory over idle, the slowest refusal, the longest answer, and how many ordinary requests sent from one second into the flood on were refused as busy. mcp-go matched such a URI against the template's regular expression before any check, seconds of CPU each, and echoed such an id or method whole. `jsonrpc.Strict` now refuses each before mcp-go sees it, quoting only its start, and reads the body the wall has read rather than a copy.",
		Rows: []figure{
			oversizedRow("uri", "memory"), oversizedRow("id", "memory"), oversizedRow("method", "memory"),
			oversizedRow("uri", "time"), oversizedRow("id", "time"), oversizedRow("method", "time"),
			oversizedRow("id", "answer"), oversizedRow("uri", "busy"),
		},
	},
	{
		Title: "The cost of one note",
		Intro: "Step 10 indexing a vault of one note, from empty, through the stand-in: its peak resident memory and the index's size beyond those of an empty note, per byte of note, at 8 MiB (the largest note it reads) against 1 MiB. A cost that grows linearly gives a ratio near 1; one that grows with the square of the note, as a long heading once did, would give 8. The shapes are those that once cost more than their size: a heading half the note long (stored with every chunk: 248 bytes of index per byte at 1 MiB, 489 at 2 MiB), six-byte sections (a vector each: 1.2 GiB of memory and 525 MiB of index for 1 MiB), and for comparison one long line and plain paragraphs.",
		Rows: []figure{
			shapeRow("a heading half the note long", "long-heading", "memory"),
			shapeRow("a heading half the note long", "long-heading", "index"),
			shapeRow("six-byte sections", "tiny-sections", "memory"),
			shapeRow("six-byte sections", "tiny-sections", "index"),
			shapeRow("one line", "long-line", "memory"),
			shapeRow("one line", "long-line", "index"),
			shapeRow("plain paragraphs", "plain", "memory"),
			shapeRow("plain paragraphs", "plain", "index"),
		},
	},
}

// oversizedRow is one figure of BenchmarkOversizedString for one kind of string, sixteen at
// once: the memory it took, the slowest refusal, the longest answer, or the busy answers.
func oversizedRow(what, figureOf string) figure {
	f := figure{Bench: "BenchmarkOversizedString/string=" + what + "/at-once=16"}
	switch figureOf {
	case "memory":
		f.What, f.Value, f.Target, f.MaxValue = "16 with a 3.9 MB "+what+": memory", metric{Unit: "growth-MiB", Label: "MiB more than idle"}, "≤ 96 MiB", 96
		f.Miss = "Sixteen bodies of 3.9 MB are 62 MB, held once while they are read; more is a copy too many."
	case "time":
		f.What, f.Value, f.Target, f.MaxValue = "16 with a 3.9 MB "+what+": slowest refusal", s("slowest-s"), "< 1 s", 1
		f.Miss = "Each refusal reads the body and scans it a few times, without decoding it; a slower one decodes something."
	case "answer":
		f.What, f.Value, f.Target, f.MaxValue = "16 with a 3.9 MB "+what+": longest answer", metric{Unit: "answer-bytes", Label: "bytes"}, "≤ 64 KiB", 64<<10
		f.Miss = "An answer that long echoes the string."
	case "busy":
		f.What, f.Value, f.Target, f.MaxValue = "16 with a 3.9 MB "+what+": busy answers to others after 1 s", metric{Unit: "busy-after-1s", Label: "answers"}, "none", 0.5
		f.Miss = "The flood holds the slots past a second: a refusal takes too long."
	}
	return f
}

// shapeRow is the cost per byte of a note of one shape at 8 MiB, against 1 MiB: of memory
// ("memory") or of index ("index").
func shapeRow(what, shape, cost string) figure {
	largest := "BenchmarkNoteShapes/" + shape + "/size=8192KiB"
	total := map[string]metric{"memory": {Unit: "peak-MiB", Label: "MiB"}, "index": {Unit: "index-MiB", Label: "MiB"}}[cost]
	return figure{What: what + ": " + cost + " per byte", Bench: largest, Long: true,
		Value: metric{Unit: cost + "-B/B", Label: "bytes"}, Extra: total, ExtraWhat: "in all",
		Bound: metric{Unit: cost + "-B/B", Label: "bytes"}, BoundBench: "BenchmarkNoteShapes/" + shape + "/size=1024KiB", BoundWhat: "at 1 MiB",
		Ratio: "x-smallest-" + cost, Target: "≤ 1.5×", MaxRatio: 1.5,
		Miss: "A cost per byte that grows with the note: something stored or held for each part of a note grows with another part. BenchmarkNoteShapes at the sizes between shows where it starts."}
}

// searchRow is a search's p50 against the scan's, with a target of maxMS when it is not 0.
func searchRow(what, size string, maxMS float64, long bool) figure {
	f := figure{What: what, Bench: "BenchmarkSearch/" + size + "/unfiltered", Long: long,
		Value: ms("p50-ms"), Extra: ms("p99-ms"), ExtraWhat: "p99", Bound: ms("scan-p50-ms"), BoundWhat: "scan in memory, p50", Ratio: "x-bound"}
	if maxMS > 0 {
		f.Target, f.MaxValue = fmt.Sprintf("p50 ≤ %g ms", maxMS), maxMS
		f.Miss = "A search compares the signs of every section in memory (about a millisecond at 50,000 sections), then reads the stored vectors of a few hundred candidates from the index file. A miss means one of the two grew: more candidates per hit (candidatesPerHit, minCandidates in shared/store/search.go), a cold page cache, or a machine too busy to give the search a core."
	}
	return f
}

// hybridRow is step 6's search: the keyword leg and the vector leg at once, 20 notes each,
// against the vector leg alone.
func hybridRow(what, size string, long bool) figure {
	return figure{What: what, Bench: "BenchmarkSearch/" + size + "/hybrid", Long: long,
		Value: ms("hybrid-p50-ms"), Extra: ms("keyword-p50-ms"), ExtraWhat: "keyword leg alone",
		Bound: ms("vector-p50-ms"), BoundWhat: "vectors alone, p50", Ratio: "x-vector",
		Target: "≤ 1.10×", MaxRatio: 1.10,
		Miss: "The keyword leg runs beside the vector leg and is the shorter of the two: it reads the ids FTS5 ranks best, then judges their sections, best first, only until it has its notes. A ratio above 1.10 means it no longer hides behind it: on a machine too busy to give each leg a core they run in turn, and the keyword leg's time adds to the vectors'; or queries whose words are in most sections."}
}

// completeRow is a completion's p50 (and p99), in the metrics named, against the scan's in
// memory. A person types a key every 100 ms or more, so the answer to one key should come
// before the next.
func completeRow(what, size, p50, p99 string, long bool) figure {
	f := figure{What: what, Bench: "BenchmarkCompleteNotes/" + size, Long: long,
		Value: ms(p50), Extra: ms(p99), ExtraWhat: "p99", Bound: ms("scan-p50-ms"), BoundWhat: "scan in memory, p50",
		Target: "p50 ≤ 100 ms, a keystroke", MaxValue: 100,
		Miss: "A completion is a pass over the names in memory, and holds them only as long as it reads; a write changes them after its commit, a look along memory for each note it edits, removes or renames. A miss means a machine too busy to give the completion a core, or names that fell out of memory: the first completion after start, or after a reset, reads them all again."}
	if p50 == "p50-ms" {
		f.Ratio = "x-bound"
	}
	return f
}

// pollRow is one full polling pass (walk the vault, stat every note) and the share of one core
// that polling takes at the intervals the Watcher chooses from the passes' own times.
func pollRow(what, size string, long bool) figure {
	return figure{What: what, Bench: "BenchmarkPollPass/" + size, Long: long,
		Value: metric{Unit: "core-%", Label: "%"}, Extra: ms("pass-ms"), ExtraWhat: "a full pass",
		Target: "≤ 0.5% of a core", MaxValue: 0.5,
		Miss: "Each kind of pass waits a multiple of the time it last took (250 for a full pass, 1,000 for a quick one), which comes to 0.5% of a core while passes take as long as the one before them. Above it, passes kept taking longer than the last: a machine busy with other work, or a file cache being emptied."}
}

// pollSavesRow is the share of one core a polling Watcher takes while a note is saved every
// second through a temporary file, in another folder each time: every save changes a folder's
// time, and each costs a pass over that folder.
func pollSavesRow(what, size string, long bool) figure {
	return figure{What: what, Bench: "BenchmarkPollSaves/" + size, Long: long,
		Value: metric{Unit: "core-%", Label: "%"}, Extra: s("every-s"), ExtraWhat: "between full passes",
		Target: "≤ 1% of a core", MaxValue: 1,
		Miss: "Full passes take 0.4% of a core, folder passes at most as much again, quick passes 0.1%. Above 1%, the machine was busy with other work while the benchmark measured the process's own CPU time, or folder passes cost more than a folder's listing (a vault of one huge folder)."}
}

// toolsRows is one row a step: what its tools/list weighs, against the budget.
func toolsRows(steps ...string) []figure {
	var rows []figure
	for _, step := range steps {
		rows = append(rows, figure{What: step, Bench: "BenchmarkToolsList/" + step,
			Value: metric{Unit: "bytes", Label: "bytes"}, Extra: metric{Unit: "tokens", Label: "tokens"}, ExtraWhat: "about",
			Target: "≤ 5,000 bytes", MaxValue: 5000,
			Miss: "A description, a schema or a tool was added; TestToolsListBudget fails with it."})
	}
	return rows
}

func memoryRow(what string, notes int) figure {
	return figure{What: what, Bench: "BenchmarkMemory/notes=" + itoa(notes), Long: notes > 1000,
		Value: metric{Unit: "peak-MiB", Label: "MiB"}, Extra: s("index-s"), ExtraWhat: "indexed in"}
}

func itoa(n int) string { return strconv.Itoa(n) }

// indexSizeMiss says where an index's bytes go, and what would bring them down.
const indexSizeMiss = "Per section the index holds the vector (a byte a number and one scale), its signs in vec0, the section's text deflated, its words in the keyword index and the links written in it, each with its line: the rows for the real vaults below give each part. The links and their lines are what this index holds that the one before did not. Keeping each link's line number rather than its line, and reading the line from the note when get_backlinks asks, would save most of them."

// indexPerByteMiss says why the index can be more than four times the Markdown it indexes.
const indexPerByteMiss = "Every section has a vector of 768 numbers of a byte each, however short the section: in vaults of short sections, as the real vaults are (a few hundred bytes of Markdown a section; the rows below), the vector alone is about two bytes a byte of Markdown, and the text, the keyword index and the links add the rest. An index also starts at the size of an empty one, which small vaults pay once each. Fewer bits a number would close it too, but not for free: kept in 4 bits a number, or in 7, the vectors moved make eval's figures by more than the 0.005 the index may cost search (the offline embedder's sparse vectors most), so each number keeps its byte. Shorter vectors would close the gap: nomic-embed-text is trained so that its vectors may be cut to their first 512 or 256 numbers, two thirds or a third of the bytes, at a cost in recall that make eval would have to measure; the index keeps every number the model gives."
