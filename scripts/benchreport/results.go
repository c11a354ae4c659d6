package main

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// result is one benchmark's line of `go test -bench` output: its metrics by unit, such as
// "ns/op" or "x-bound", and the package it ran in.
type result struct {
	Name    string // without the -GOMAXPROCS suffix: "BenchmarkReconcile/unchanged"
	Package string // "vaultmcp/scripts/bench"
	Metrics map[string]float64
}

var (
	pkgLine   = regexp.MustCompile(`^pkg: (\S+)`)
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)
)

// parseResults reads `go test -bench` output. Lines that are not results (logs, PASS, ok) are
// skipped. Each result is found under its package and name ("steps/10-reconcile.BenchmarkX")
// and, for short, under its name alone, which the last package to report it owns. order lists
// the first kind of key.
func parseResults(r io.Reader) (map[string]result, []string) {
	results := map[string]result{}
	var order []string
	pkg := ""
	scanner := bufio.NewScanner(r)
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			pkg = m[1]
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		metrics := map[string]float64{}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			metrics[fields[i+1]] = v
		}
		r := result{Name: m[1], Package: pkg, Metrics: metrics}
		key := strings.TrimPrefix(pkg, "vaultmcp/") + "." + m[1]
		if _, seen := results[key]; !seen {
			order = append(order, key)
		}
		results[key], results[m[1]] = r, r
	}
	return results, order
}
