package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a Go module of made-up tests into a temporary folder and makes it the working
// directory: tests that pass, fail, skip with and without a command, and a package that does not
// build.
func module(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-buildvcs=false")
}

const mixed = `package a

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) {
	t.Log("what it saw")
	t.Error("the answer was 41, want 42")
}

func TestNeedsData(t *testing.T) {
	t.Skip("real vault \"x\" not available; ` + "`make vaults`" + ` fetches it")
}

func TestLong(t *testing.T) {
	t.Skip("indexes 20,000 notes; ` + "`make check`" + ` runs it")
}

func TestNeedsNpm(t *testing.T) {
	t.Skip("drives every step with clients from npm; ` + "`make check`" + ` installs them and runs it")
}

func TestNeedsModel(t *testing.T) {
	t.Skip("the model is not installed: run ` + "`make use-standin-deps`" + `")
}

func TestNeedsOtherData(t *testing.T) {
	t.Skip("vault y is not at ../y; ` + "`make vaults`" + ` fetches it (from github.com/y)")
}

func TestNeedsData2(t *testing.T) {
	t.Skip("real vault \"z\" not available; ` + "`make vaults`" + ` fetches it")
}

func TestOwnReason(t *testing.T) {
	t.Skip("cannot make symbolic links here")
}

func TestParent(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) {})
}
`

func TestSummary(t *testing.T) {
	module(t, map[string]string{"a/a_test.go": mixed})
	var out, errs bytes.Buffer
	err := run(t.Context(), []string{"-count=1", "./..."}, &out, &errs)
	if !errors.Is(err, errFailed) {
		t.Errorf("a failing test gave the error %v, want errFailed, which main does not print after the summary; the output was:\n%s", err, out.String())
	}
	got := out.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	// TestPasses, TestParent and its two subtests pass.
	if last := lines[len(lines)-1]; last != "4 passed, 1 failed, 7 skipped" {
		t.Errorf("last line %q, want %q; the output:\n%s", last, "4 passed, 1 failed, 7 skipped", got)
	}
	for _, want := range []string{
		"--- FAIL example.com/m/a TestFails\n",
		"what it saw", "the answer was 41, want 42",
		"FAIL  example.com/m/a",
		// Two of three say the same about make vaults: the title says it, the third its own.
		"3 need `make vaults` (`make vaults` fetches it):\n    example.com/m/a TestNeedsData: real vault \"x\" not available\n" +
			"    example.com/m/a TestNeedsOtherData: vault y is not at ../y; `make vaults` fetches it (from github.com/y)\n" +
			"    example.com/m/a TestNeedsData2: real vault \"z\" not available\n",
		// The two skips naming make check say different things about it: each keeps its own.
		"2 need `make check`:\n    example.com/m/a TestLong: indexes 20,000 notes; `make check` runs it\n" +
			"    example.com/m/a TestNeedsNpm: drives every step with clients from npm; `make check` installs them and runs it\n",
		"1 need `make use-standin-deps` (the model is not installed: run `make use-standin-deps`):\n    example.com/m/a TestNeedsModel\n",
		"1 for other reasons:\n    example.com/m/a TestOwnReason: cannot make symbolic links here\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") {
		t.Errorf("the output keeps the runner's === lines:\n%s", got)
	}
}

func TestAllPass(t *testing.T) {
	module(t, map[string]string{"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestPasses(t *testing.T) {}\n"})
	var out, errs bytes.Buffer
	if err := run(t.Context(), []string{"-count=1", "./..."}, &out, &errs); err != nil {
		t.Fatalf("err = %v\n%s%s", err, out.String(), errs.String())
	}
	if !strings.HasSuffix(out.String(), "\n1 passed, 0 failed, 0 skipped\n") || !strings.Contains(out.String(), "ok    example.com/m/a") {
		t.Errorf("output:\n%s", out.String())
	}
}

// A package that does not build has no test to fail: it counts as a failure itself, and the
// compiler's message is shown.
func TestBuildFailure(t *testing.T) {
	module(t, map[string]string{
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestPasses(t *testing.T) {}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { undefinedName() }\n",
	})
	var out, errs bytes.Buffer
	if err := run(t.Context(), []string{"-count=1", "./..."}, &out, &errs); err == nil {
		t.Fatalf("a package that does not build gave no error:\n%s", out.String())
	}
	got := out.String() + errs.String()
	if !strings.Contains(got, "undefined: undefinedName") {
		t.Errorf("the compiler's message is missing:\n%s", got)
	}
	if !strings.HasSuffix(out.String(), "\n1 passed, 1 failed, 0 skipped\n") {
		t.Errorf("output:\n%s", out.String())
	}
}

// A test that never ends is stopped by -timeout; the package fails, and the summary shows what
// the test printed before it was stopped.
func TestTimeout(t *testing.T) {
	module(t, map[string]string{"a/a_test.go": `package a

import (
	"testing"
	"time"
)

func TestHangs(t *testing.T) {
	t.Log("waiting for an answer")
	time.Sleep(time.Minute)
}
`})
	var out, errs bytes.Buffer
	if err := run(t.Context(), []string{"-count=1", "-timeout=1s", "./..."}, &out, &errs); err == nil {
		t.Fatalf("a test that timed out gave no error:\n%s", out.String())
	}
	got := out.String()
	for _, want := range []string{"test timed out after 1s", "TestHangs"} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if strings.HasSuffix(got, " 0 failed, 0 skipped\n") {
		t.Errorf("the timeout was not counted as a failure:\n%s", got)
	}
}
