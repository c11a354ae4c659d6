// Command diff-step shows what step N adds to step N-1: the diff of the two step folders, then
// the source of every shared declaration that step N starts to use. Together that is
// everything new a reader meets in the step. The tests' changes are listed but not printed,
// unless -tests asks for them; the transcript, which is a test too, is summed up as the
// sections it adds, changes and retires.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"vaultmcp/scripts/reach"
	"vaultmcp/scripts/transcript"
)

func main() {
	if err := run(context.Background(), os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "diff-step:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	withTests := flags.Bool("tests", false, "print the changes to the tests and the transcript too (make diff N TESTS=1)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return errors.New("usage: diff-step [-tests] N (N from 2)")
	}
	n, err := strconv.Atoi(flags.Arg(0))
	if err != nil || n < 2 {
		return fmt.Errorf("the step must be a number from 2 on, like 3; step 1 has nothing before it")
	}
	root, err := transcript.Root()
	if err != nil {
		return err
	}
	prev, err := transcript.FindStep(root, n-1)
	if err != nil {
		return err
	}
	step, err := transcript.FindStep(root, n)
	if err != nil {
		return err
	}

	// git diff --no-index compares two folders, tracked or not. It exits 1 when they differ.
	// --irreversible-delete names a deleted file without printing it: it is in step N-1.
	diff := exec.CommandContext(ctx, "git", "diff", "--no-index", "--stat", "--patch", "--irreversible-delete",
		"--", "steps/"+prev.Name, "steps/"+step.Name)
	diff.Dir = root
	diff.Stderr = os.Stderr
	out, err := diff.Output()
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			return fmt.Errorf("git diff: %w", err)
		}
	}
	diffText, tests := readable(string(out), *withTests)
	io.WriteString(stdout, diffText)
	if !*withTests {
		if err := printSections(root, prev, step, stdout); err != nil {
			return err
		}
		files := "files"
		if tests == 1 {
			files = "file"
		}
		fmt.Fprintf(stdout, "\n(%d test %s changed, named above; make diff %d TESTS=1 prints their changes and the transcript's)\n", tests, files, n)
	}
	return printShared(ctx, root, prev, step, stdout)
}

// statTotal is the last line of git's --stat: " 16 files changed, 869 insertions(+), ...".
var statTotal = regexp.MustCompile(`^ \d+ files? changed`)

// readable drops go.sum from a diff, since its lines are hashes, not something to read, and
// the patches of test files and of the transcript unless withTests is set. It returns how many
// test files it left out.
func readable(diff string, withTests bool) (string, int) {
	var b strings.Builder
	skipping, tests := false, 0
	inStat, sumCounted := true, false // the --stat table comes first; go.sum's row is left out of it
	for _, line := range strings.SplitAfter(diff, "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			inStat = false
			name := strings.TrimSpace(line)
			isTest := !withTests && strings.HasSuffix(name, "_test.go")
			if isTest {
				tests++
			}
			skipping = isTest || strings.HasSuffix(name, "go.sum") ||
				(!withTests && strings.HasSuffix(name, "/transcript.txt"))
		}
		if inStat && strings.Contains(line, "go.sum ") && strings.Contains(line, " | ") {
			sumCounted = true // and so counted in the total below it
			continue
		}
		if skipping {
			continue
		}
		if inStat && sumCounted && statTotal.MatchString(line) {
			line = strings.TrimSuffix(line, "\n") + " (go.sum's among them, not shown)\n"
		}
		b.WriteString(line)
	}
	return b.String(), tests
}

// printShared prints the shared declarations that step reaches and prev did not, package by
// package and file by file, each in source order.
func printShared(ctx context.Context, root string, prev, step transcript.Step, stdout io.Writer) error {
	before, err := reach.Load(ctx, root, prev.Name)
	if err != nil {
		return err
	}
	after, err := reach.Load(ctx, root, step.Name)
	if err != nil {
		return err
	}
	for _, pkg := range reach.Started(before, after) {
		if pkg.New {
			fmt.Fprintf(stdout, "\n==== new shared package %s (%s) ====\n\n%s\n", pkg.ImportPath, pkg.Dir, pkg.Doc)
		} else {
			fmt.Fprintf(stdout, "\n==== shared package %s (%s): what step %d starts to use ====\n", pkg.ImportPath, pkg.Dir, step.Number)
		}
		for _, file := range pkg.Files {
			fmt.Fprintf(stdout, "\n---- %s ----\n", file.Path)
			for _, d := range file.Decls {
				fmt.Fprintf(stdout, "\n%s\n", d)
			}
		}
	}
	return nil
}

// serverVersion is the version every answer's serverInfo carries: each step has its own, so
// it would make every section that shows it look changed.
var serverVersion = regexp.MustCompile(`"version": ?"\d+\.\d+\.\d+"`)

// sectionChanges is what a step's transcript does to the one before it, by section title.
type sectionChanges struct {
	before, after           int      // the sections of each transcript
	added, changed, retired []string // titles; changed leaves out versionOnly
	versionOnly             int      // kept sections that differ only in the server's version
}

// kept is how many of the earlier transcript's sections the step's transcript keeps.
func (c sectionChanges) kept() int { return c.before - len(c.retired) }

// compareSections compares step's transcript with prev's, section by section.
func compareSections(root string, prev, step transcript.Step) (sectionChanges, error) {
	read := func(s transcript.Step) ([]transcript.Section, error) {
		return transcript.ParseFile(filepath.Join(root, "steps", s.Name, "transcript.txt"))
	}
	before, err := read(prev)
	if err != nil {
		return sectionChanges{}, err
	}
	after, err := read(step)
	if err != nil {
		return sectionChanges{}, err
	}
	c := sectionChanges{before: len(before), after: len(after)}
	earlier := map[string]string{}
	for _, sec := range before {
		earlier[sec.Title] = sec.Text
	}
	later := map[string]bool{}
	for _, sec := range after {
		later[sec.Title] = true
		text, ok := earlier[sec.Title]
		switch {
		case !ok:
			c.added = append(c.added, sec.Title)
		case text == sec.Text:
		case withoutVersion(text) == withoutVersion(sec.Text):
			c.versionOnly++
		default:
			c.changed = append(c.changed, sec.Title)
		}
	}
	for _, sec := range before {
		if !later[sec.Title] {
			c.retired = append(c.retired, sec.Title)
		}
	}
	return c, nil
}

func withoutVersion(text string) string {
	return serverVersion.ReplaceAllString(text, `"version":"…"`)
}

// printSections sums up what step's transcript changes from prev's: the titles of the
// sections it adds, of those whose commands or answers changed, and of those it retires. The
// sections that changed only in the server's version are counted, not listed: every step
// reports its own.
func printSections(root string, prev, step transcript.Step, stdout io.Writer) error {
	c, err := compareSections(root, prev, step)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\ntranscript.txt: %d sections, %d kept of step %s's %d; %d added (+), %d changed (~), %d retired (-)",
		c.after, c.kept(), prev.Name, c.before, len(c.added), len(c.changed), len(c.retired))
	if c.versionOnly > 0 {
		fmt.Fprintf(stdout, "; %d more changed only in the server's version (not listed)", c.versionOnly)
	}
	fmt.Fprintln(stdout)
	for _, group := range []struct {
		mark   string
		titles []string
	}{{"+", c.added}, {"~", c.changed}, {"-", c.retired}} {
		for _, title := range group.titles {
			fmt.Fprintln(stdout, group.mark, title)
		}
	}
	return nil
}
