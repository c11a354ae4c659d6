package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// shortSkip is a test that -short (make test) skips: `if testing.Short() {` and a Skip on the
// next line.
var shortSkip = regexp.MustCompile(`if testing\.Short\(\) \{\n\s*[tb]\.Skipf?\(([^\n]*)\)\n`)

// TestShortSkipsNameMakeCheck: every test that make test leaves out says, in its skip
// message, that `make check` runs it, so make test's summary lists it under that command and
// nothing that checks a step leaves make test silently.
func TestShortSkipsNameMakeCheck(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, dir := range []string{"shared", "scripts", "steps"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range shortSkip.FindAllStringSubmatch(string(src), -1) {
				found++
				if !strings.Contains(m[1], "`make check`") {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s: a test -short skips says %s; say that `make check` runs it", rel, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 5 {
		t.Errorf("found %d tests that -short skips; the pattern no longer finds them", found)
	}
}
