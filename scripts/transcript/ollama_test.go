package transcript

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"vaultmcp/shared/ollamatest"
)

// autoTest is a test every step that embeds carries, whose server starts in auto mode with no
// stand-in of its own: what a test does when it is not about the embedder.
const autoTest = "TestReadResourceStaysInsideTheVault"

// TestStepTestsLeaveTheMachinesOllamaAlone runs autoTest in every step that embeds, while an
// Ollama stand-in answers at OLLAMA_HOST, as a reader's Ollama or `make standin` would. A
// step's tests must point their servers at an address of their own
// (steptest.MainWithoutOllama), so that what runs on the machine never changes what they see:
// the stand-in must hear nothing.
func TestStepTestsLeaveTheMachinesOllamaAlone(t *testing.T) {
	root, steps := stepsUnderTest(t)
	var packages []string
	for _, step := range steps {
		if modes(t, root, step)[0] != plain {
			packages = append(packages, "./steps/"+step.Name)
		}
	}
	if len(packages) == 0 {
		t.Fatal("no step has an -embedder flag")
	}
	var heard atomic.Int64
	standIn := ollamatest.NewHandler(ollamatest.Options{})
	machine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heard.Add(1)
		standIn.ServeHTTP(w, r)
	}))
	defer machine.Close()

	cmd := exec.Command("go", append([]string{"test", "-count=1", "-v", "-run", "^" + autoTest + "$"}, packages...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+machine.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -run %s: %v\n%s", autoTest, err, out)
	}
	if ran := strings.Count(string(out), "--- PASS: "+autoTest+" "); ran != len(packages) {
		t.Fatalf("%s passed in %d of %d steps; it must run in each:\n%s", autoTest, ran, len(packages), out)
	}
	if n := heard.Load(); n > 0 {
		t.Errorf("the Ollama at OLLAMA_HOST got %d requests from the steps' tests; start each step's tests with steptest.MainWithoutOllama in its TestMain", n)
	}
}
