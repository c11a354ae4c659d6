package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestEarlierTranscriptAgainstTheNextStep checks what a chapter says of the step before's
// transcript run against its own step, as chapter 2 has the reader run `make check-step 1`
// against step 2: the count of sections that fail, and of all, must be what check-step prints.
func TestEarlierTranscriptAgainstTheNextStep(t *testing.T) {
	root, steps := stepsUnderTest(t)
	claim := regexp.MustCompile("`check-step: (\\d+) of (\\d+) sections failed`")
	checked := 0
	for i := 1; i < len(steps); i++ {
		prev, step := steps[i-1], steps[i]
		chapters, _ := filepath.Glob(filepath.Join(root, "guide", fmt.Sprintf("%02d-*.md", step.Number)))
		for _, chapter := range chapters {
			text, err := os.ReadFile(chapter)
			if err != nil {
				t.Fatal(err)
			}
			m := claim.FindSubmatch(text)
			if m == nil {
				continue
			}
			checked++
			wantFailed, _ := strconv.Atoi(string(m[1]))
			wantAll, _ := strconv.Atoi(string(m[2]))
			t.Run(step.Name, func(t *testing.T) {
				sections, err := ParseFile(prev.Transcript())
				if err != nil {
					t.Fatal(err)
				}
				_, env := startStep(t, root, step, modes(t, root, step)[0])
				failed := 0
				for _, s := range sections {
					if Run(context.Background(), s, env) != nil {
						failed++
					}
				}
				if failed != wantFailed || len(sections) != wantAll {
					t.Errorf("%s says `check-step: %d of %d sections failed` for %s's transcript against %s; it prints check-step: %d of %d sections failed",
						filepath.Base(chapter), wantFailed, wantAll, prev.Name, step.Name, failed, len(sections))
				}
			})
		}
	}
	if checked == 0 {
		t.Error("no chapter quotes check-step's count for the step before's transcript; chapter 2 did, for make check-step 1 against step 2")
	}
}
