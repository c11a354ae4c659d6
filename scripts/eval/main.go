// Command eval measures how well search finds the right notes: it runs the labelled queries of
// queries.json through search_vault and reports nDCG@5, nDCG@10, MRR, Hit@1 and Recall@10 per
// category of query, for the part of the set that search may be tuned on and for the part kept
// aside, with each embedder and each ranking leg.
//
//	go run ./scripts/eval                          # print the tables
//	go run ./scripts/eval -write BENCHMARKS.md     # make eval: and put them in BENCHMARKS.md
//	go run ./scripts/eval -embedder offline -v     # one embedder, and each tuning query's results
//
// It measures what a user gets: it builds a step (the last one unless -step says another),
// starts it over a copy of each vault as a user would, waits until the index holds the whole
// vault, and asks search_vault over MCP with the official Go SDK's client. Whatever changes
// inside the step, in its search code or in the shared packages it uses, changes the figures.
// The embedders are the offline one and the real Ollama client talking to the Ollama stand-in
// (shared/ollamatest), which hashes words as the offline embedder does: that run checks the
// Ollama code path and its score floor, not a model's sense of meaning.
//
// Vaults under ../shared/vaults are skipped, saying how to fetch them, when they are absent;
// the sample vault and the multilingual test vault in testdata/ always run.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"vaultmcp/scripts/mdsection"
	"vaultmcp/scripts/transcript"
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
	About string
	Env   []string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	which := flags.String("embedder", "both", "offline, ollama (the real client against the Ollama stand-in), or both")
	stepNumber := flags.Int("step", 0, "the step to measure, from 4 (default the last)")
	queriesFile := flags.String("queries", "", "the labelled queries (default scripts/eval/queries.json)")
	write := flags.String("write", "", "also put the tables in this Markdown `file`, in its search-quality section (only after a run of every vault and embedder on the last step)")
	markdown := flags.Bool("markdown", false, "print the tables as Markdown")
	verbose := flags.Bool("v", false, "list each query of the tuning part with what search returned (never the held-out part)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	start := time.Now()
	root, err := transcript.Root()
	if err != nil {
		return err
	}
	set, err := LoadSet(cmp.Or(*queriesFile, filepath.Join(root, "scripts", "eval", "queries.json")))
	if err != nil {
		return err
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

	embedders := []embedder{
		{Name: "offline", About: "the offline embedder", Env: []string{"VAULTMCP_EMBEDDER=offline"}},
		{Name: "ollama", About: "the Ollama client and the Ollama stand-in", Env: []string{"VAULTMCP_EMBEDDER=ollama"}},
	}
	switch *which {
	case "both":
	case "offline", "ollama":
		embedders = slices.DeleteFunc(embedders, func(e embedder) bool { return e.Name != *which })
	default:
		return fmt.Errorf("unknown embedder %q: use offline, ollama or both", *which)
	}

	// The vaults that are here; for the others, say how to fetch them.
	var vaults, skipped []string
	for _, name := range set.VaultNames() {
		if _, err := set.VaultDir(root, name); err != nil {
			if set.Vaults[name].Source == "" {
				return err
			}
			fmt.Fprintf(stderr, "eval: skipping the %d queries over %s: %v\n", countQueries(set, name), name, err)
			skipped = append(skipped, name)
			continue
		}
		if err := set.CheckAnswers(root, name); err != nil {
			return fmt.Errorf("the query set does not match vault %s:\n%w", name, err)
		}
		vaults = append(vaults, name)
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
	// Servers write into the vault they serve (from step 9, the inbox folder appears at
	// start-up), so each serves a copy: the vaults in ../shared are read-only, and the
	// repository's own stay as they are.
	copies := map[string]string{}
	for _, name := range vaults {
		dir, _ := set.VaultDir(root, name)
		copies[name] = filepath.Join(work, "vaults", name)
		if err := os.CopyFS(copies[name], os.DirFS(dir)); err != nil {
			return fmt.Errorf("copy vault %s: %w", name, err)
		}
	}
	for i, e := range embedders {
		if e.Name == "ollama" {
			host, stop, err := startStandin()
			if err != nil {
				return err
			}
			defer stop()
			embedders[i].Env = append(e.Env, "OLLAMA_HOST="+host)
		}
	}

	m := measurer{bin: bin, set: set, results: newResults(), log: stderr}
	for _, e := range embedders {
		for _, name := range vaults {
			// One index a vault and embedder, shared by the legs: the first start builds it,
			// the next ones find it up to date.
			db := filepath.Join(work, "index", e.Name, name+".db")
			if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
				return err
			}
			for _, l := range legs {
				if err := m.measure(ctx, name, copies[name], db, e, l); err != nil {
					return fmt.Errorf("%s embedder, %s leg, vault %s: %w", e.Name, l.Name, name, err)
				}
			}
		}
	}

	rep := report{Step: step.Name, Embedders: embedders, Legs: legs, Set: set, Results: m.results, Vaults: vaults}
	if *markdown {
		io.WriteString(stdout, rep.Markdown())
	} else {
		io.WriteString(stdout, rep.Text())
	}
	if *verbose {
		io.WriteString(stdout, rep.Details())
	}
	took := time.Since(start).Round(time.Second)
	fmt.Fprintf(stderr, "eval: %d queries over %d vaults in %v\n", m.results.count(), len(vaults), took)

	if *write != "" {
		var why []string
		if len(skipped) > 0 {
			why = append(why, "vaults "+strings.Join(skipped, ", ")+" were skipped")
		}
		if len(embedders) < 2 {
			why = append(why, "only one embedder ran")
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

// measurer runs queries through a step and keeps what search returned.
type measurer struct {
	bin     string // the step's binary
	set     *Set
	results *results
	log     io.Writer
}

// measure starts the server for one embedder and leg over the vault name, served from dir
// with its index in db, runs that vault's queries and records what they returned.
func (m *measurer) measure(ctx context.Context, name, dir, db string, e embedder, l leg) error {
	start := time.Now()
	s, err := startServer(ctx, m.bin, dir, db, append(slices.Clone(e.Env), l.Env...), l.Args...)
	if err != nil {
		return err
	}
	defer s.Close()
	ready := time.Since(start)
	n := 0
	for i, q := range m.set.Queries {
		if q.Vault != name {
			continue
		}
		paths, err := s.Search(ctx, q.Query)
		if err != nil {
			// Scored as no results, and said: a query the server refuses is a finding.
			what := fmt.Sprintf("%q", q.Query)
			if q.HeldOut() {
				what = "a held-out query"
			}
			fmt.Fprintf(m.log, "eval: %s in %s: search_vault failed: %v\n", what, name, err)
		}
		m.results.add(e.Name, l.Name, i, paths)
		n++
	}
	fmt.Fprintf(m.log, "eval: %-7s %-6s %-21s ready in %5.1fs, %3d queries in %5.1fs\n",
		e.Name, l.Name, name, ready.Seconds(), n, (time.Since(start) - ready).Seconds())
	return nil
}

// startStandin serves the Ollama stand-in on a free loopback port and returns its address.
func startStandin() (host string, stop func(), err error) {
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

func countQueries(set *Set, vault string) int {
	n := 0
	for _, q := range set.Queries {
		if q.Vault == vault {
			n++
		}
	}
	return n
}
