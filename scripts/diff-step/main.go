// Command diff-step shows what step N adds to step N-1: the diff of the two step folders, then
// the source of every shared package that step N imports and step N-1 did not. Together that
// is everything new a reader meets in the step.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vaultmcp/scripts/transcript"
)

func main() {
	if err := run(context.Background(), os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "diff-step:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return errors.New("usage: diff-step N (N from 2)")
	}
	n, err := strconv.Atoi(args[1])
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
	diff := exec.CommandContext(ctx, "git", "diff", "--no-index", "--stat", "--patch",
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
	io.WriteString(stdout, withoutChecksums(string(out)))
	before, err := sharedImports(ctx, root, prev)
	if err != nil {
		return err
	}
	after, err := sharedImports(ctx, root, step)
	if err != nil {
		return err
	}
	for _, pkg := range after {
		if slices.Contains(before, pkg) {
			continue
		}
		if err := printPackage(ctx, root, pkg, stdout); err != nil {
			return err
		}
	}
	return nil
}

// withoutChecksums drops go.sum from a diff: its lines are hashes, not something to read.
func withoutChecksums(diff string) string {
	var b strings.Builder
	skipping := false
	for _, line := range strings.SplitAfter(diff, "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			skipping = strings.HasSuffix(strings.TrimSpace(line), "go.sum")
		}
		if skipping || (strings.Contains(line, "go.sum ") && strings.Contains(line, " | ")) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// sharedImports lists the packages of the shared module that a step uses, directly or not.
func sharedImports(ctx context.Context, root string, step transcript.Step) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}}", "./steps/"+step.Name)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./steps/%s: %w", step.Name, err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "vaultmcp/shared/") {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

// printPackage prints a shared package's source files (not its tests) under a header.
func printPackage(ctx context.Context, root, pkg string, stdout io.Writer) error {
	// One path per line: a checkout's path may contain spaces.
	cmd := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}{{range .GoFiles}}\n{{.}}{{end}}", pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list %s: %w", pkg, err)
	}
	lines := strings.Split(string(bytes.TrimSpace(out)), "\n")
	dir, files := lines[0], lines[1:]
	rel, _ := filepath.Rel(root, dir)
	fmt.Fprintf(stdout, "\n==== new shared package %s (%s) ====\n", pkg, filepath.ToSlash(rel))
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n---- %s/%s ----\n%s", filepath.ToSlash(rel), f, src)
	}
	return nil
}
