package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// machine describes where the figures were measured.
type machine struct {
	CPU, Cores, Memory, OS, Go, Date string
	Short                            bool
}

// writeReport writes the markdown report of results.
func writeReport(w io.Writer, m machine, results map[string]result, order []string, chartDir string) error {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Written by `make bench` (`go run ./scripts/benchreport`); do not edit by hand. Each figure is shown\n")
	b.WriteString("beside its lower bound, measured in the same run: absolute times depend on the machine, the\n")
	b.WriteString("ratios much less. Speed lives here, never in the tests: a timed test fails on a busy machine\n")
	b.WriteString("and proves nothing on a fast one.\n\n")
	if m.Short {
		b.WriteString("**Short mode**: small inputs, one iteration each. These figures only show that every\n")
		b.WriteString("benchmark still runs; they measure nothing.\n\n")
	}
	fmt.Fprintf(&b, "| machine | |\n|---|---|\n| CPU | %s |\n| cores | %s |\n| memory | %s |\n| system | %s |\n| Go | %s |\n| date | %s |\n\n",
		m.CPU, m.Cores, m.Memory, m.OS, m.Go, m.Date)

	for _, sec := range sections {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", sec.Title, sec.Intro)
		b.WriteString("| figure | value | lower bound | ratio | target |\n|---|---|---|---|---|\n")
		var misses []string
		var commands []string
		for _, f := range sec.Rows {
			row, missed := renderRow(f, results)
			b.WriteString(row)
			if missed {
				misses = append(misses, fmt.Sprintf("- **%s** misses its target (%s). %s", f.What, f.Target, f.Miss))
			} else if f.Target == "" && f.Miss != "" && results[f.Bench].Metrics != nil {
				misses = append(misses, fmt.Sprintf("- **%s**: %s", f.What, f.Miss))
			}
			if r, ok := results[f.Bench]; ok {
				if cmd := command(r); !slices.Contains(commands, cmd) {
					commands = append(commands, cmd)
				}
			}
		}
		b.WriteString("\n")
		for _, line := range misses {
			b.WriteString(line + "\n")
		}
		if len(misses) > 0 {
			b.WriteString("\n")
		}
		if sec.Chart != nil && chartDir != "" {
			fmt.Fprintf(&b, "![%s](%s/%s)\n\n", sec.Chart.Title, chartDir, sec.Chart.File)
		}
		if len(commands) > 0 {
			b.WriteString("Reproduce:\n\n```sh\n" + strings.Join(commands, "\n") + "\n```\n\n")
		}
	}

	b.WriteString("## Every result\n\nEvery benchmark's metrics as `go test` printed them, the ones above included.\n\n")
	b.WriteString("| benchmark | package | metrics |\n|---|---|---|\n")
	for _, key := range order {
		r := results[key]
		var metrics []string
		for _, unit := range slices.Sorted(maps.Keys(r.Metrics)) {
			metrics = append(metrics, fmt.Sprintf("%s %s", number(r.Metrics[unit]), unit))
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Name, strings.TrimPrefix(r.Package, "vaultmcp/"), strings.Join(metrics, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderRow writes one figure as a table row, and says whether it missed its target.
func renderRow(f figure, results map[string]result) (string, bool) {
	r, ok := results[f.Bench]
	if !ok {
		return fmt.Sprintf("| %s | not measured (`%s` did not run or was skipped) | | | %s |\n", f.What, f.Bench, f.Target), false
	}
	value, ok := pick(r, f.Value)
	if !ok {
		return fmt.Sprintf("| %s | `%s` reported no %s | | | %s |\n", f.What, f.Bench, f.Value.Unit, f.Target), false
	}
	cell := show(value, f.Value.Label)
	if extra, ok := pick(r, f.Extra); ok && f.Extra.Unit != "" {
		cell += fmt.Sprintf(" (%s %s)", f.ExtraWhat, show(extra, f.Extra.Label))
	}

	boundCell, ratioCell := "", ""
	ratio := math.NaN()
	if f.Bound.Unit != "" {
		from := r
		if f.BoundBench != "" {
			from = results[f.BoundBench]
		}
		if bound, ok := pick(from, f.Bound); ok {
			boundCell = fmt.Sprintf("%s: %s", f.BoundWhat, show(bound, f.Bound.Label))
			if bound != 0 {
				ratio = value / bound
			}
		}
		if f.Ratio != "" {
			if v, ok := r.Metrics[f.Ratio]; ok {
				ratio = v
			}
		}
		if !math.IsNaN(ratio) {
			ratioCell = number(ratio) + "×"
		}
	}
	missed := (f.MaxRatio > 0 && !math.IsNaN(ratio) && ratio > f.MaxRatio) || (f.MaxValue > 0 && value > f.MaxValue) ||
		(f.MinValue > 0 && value < f.MinValue)
	target := f.Target
	switch {
	case target == "":
	case missed:
		target += " **missed**"
	default:
		target += " met"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s |\n", f.What, cell, boundCell, ratioCell, target), missed
}

// pick returns a metric's value, scaled for display.
func pick(r result, m metric) (float64, bool) {
	v, ok := r.Metrics[m.Unit]
	if !ok || m.Unit == "" {
		return 0, false
	}
	if m.Scale != 0 {
		v *= m.Scale
	}
	return v, true
}

func show(v float64, label string) string {
	if label == "" {
		return number(v)
	}
	return number(v) + " " + label
}

// number keeps three significant digits: more would suggest a precision one run does not have.
func number(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return commas(int64(math.Round(v)))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// command is the go test command that runs exactly this result's benchmark function.
func command(r result) string {
	fn, _, _ := strings.Cut(r.Name, "/")
	return fmt.Sprintf("go test -run='^$' -bench='^%s$' ./%s", fn, strings.TrimPrefix(r.Package, "vaultmcp/"))
}
