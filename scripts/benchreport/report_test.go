package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A few lines as `go test -bench` prints them, logs and all.
const sampleOutput = `goos: linux
pkg: vaultmcp/scripts/bench
BenchmarkReconcile/unchanged-2    	       3	1099834885 ns/op	        92.00 catch-up-ms	        28.01 stat-bound-ms	         3.284 x-bound
    reconcile_test.go:12: some log line
BenchmarkReconcile/1%-changed-2   	       1	1631256636 ns/op	       542.0 catch-up-ms	       382.0 embed-bound-ms	         1.419 x-bound
BenchmarkStartup/warm-2           	      10	  82000000 ns/op	        35.00 peak-MiB
PASS
ok  	vaultmcp/scripts/bench	35.086s
pkg: vaultmcp/shared/store
BenchmarkSearch/sections=50000/unfiltered-2	1	1 ns/op	60.0 p50-ms	70.0 p99-ms	21.5 scan-p50-ms	2.79 x-bound
`

func TestParseResults(t *testing.T) {
	results, order := parseResults(strings.NewReader(sampleOutput))
	if len(order) != 4 || order[0] != "scripts/bench.BenchmarkReconcile/unchanged" {
		t.Fatalf("order = %q", order)
	}
	r := results["BenchmarkReconcile/unchanged"]
	if r.Package != "vaultmcp/scripts/bench" || r.Metrics["catch-up-ms"] != 92 || r.Metrics["ns/op"] != 1099834885 {
		t.Errorf("result = %+v", r)
	}
	if got := results["BenchmarkSearch/sections=50000/unfiltered"].Package; got != "vaultmcp/shared/store" {
		t.Errorf("package of the search result = %q", got)
	}
}

func TestReport(t *testing.T) {
	results, order := parseResults(strings.NewReader(sampleOutput))
	var b strings.Builder
	if err := writeReport(&b, machine{CPU: "test"}, results, order, "benchmarks"); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	for _, want := range []string{
		// Value, bound and ratio, and a target that is missed says so, and why.
		"| nothing changed: until search and backlinks answer from a complete index | 92.0 ms | walking the vault and stat-ing every note: 28.0 ms | 3.28× | ≤ 3× **missed** |",
		"misses its target (≤ 3×). Besides the walk",
		"| 1% of the notes changed | 542 ms |",
		"| warm | 82.0 ms (peak memory 35.0 MiB) |  |  | < 300 ms met |",
		"| 50,000 sections | 60.0 ms (p99 70.0 ms) | scan in memory, p50: 21.5 ms | 2.79× | p50 ≤ 15 ms **missed** |",
		// What did not run is named, not left out.
		"not measured (`BenchmarkMemory/notes=1000` did not run or was skipped)",
		"go test -run='^$' -bench='^BenchmarkReconcile$' ./scripts/bench",
		"| BenchmarkSearch/sections=50000/unfiltered | shared/store | 1.00 ns/op, 60.0 p50-ms, 70.0 p99-ms, 21.5 scan-p50-ms, 2.79 x-bound |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(report)
	}
}

func TestCharts(t *testing.T) {
	results, _ := parseResults(strings.NewReader(sampleOutput))
	dir := t.TempDir()
	for _, sec := range sections {
		if sec.Chart == nil {
			continue
		}
		drawn, err := sec.Chart.draw(dir, results)
		if err != nil {
			t.Fatal(err)
		}
		svg, readErr := os.ReadFile(filepath.Join(dir, sec.Chart.File))
		switch {
		case sec.Chart.File == "search-latency.svg" && (!drawn || readErr != nil || !strings.Contains(string(svg), "<svg")):
			t.Errorf("the search chart was not drawn: %v %v", drawn, readErr)
		case sec.Chart.File == "memory.svg" && drawn:
			t.Errorf("a memory chart was drawn without a memory result")
		}
	}
}

func TestHeadlines(t *testing.T) {
	results, _ := parseResults(strings.NewReader(sampleOutput))
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("# x\n\n"+headlinesStart+"old figures\n"+headlinesEnd+"\n## after\n"), 0o644)
	if err := writeHeadlines(readme, results); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	for _, want := range []string{
		"index after 92.0 ms: 3.28× the time",
		"The 15 ms target at 50,000 sections is missed",
		"82.0 ms warm", "\n## after\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the README lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "old figures") {
		t.Error("the old headlines are still there")
	}
	// A README without the markers is an error, not a silent no-op.
	os.WriteFile(readme, []byte("# x\n"), 0o644)
	if err := writeHeadlines(readme, results); err == nil {
		t.Error("a README without the markers was accepted")
	}
}

// TestKeepsEvalSection checks that rewriting the report keeps the search-quality section,
// which make eval writes and make bench cannot measure.
func TestKeepsEvalSection(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.txt")
	out := filepath.Join(dir, "BENCHMARKS.md")
	os.WriteFile(raw, []byte(sampleOutput), 0o644)
	section := "<!-- begin eval -->\n## Search quality\n\n| keyword | 0.61 |\n<!-- end eval -->\n"
	os.WriteFile(out, []byte("# Benchmarks\n\nold figures\n\n"+section+"\n## Every result\n"), 0o644)
	// The sample output lacks most figures, so run reports them missing; it writes anyway.
	run([]string{"-from", raw, "-out", out}, io.Discard)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	report := string(got)
	if strings.Contains(report, "old figures") {
		t.Error("the report was not rewritten")
	}
	i, j := strings.Index(report, section), strings.Index(report, "## Every result")
	if i < 0 || j < i {
		t.Errorf("the eval section is not kept before the list of every result:\n%s", report)
	}
}
