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
// skipped. A benchmark that appears twice keeps its last result.
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
		if _, seen := results[m[1]]; !seen {
			order = append(order, m[1])
		}
		results[m[1]] = result{Name: m[1], Package: pkg, Metrics: metrics}
	}
	return results, order
}
