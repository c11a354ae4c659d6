package transcript

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestHelp runs every step with -h, as a new user does first: it must exit 0 and list each
// flag once, with its default at most once. A usage that repeats the default, or ends in
// "error: flag: help requested", is the first thing a new user sees.
func TestHelp(t *testing.T) {
	root, steps := stepsUnderTest(t)
	flagLine := regexp.MustCompile(`(?m)^  (-[a-z-]+)`)
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			// No VAULTMCP_ variables: the defaults printed are the program's own.
			cmd := exec.Command(binary(t, root, step), "-h")
			cmd.Env = []string{}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("-h: %v; want exit status 0\n%s", err, out)
			}
			usage := string(out)
			if strings.Contains(usage, "error") {
				t.Errorf("-h printed an error:\n%s", usage)
			}
			seen := map[string]bool{}
			for _, m := range flagLine.FindAllStringSubmatch(usage, -1) {
				if seen[m[1]] {
					t.Errorf("flag %s is listed twice:\n%s", m[1], usage)
				}
				seen[m[1]] = true
			}
			if !seen["-addr"] {
				t.Errorf("-h does not list -addr:\n%s", usage)
			}
			for _, entry := range strings.Split(usage, "\n  -")[1:] {
				if n := strings.Count(entry, "default"); n > 1 {
					t.Errorf("this flag gives its default %d times:\n  -%s", n, entry)
				}
			}
		})
	}
}
