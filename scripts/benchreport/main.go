// Command benchreport runs every benchmark in the workspace and writes BENCHMARKS.md: each
// figure beside its lower bound, measured in the same run, the command that reproduces it,
// the machine it ran on, and charts of search latency and memory against size.
//
//	go run ./scripts/benchreport               # make bench: the full run, about 8 minutes on 2 cores
//	go run ./scripts/benchreport -short -out DIR/report.md   # make bench-smoke: does it all still run?
//
// With -short the benchmarks get small inputs and one iteration each, and the command fails if
// a figure of the report is missing: CI runs it so that no benchmark rots unnoticed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"vaultmcp/scripts/mdsection"
	"vaultmcp/scripts/transcript"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	flags := flag.NewFlagSet("benchreport", flag.ContinueOnError)
	short := flags.Bool("short", false, "small inputs, one iteration each: check that every benchmark runs")
	out := flags.String("out", "BENCHMARKS.md", "the report to write; its charts and raw output go in a folder beside it")
	from := flags.String("from", "", "read `go test -bench` output from this file instead of running the benchmarks")
	if err := flags.Parse(args); err != nil {
		return err
	}
	root, err := transcript.Root()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(*out) {
		*out = filepath.Join(root, *out)
	}
	// BENCHMARKS.md keeps its charts in benchmarks/, named after the report.
	assets := strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	assets = strings.ToLower(assets)
	assetDir := filepath.Join(filepath.Dir(*out), assets)
	if err := os.MkdirAll(assetDir, 0o755); err != nil {
		return err
	}

	var output []byte
	var benchErr error
	if *from != "" {
		if output, err = os.ReadFile(*from); err != nil {
			return err
		}
	} else {
		output, benchErr = runBenchmarks(root, *short, log)
		if err := os.WriteFile(filepath.Join(assetDir, "raw.txt"), output, 0o644); err != nil {
			return err
		}
	}
	results, order := parseResults(bytes.NewReader(output))

	var missing []string
	for _, sec := range sections {
		if sec.Chart != nil {
			if _, err := sec.Chart.draw(assetDir, results); err != nil {
				return fmt.Errorf("chart %s: %w", sec.Chart.File, err)
			}
		}
		for _, f := range sec.Rows {
			if _, ok := results[f.Bench]; !ok && !f.MaySkip && !(*short && f.Long) {
				missing = append(missing, f.Bench)
			}
		}
	}

	var report bytes.Buffer
	if err := writeReport(&report, describeMachine(root, *short), results, order, assets); err != nil {
		return err
	}
	doc := report.Bytes()
	// The search-quality section is make eval's (scripts/eval): carry it over as it is.
	if previous, err := os.ReadFile(*out); err == nil {
		if section, ok := mdsection.Get(previous, "eval"); ok {
			doc = mdsection.Put(doc, "eval", section, "## Every result")
		}
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "benchreport: wrote %s (%d results)\n", *out, len(order))
	// Only a full run may speak for the project; a short one measures nothing.
	if !*short && *out == filepath.Join(root, "BENCHMARKS.md") {
		if err := writeHeadlines(filepath.Join(root, "README.md"), results); err != nil {
			return err
		}
	}
	switch {
	case benchErr != nil:
		return fmt.Errorf("a benchmark failed (the report shows what ran): %w", benchErr)
	case len(missing) > 0:
		return fmt.Errorf("no result for %s: a benchmark was renamed, skipped or broken", strings.Join(missing, ", "))
	}
	return nil
}

// runBenchmarks runs every benchmark of the workspace, showing the output as it comes, and
// returns it.
func runBenchmarks(root string, short bool, log io.Writer) ([]byte, error) {
	// Five seconds a benchmark gives search a hundred queries at 50,000 sections, enough for
	// a p99; the slow benchmarks (indexing, memory) run once whatever the setting.
	args := []string{"test", "-run=^$", "-bench=.", "-benchtime=5s", "-timeout=60m"}
	if short {
		args = []string{"test", "-run=^$", "-bench=.", "-short", "-benchtime=1x", "-timeout=30m"}
	}
	args = append(args, "work")
	fmt.Fprintf(log, "benchreport: go %s\n", strings.Join(args, " "))
	var output bytes.Buffer
	cmd := exec.CommandContext(context.Background(), "go", args...)
	cmd.Dir = root
	cmd.Stdout = io.MultiWriter(&output, log)
	cmd.Stderr = io.MultiWriter(&output, log)
	start := time.Now()
	err := cmd.Run()
	fmt.Fprintf(log, "benchreport: the benchmarks took %v\n", time.Since(start).Round(time.Second))
	return output.Bytes(), err
}

// describeMachine says what the figures were measured on, from what the system tells.
func describeMachine(root string, short bool) machine {
	m := machine{
		CPU:    runtime.GOARCH,
		Cores:  fmt.Sprint(runtime.NumCPU()),
		Memory: "unknown",
		OS:     runtime.GOOS + "/" + runtime.GOARCH,
		Go:     runtime.Version(),
		Date:   time.Now().UTC().Format("2006-01-02"),
		Short:  short,
	}
	if cpuinfo, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(cpuinfo)) {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimLeft(name, " \t:"))
				break
			}
		}
	}
	if meminfo, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kib int64
		if _, err := fmt.Sscanf(string(meminfo), "MemTotal: %d kB", &kib); err == nil {
			m.Memory = fmt.Sprintf("%.0f GiB", float64(kib)/(1<<20))
		}
	}
	if release, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += ", kernel " + strings.TrimSpace(string(release))
	}
	// The benchmarks run with the go command's toolchain, which may differ from this one's.
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Dir = root
	if v, err := cmd.Output(); err == nil {
		m.Go = strings.TrimSpace(string(v))
	} else if !errors.Is(err, exec.ErrNotFound) {
		m.Go += " (go env failed)"
	}
	return m
}
