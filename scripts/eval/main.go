// Command eval measures how well search finds the right notes: it runs labelled query sets
// through search_vault and reports nDCG@5, nDCG@10, MRR, Hit@1 and Recall@10, for each set,
// embedder and ranking leg, for the part of each set that search may be tuned on and for the
// part kept aside, with a summary table per set and a table per category of query.
//
//	go run ./scripts/eval                            # print the tables
//	go run ./scripts/eval -write BENCHMARKS.md       # make eval: and put them in BENCHMARKS.md
//	go run ./scripts/eval -embedder offline -v       # one embedder, and each tuning query's results
//	go run ./scripts/eval -json before.json          # keep every query's results ...
//	go run ./scripts/eval -compare before.json       # ... and, after a change, see which moved
//
// Beside each set's tables it shows those of a run kept from before a change (-before): by
// default the ranking before the changes of 2026-12-03, in testdata/before-ranking.json.gz,
// which -compare also reads, to list the tuning queries those changes moved.
//
// It measures what a user gets: it builds a step (the last one unless -step says another),
// starts it over a copy of each vault as a user would, waits until the index holds the whole
// vault, and asks search_vault over MCP with the official Go SDK's client. Whatever changes
// inside the step, in its search code or in the shared packages it uses, changes the figures.
//
// The embedders: offline, the step's own lexical vectors; use-lite, a real sentence encoder
// (Universal Sentence Encoder lite, run by the Node stand-in in scripts/use-standin) reached
// through the real Ollama client, as nomic-embed-text would be; and, when asked for, ollama,
// the Ollama client against the Go stand-in (shared/ollamatest), whose vectors hash words as
// the offline embedder does: a check of that code path without npm, not of a model.
//
// A run keeps each index between runs in the cache folder (-cache), one per step, embedder
// and vault, and the USE-lite stand-in keeps every vector it made: a run over unchanged notes
// with an unchanged step embeds nothing. An index built by another build of the step is built
// again (from the stand-in's cached vectors), so that a change to indexing is never measured
// on an index the old code wrote.
//
// Vaults under ../shared/vaults are skipped, saying how to fetch them, when they are absent;
// the sample vault and the multilingual test vault in testdata/ always run. A set file that is
// absent is skipped, saying so.
package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vaultmcp/scripts/mdsection"
	"vaultmcp/scripts/transcript"
	usestandin "vaultmcp/scripts/use-standin"
	"vaultmcp/shared/ollamatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

// A leg is one way of ranking that search_vault can be started with (its -rank), measured as
// its own set of columns: each leg alone, and hybrid, the ranking users get. The legs of a
// vault share its index: a leg chooses how to rank, not what to store.
type leg struct {
	Name string
	Env  []string // added to the server's environment
	Args []string // added to the server's command line
}

var legs = []leg{
	{Name: "keyword", Env: []string{"VAULTMCP_RANK=keyword"}},
	{Name: "vector", Env: []string{"VAULTMCP_RANK=vector"}},
	{Name: "hybrid", Env: []string{"VAULTMCP_RANK=hybrid"}},
}

// An embedder is one way of making vectors: its name in the report and what selects it.
type embedder struct {
	Name  string
	About string   // names it in the tables' titles
	Env   []string // added to the server's environment; OLLAMA_HOST is added once a stand-in runs
}

var embedders = []embedder{
	{Name: "offline", About: "the offline embedder", Env: []string{"VAULTMCP_EMBEDDER=offline"}},
	{Name: "use-lite", About: "USE-lite, a real model, through the Ollama client",
		Env: []string{"VAULTMCP_EMBEDDER=ollama", "VAULTMCP_MODEL=" + usestandin.Model}},
	{Name: "ollama", About: "the Ollama client and the lexical Ollama stand-in", Env: []string{"VAULTMCP_EMBEDDER=ollama"}},
}

// defaultEmbedders are the ones make eval runs, and that -write needs.
const defaultEmbedders = "offline,use-lite"

