// Command testsum runs go test and sums it up for a person: a line per package as it ends, the
// whole output of every test that failed, every skipped test with its reason grouped by the
// command that would run it, and one last line, "N passed, N failed, N skipped".
//
//	go build -o .run/bin/ ./scripts/testsum && .run/bin/testsum -short -count=1 -p 4 -timeout 30m work     (make test)
//
// Its arguments go to `go test -json` unchanged. It exits non-zero when a test fails, a package
// does not build, or go test itself fails, so make stops as go test would; when tests failed,
// it says nothing after the summary, whose last line is the last thing a reader sees before
// make's own error line. (Run it built, not with go run, which would add "exit status 1".)
//
// Simplified: it is what gotestsum does for this repository, in the standard library; it keeps
// every test's output in memory until the test ends (a few MB for the whole repository).
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		// When tests failed, the summary's last line says so: it stays the last thing printed.
		if !errors.Is(err, errFailed) {
			fmt.Fprintln(os.Stderr, "testsum:", err)
		}
		os.Exit(1)
	}
}

// errFailed is run's error when tests failed, which its summary has said.
var errFailed = errors.New("tests failed")

// run runs `go test -json args...` and writes the summary to stdout; go test's own stderr
// (build errors, for one) goes to stderr as it comes.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	events, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	// Stop go test with an interrupt, as Ctrl-C in a terminal would, so that it can stop the
	// test binaries it started; it gets a few seconds before it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	s := newSummary(stdout)
	readErr := s.read(events)
	waitErr := cmd.Wait()
	s.report()
	switch {
	case readErr != nil:
		return readErr
	case s.failed > 0:
		return fmt.Errorf("%d %w", s.failed, errFailed)
	case waitErr != nil:
		return fmt.Errorf("go test: %w", waitErr)
	}
	return nil
}

// event is one line of `go test -json` (see `go doc test2json`). Build events carry
// ImportPath instead of Package.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

// test is what is known about one test (or subtest, or a package's own output when name is "").
type test struct {
	pkg, name string
	output    []string
	result    string // "pass", "fail" or "skip"; "" while it runs
}

type summary struct {
	out                     io.Writer
	tests                   map[[2]string]*test // by package and name
	order                   []*test             // in the order they started
	builds                  map[string][]string // build output, by import path
	passed, failed, skipped int
	failures                []*test
	skips                   []*test
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, tests: map[[2]string]*test{}, builds: map[string][]string{}}
}

func (s *summary) get(pkg, name string) *test {
	key := [2]string{pkg, name}
	t, ok := s.tests[key]
	if !ok {
		t = &test{pkg: pkg, name: name}
		s.tests[key] = t
		s.order = append(s.order, t)
	}
	return t
}

// read takes go test's events until its output ends, printing a line as each package ends and
// the output of each test that fails as soon as it fails.
func (s *summary) read(r io.Reader) error {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for lines.Scan() {
		var e event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.out, lines.Text()) // not an event: go test said it itself
			continue
		}
		s.add(e)
	}
	return lines.Err()
}

func (s *summary) add(e event) {
	switch e.Action {
	case "build-output":
		s.builds[e.ImportPath] = append(s.builds[e.ImportPath], e.Output)
		return
	case "build-fail":
		return // the package's own fail event follows, with FailedBuild set
	}
	t := s.get(e.Package, e.Test)
	switch e.Action {
	case "output":
		t.output = append(t.output, e.Output)
	case "pass", "fail", "skip":
		t.result = e.Action
		if e.Test == "" {
			s.endPackage(t, e)
			return
		}
		switch e.Action {
		case "pass":
			s.passed++
		case "fail":
			s.failed++
			s.failures = append(s.failures, t)
			s.printFailure(t)
		case "skip":
			s.skipped++
			s.skips = append(s.skips, t)
		}
	}
}

// endPackage prints the package's line. A package that failed outside its tests (it did not
// build, a test timed out or the binary crashed) counts as one more failure, and prints what it
// printed, with the output of every test it left unfinished.
func (s *summary) endPackage(p *test, e event) {
	tests := 0
	for _, t := range s.order {
		if t.pkg == p.pkg && t.name != "" {
			tests++
		}
	}
	switch {
	case e.Action == "pass":
		fmt.Fprintf(s.out, "ok    %-40s %6.1fs  %d tests\n", p.pkg, e.Elapsed, tests)
	case e.Action == "skip":
		// No test files: nothing to say.
	case e.Action == "fail":
		fmt.Fprintf(s.out, "FAIL  %-40s %6.1fs\n", p.pkg, e.Elapsed)
		var out []string
		if e.FailedBuild != "" {
			out = append(out, s.builds[e.FailedBuild]...)
		}
		if !slices.ContainsFunc(s.failures, func(t *test) bool { return t.pkg == p.pkg }) {
			out = append(out, p.output...)
		}
		for _, t := range s.order {
			if t.pkg == p.pkg && t.name != "" && t.result == "" {
				out = append(out, t.output...) // a test that never ended: a timeout or a crash
			}
		}
		if len(out) == 0 {
			return // each failing test printed its output already
		}
		s.failed++
		s.failures = append(s.failures, p)
		s.printBlock("FAIL "+p.pkg+" (outside any test that ended)", out)
	}
}