// defaultSets are the labelled sets make eval reads, relative to the repository root: the
// first written from the notes, the second written blind, from titles and topics only.
var defaultSets = []string{"scripts/eval/queries.json", "scripts/eval/queries-blind.json"}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	which := flags.String("embedder", defaultEmbedders, "comma-separated: offline, use-lite (a real model, through the Ollama client), ollama (the Ollama client and the lexical stand-in), or all")
	stepNumber := flags.Int("step", 0, "the step to measure, from 4 (default the last)")
	setFiles := flags.String("set", strings.Join(defaultSets, ","), "comma-separated labelled query sets; a file that is absent is skipped")
	onlyVaults := flags.String("vault", "", "comma-separated vault names to measure (default all)")
	cacheFlag := flags.String("cache", "", "keep indexes and USE-lite's vectors in this `folder` between runs (default vaultmcp in your cache folder); \"off\" keeps nothing, for a cold run")
	write := flags.String("write", "", "also put the tables in this Markdown `file`, in its search-quality section (only after a run of every vault and default embedder on the last step)")
	markdown := flags.Bool("markdown", false, "print the tables as Markdown")
	verbose := flags.Bool("v", false, "list each query of the tuning parts with what search returned (never the held-out parts), and the hub notes")
	jsonFile := flags.String("json", "", "write every query's results and scores to this `file`, for -compare")
	compareFile := flags.String("compare", "", "compare each query's results with those of a `file` written by -json, and list what got better or worse")
	beforeFlag := flags.String("before", defaultBefore, "show the summary of a run kept from before a change, a `file` written by -json (.gz too), beside each set's; \"off\" for none")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q; the flags come first", flags.Args())
	}
	start := time.Now()
	root, err := transcript.Root()
	if err != nil {
		return err
	}

	chosen, err := chooseEmbedders(*which)
	if err != nil {
		return err
	}
	var files []string
	for _, f := range splitList(*setFiles) {
		if !filepath.IsAbs(f) {
			f = filepath.Join(root, f)
		}
		files = append(files, f)
	}
	suite, err := loadSuite(files, stderr)
	if err != nil {
		return err
	}
	var before *runFile
	if *compareFile != "" {
		if before, err = readRunFile(*compareFile); err != nil {
			return err
		}
	}
	var kept *runFile
	keptFile := *beforeFlag
	if keptFile != "off" && keptFile != "" {
		path := keptFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		switch kept, err = readRunFile(path); {
		case errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(stderr, "eval: no run to show beside this one: there is no file %s\n", path)
		case err != nil:
			return err
		}
	}

	steps, err := transcript.Steps(root)
	if err != nil {
		return err
	}
	step := steps[len(steps)-1]
	if *stepNumber != 0 {
		if step, err = transcript.FindStep(root, *stepNumber); err != nil {
			return err
		}
	}
	if step.Number < 4 {
		return fmt.Errorf("step %d has no search_vault; search starts at step 4", step.Number)
	}

	// The vaults that are here; for the others, say how to fetch them.
	var vaults, skipped []string
	wanted := splitList(*onlyVaults)
	for _, name := range wanted {
		if _, ok := suite.Vaults[name]; !ok {
			return fmt.Errorf("-vault %s: no set has a vault of that name; they are %s", name, strings.Join(suite.vaultNames(), ", "))
		}
	}
	for _, name := range suite.vaultNames() {
		if len(wanted) > 0 && !slices.Contains(wanted, name) {
			continue
		}
		if _, err := suite.vaultDir(root, name); err != nil {
			if suite.Vaults[name].Source == "" {
				return err
			}
			fmt.Fprintf(stderr, "eval: skipping the %d queries over %s: %v\n", suite.countQueries(name), name, err)
			skipped = append(skipped, name)
			continue
		}
		if err := suite.checkAnswers(root, name); err != nil {
			return fmt.Errorf("a query set does not match vault %s:\n%w", name, err)
		}
		vaults = append(vaults, name)
	}

	cacheDir, err := cacheFolder(*cacheFlag)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "vaultmcp-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(stderr, "eval: building steps/%s\n", step.Name)
	bin, err := transcript.Build(ctx, root, step, work)
	if err != nil {
		return err
	}
	build, err := fileHash(bin)
	if err != nil {
		return err
	}

	// Servers write into the vault they serve (from step 9, the inbox folder appears at
	// start-up), so each serves a copy: the vaults in ../shared are read-only, and the
	// repository's own stay as they are. The shape of each note says which are hubs.
	copies := map[string]string{}
	shapes := map[string]map[string]noteShape{}
	for _, name := range vaults {
		dir, _ := suite.vaultDir(root, name)
		copies[name] = filepath.Join(work, "vaults", name)
		if err := os.CopyFS(copies[name], os.DirFS(dir)); err != nil {
			return fmt.Errorf("copy vault %s: %w", name, err)
		}
		if shapes[name], err = readShapes(dir); err != nil {
			return fmt.Errorf("vault %s: %w", name, err)
		}
	}

	// The stand-ins, for the embedders that need one. Without node or the model's packages,
	// USE-lite is skipped and says how to install them.
	var missingEmbedders []string
	var standin *usestandin.Standin
	defer func() {
		if standin != nil {
			standin.Stop()
		}
	}()
	for i := 0; i < len(chosen); i++ {
		e := &chosen[i]
		switch e.Name {
		case "ollama":
			host, stop, err := startLexicalStandin()
			if err != nil {
				return err
			}
			defer stop()
			e.Env = append(slices.Clone(e.Env), "OLLAMA_HOST="+host)
		case "use-lite":
			if !takesModel(ctx, bin) {
				fmt.Fprintf(stderr, "eval: skipping use-lite: steps/%s has no -model flag (step 10 has)\n", step.Name)
				missingEmbedders = append(missingEmbedders, e.Name)
				chosen = slices.Delete(chosen, i, i+1)
				i--
				continue
			}
			if err := usestandin.Installed(root); err != nil {
				fmt.Fprintf(stderr, "eval: skipping use-lite: %v\n", err)
				missingEmbedders = append(missingEmbedders, e.Name)
				chosen = slices.Delete(chosen, i, i+1)
				i--
				continue
			}
			vectors := ""
			if cacheDir != "" {
				vectors = filepath.Join(cacheDir, "use-standin")
			}
			fmt.Fprintf(stderr, "eval: starting the USE-lite stand-in (vector cache: %s)\n", cmp.Or(vectors, "none"))
			if standin, err = usestandin.Start(ctx, root, usestandin.Options{CacheDir: vectors}); err != nil {
				return err
			}
			e.Env = append(slices.Clone(e.Env), "OLLAMA_HOST="+standin.Host())
		}
	}

	m := measurer{bin: bin, suite: suite, results: newResults(), log: stderr, standin: standin}
	for _, e := range chosen {
		for _, name := range vaults {
			db, fresh, err := indexFile(cacheDir, work, step.Name, e.Name, name, build)
			if err != nil {
				return err
			}
			if fresh && e.Name == "use-lite" {
				sections := 0
				for _, s := range shapes[name] {
					sections += s.Sections
				}
				fmt.Fprintf(stderr, "eval: use-lite: indexing %s, %d sections; the model embeds about 10 a second whatever its cache does not hold\n", name, sections)
			}
			// One index a vault and embedder, shared by the legs: the first start builds it
			// (or brings the cached one up to date), the next ones find it ready.
			for _, l := range legs {
				if err := m.measure(ctx, name, copies[name], db, e, l); err != nil {
					if standin != nil {
						err = fmt.Errorf("%w\nthe USE-lite stand-in's log ends:\n%s", err, tail(standin.Logs(), 20))
					}
					return fmt.Errorf("%s embedder, %s leg, vault %s: %w", e.Name, l.Name, name, err)
				}
			}
		}
	}

	rep := report{Step: step.Name, Embedders: chosen, Legs: legs, Suite: suite, Results: m.results, Vaults: vaults, Shapes: shapes, ModelEmbedded: -1,
		Before: kept, BeforeFile: keptFile}
	if standin != nil {
		standin.Stop()
		if embedded, cached, ok := standin.Counts(); ok {
			fmt.Fprintf(stderr, "eval: the USE-lite stand-in embedded %d texts with the model and took %d from its cache\n", embedded, cached)
			rep.ModelEmbedded = embedded
		}
	}
	if *markdown {
		io.WriteString(stdout, rep.Markdown())
	} else {
		io.WriteString(stdout, rep.Text())
	}
	if *verbose {
		io.WriteString(stdout, rep.Details())
	}
	runs := rep.Records()
	if *jsonFile != "" {
		if err := writeRunFile(*jsonFile, runs); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "eval: wrote every query's results to %s\n", *jsonFile)
	}
	if before != nil {
		io.WriteString(stdout, compare(before, runs, *compareFile))
	}
	took := time.Since(start).Round(time.Second)
	fmt.Fprintf(stderr, "eval: %d queries over %d vaults, %d embedders in %v\n", m.results.count(), len(vaults), len(chosen), took)

	if *write != "" {
		var why []string
		if len(skipped) > 0 {
			why = append(why, "vaults "+strings.Join(skipped, ", ")+" were skipped")
		}
		if len(wanted) > 0 {
			why = append(why, "-vault chose some vaults only")
		}
		for _, name := range splitList(defaultEmbedders) {
			if !slices.ContainsFunc(chosen, func(e embedder) bool { return e.Name == name }) {
				why = append(why, "embedder "+name+" did not run")
			}
		}
		if step.Number != steps[len(steps)-1].Number {
			why = append(why, "it measured step "+step.Name+", not the last step")
		}
		if len(why) > 0 {
			fmt.Fprintf(stderr, "eval: %s not updated: %s\n", *write, strings.Join(why, "; "))
			return nil
		}
		rep.Took = took
		rep.Date = time.Now().UTC().Format("2006-01-02")
		return writeSection(*write, rep.Section())
	}
	return nil
}

// chooseEmbedders reads -embedder.
func chooseEmbedders(list string) ([]embedder, error) {
	if list == "all" {
		return slices.Clone(embedders), nil
	}
	var chosen []embedder
	for _, name := range splitList(list) {
		i := slices.IndexFunc(embedders, func(e embedder) bool { return e.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown embedder %q: use offline, use-lite, ollama, a list of them, or all", name)
		}
		if !slices.ContainsFunc(chosen, func(e embedder) bool { return e.Name == name }) {
			chosen = append(chosen, embedders[i])
		}
	}
	if len(chosen) == 0 {
		return nil, errors.New("-embedder names no embedder")
	}
	return chosen, nil
}

func splitList(s string) []string {
	var list []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list
}

// cacheFolder returns the folder that keeps indexes and vectors between runs, or "" for none.
func cacheFolder(flagValue string) (string, error) {
	switch flagValue {
	case "off":
		return "", nil
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder (%v): pass -cache DIR, or -cache off", err)
		}
		return filepath.Join(dir, "vaultmcp"), nil
	}
	return filepath.Abs(flagValue)
}

// indexFile returns the index file of a vault and embedder, and whether it starts empty. In
// the cache, an index is kept with the hash of the step build that wrote it: another build
// starts from an empty index, since its code may index differently (the schema version only
// changes when someone remembers to change it). Without a cache, every index starts empty.
func indexFile(cacheDir, work, step, embedder, vault, build string) (db string, fresh bool, err error) {
	if cacheDir == "" {
		db = filepath.Join(work, "index", embedder, vault+".db")
		return db, true, os.MkdirAll(filepath.Dir(db), 0o755)
	}
	dir := filepath.Join(cacheDir, "eval-index", step, embedder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	db = filepath.Join(dir, vault+".db")
	stamp := filepath.Join(dir, vault+".build")
	if was, err := os.ReadFile(stamp); err == nil && string(was) == build {
		if _, err := os.Stat(db); err == nil {
			return db, false, nil
		}
	}
	// The index and whatever SQLite and the server keep beside it.
	matches, _ := filepath.Glob(db + "*")
	for _, f := range matches {
		if err := os.Remove(f); err != nil {
			return "", false, fmt.Errorf("cannot clear the cached index: %w", err)
		}
	}
	return db, true, os.WriteFile(stamp, []byte(build), 0o644)
}

func fileHash(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// takesModel reports whether the step binary has a -model flag, from its -h.
func takesModel(ctx context.Context, bin string) bool {
	out, _ := exec.CommandContext(ctx, bin, "-h").CombinedOutput()
	return strings.Contains(string(out), "-model")
}

// measurer runs queries through a step and keeps what search returned.
type measurer struct {
	bin     string // the step's binary
	suite   *suite
	results *results
	log     io.Writer
	standin *usestandin.Standin // USE-lite's stand-in, if it runs
}

// measure starts the server for one embedder and leg over the vault name, served from dir
// with its index in db, runs that vault's queries of every set and records what they returned.
func (m *measurer) measure(ctx context.Context, name, dir, db string, e embedder, l leg) error {
	start := time.Now()
	embeddedBefore := 0
	if e.Name == "use-lite" {
		embeddedBefore = m.standin.Embedded()
	}
	w := indexWatch{Progress: func(state string, done, total int, waited time.Duration) {
		fmt.Fprintf(m.log, "eval: %s %s: %s", e.Name, name, state)
		if total > 0 {
			fmt.Fprintf(m.log, ", %d of %d notes stored", done, total)
		}
		if e.Name == "use-lite" {
			fmt.Fprintf(m.log, ", %d texts embedded by the model", m.standin.Embedded()-embeddedBefore)
		}
		fmt.Fprintf(m.log, ", after %v\n", waited.Round(time.Second))
	}}
	if e.Name == "use-lite" {
		w.Activity = m.standin.Embedded
	}
	s, err := startServer(ctx, m.bin, dir, db, append(slices.Clone(e.Env), l.Env...), w, l.Args...)
	if err != nil {
		return err
	}
	defer s.Close()
	ready := time.Since(start)
	n := 0
	for si, set := range m.suite.Sets {
		for qi, q := range set.Queries {
			if q.Vault != name {
				continue
			}
			paths, scores, err := s.Search(ctx, q.Query)
			if err != nil {
				// Scored as no results, and said: a query the server refuses is a finding.
				what := fmt.Sprintf("%q", q.Query)
				if q.HeldOut() {
					what = "a held-out query"
				}
				fmt.Fprintf(m.log, "eval: %s in %s: search_vault failed: %v\n", what, name, err)
			}
			m.results.add(e.Name, l.Name, si, qi, paths, scores...)
			n++
		}
	}
	fmt.Fprintf(m.log, "eval: %-8s %-7s %-21s ready in %5.1fs, %3d queries in %5.1fs\n",
		e.Name, l.Name, name, ready.Seconds(), n, (time.Since(start) - ready).Seconds())
	return nil
}

// startLexicalStandin serves the Go Ollama stand-in on a free loopback port and returns its
// address.
func startLexicalStandin() (host string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	handler := ollamatest.NewHandler(ollamatest.Options{})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return ln.Addr().String(), func() {
		handler.Close()
		srv.Close()
	}, nil
}

// writeSection puts section into file, in place of the one there before.
func writeSection(file, section string) error {
	doc, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	doc = mdsection.Put(doc, sectionName, []byte(section), sectionBefore)
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		return err
	}
	return nil
}

// The search-quality section of BENCHMARKS.md: scripts/benchreport writes the rest of the file
// and keeps this section as it finds it.
const (
	sectionName   = "eval"
	sectionBefore = "## Every result"
)

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// suite is the sets a run measures, and the vaults they search.
type suite struct {
	Sets    []*Set
	Missing []string // set files that were not there
	Vaults  map[string]Vault
}

// loadSuite reads the sets in files. A file that is absent is skipped, and said; two sets
// that name the same vault must agree on where it is.
func loadSuite(files []string, log io.Writer) (*suite, error) {
	s := &suite{Vaults: map[string]Vault{}}
	for _, file := range files {
		set, err := LoadSet(file)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(log, "eval: skipping the query set %s: there is no such file\n", file)
			s.Missing = append(s.Missing, file)
			continue
		}
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(s.Sets, func(o *Set) bool { return o.Name() == set.Name() }) {
			return nil, fmt.Errorf("two query sets are called %s: the report names sets by file name", set.Name())
		}
		for name, v := range set.Vaults {
			if was, ok := s.Vaults[name]; ok && was.Dir != v.Dir {
				return nil, fmt.Errorf("%s: vault %s is at %s, and at %s in another set", file, name, v.Dir, was.Dir)
			}
			s.Vaults[name] = v
		}
		s.Sets = append(s.Sets, set)
	}
	if len(s.Sets) == 0 {
		return nil, errors.New("no query set to measure")
	}
	return s, nil
}