// printFailure prints everything a failed test printed, without the runner's === lines.
func (s *summary) printFailure(t *test) {
	s.printBlock("FAIL "+t.pkg+" "+t.name, t.output)
}

func (s *summary) printBlock(title string, output []string) {
	fmt.Fprintf(s.out, "\n--- %s\n", title)
	for _, line := range output {
		if strings.HasPrefix(line, "=== ") {
			continue
		}
		fmt.Fprint(s.out, line)
		if !strings.HasSuffix(line, "\n") {
			fmt.Fprintln(s.out)
		}
	}
	fmt.Fprintln(s.out)
}

// makeCommand finds the command a skip message names, in backquotes: `make vaults`.
var makeCommand = regexp.MustCompile("`(make [a-z0-9 -]+)`")

// location is the file:line prefix the testing package puts before a message.
var location = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// reason returns why a test skipped: the message of its t.Skip, one line.
func reason(t *test) string {
	var msg []string
	for _, line := range t.output {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "=== ") || strings.HasPrefix(trimmed, "--- SKIP") || trimmed == "" {
			continue
		}
		msg = append(msg, strings.TrimSpace(location.ReplaceAllString(line, "")))
	}
	if len(msg) == 0 {
		return "(the test gave no reason)"
	}
	return strings.Join(msg, " ")
}

// A skipGroup is the skipped tests whose messages name one command.
type skipGroup struct {
	command string // "" for skips that name none
	how     string // the part of most of the messages that names the command
	tests   []string
}

// groupSkips groups the skipped tests by the command their messages name, in the order the
// commands first appear. The part of a message (between "; ") that names the command is said
// once, in the group's title, for the tests that say it alike.
func groupSkips(skips []*test) []*skipGroup {
	type skip struct{ name, why, how string }
	var groups []*skipGroup
	byCommand := map[string]*skipGroup{}
	members := map[*skipGroup][]skip{}
	for _, t := range skips {
		why, command, how := reason(t), "", ""
		if m := makeCommand.FindStringSubmatch(why); m != nil {
			command = m[1]
			var rest []string
			for _, part := range strings.Split(why, "; ") {
				if how == "" && strings.Contains(part, "`"+command+"`") {
					how = part
				} else {
					rest = append(rest, part)
				}
			}
			why = strings.Join(rest, "; ")
		}
		g, ok := byCommand[command]
		if !ok {
			g = &skipGroup{command: command}
			byCommand[command] = g
			groups = append(groups, g)
		}
		members[g] = append(members[g], skip{strings.TrimPrefix(t.pkg, "vaultmcp/") + " " + t.name, why, how})
	}
	for _, g := range groups {
		// The title says what most of the group says about the command, if more than one
		// test says it (or the group is one test); the others say their own on their line.
		count := map[string]int{}
		for _, m := range members[g] {
			if count[m.how]++; count[m.how] > count[g.how] || g.how == "" && count[m.how] == count[g.how] {
				g.how = m.how
			}
		}
		if count[g.how] < 2 && len(members[g]) > 1 {
			g.how = ""
		}
		for _, m := range members[g] {
			why := m.why
			if m.how != g.how && m.how != "" && m.how != "`"+g.command+"`" {
				why = strings.TrimPrefix(why+"; "+m.how, "; ")
			}
			if why == "" {
				g.tests = append(g.tests, m.name)
			} else {
				g.tests = append(g.tests, m.name+": "+why)
			}
		}
	}
	return groups
}

// report prints the failures' names, the skipped tests grouped by the command that runs them,
// and the last line.
func (s *summary) report() {
	if len(s.skips) > 0 {
		fmt.Fprintf(s.out, "\n%d skipped:\n", len(s.skips))
		for _, g := range groupSkips(s.skips) {
			switch {
			case g.command == "":
				fmt.Fprintf(s.out, "  %d for other reasons:\n", len(g.tests))
			case g.how == "" || g.how == "`"+g.command+"`":
				fmt.Fprintf(s.out, "  %d need `%s`:\n", len(g.tests), g.command)
			default:
				fmt.Fprintf(s.out, "  %d need `%s` (%s):\n", len(g.tests), g.command, g.how)
			}
			for _, line := range g.tests {
				fmt.Fprintf(s.out, "    %s\n", line)
			}
		}
	}
	if len(s.failures) > 0 {
		fmt.Fprintf(s.out, "\n%d failed (their output is above):\n", len(s.failures))
		for _, t := range s.failures {
			fmt.Fprintf(s.out, "    %s %s\n", strings.TrimPrefix(t.pkg, "vaultmcp/"), cmp.Or(t.name, "(package)"))
		}
	}
	fmt.Fprintf(s.out, "\n%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
}