// vaultNames lists the vaults: the repository's own first, then those fetched into
// ../shared/vaults (the ones with a source), each group by name.
func (s *suite) vaultNames() []string {
	return (&Set{Vaults: s.Vaults}).VaultNames()
}

func (s *suite) vaultDir(root, name string) (string, error) {
	return (&Set{Vaults: s.Vaults}).VaultDir(root, name)
}

// checkAnswers checks every set's answers over the vault.
func (s *suite) checkAnswers(root, name string) error {
	var problems []error
	for _, set := range s.Sets {
		if _, ok := set.Vaults[name]; ok {
			if err := set.CheckAnswers(root, name); err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", set.Name(), err))
			}
		}
	}
	return errors.Join(problems...)
}

// countQueries is how many queries of all the sets search the vault.
func (s *suite) countQueries(vault string) int {
	n := 0
	for _, set := range s.Sets {
		n += countQueries(set, vault)
	}
	return n
}

func countQueries(set *Set, vault string) int {
	n := 0
	for _, q := range set.Queries {
		if q.Vault == vault {
			n++
		}
	}
	return n
}

// setNames are the sets' names, in order.
func (s *suite) setNames() []string {
	var names []string
	for _, set := range s.Sets {
		names = append(names, set.Name())
	}
	return names
}
