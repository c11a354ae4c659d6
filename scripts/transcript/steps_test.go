package transcript

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"vaultmcp/shared/ollamatest"
)

// These tests run every step's transcript against the step itself, started fresh on a free
// port over a copy of the sample vault, exactly as `make check-step N` runs it against a
// reader's server.

var (
	buildMu  sync.Mutex
	binDir   string
	binaries = map[string]string{} // step name → binary, built once per test run
)

func binary(t testing.TB, root string, step Step) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := binaries[step.Name]; ok {
		return bin
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "vaultmcp-steps-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
		// The first call builds every step with one go build, which links them in parallel.
		// If one does not build, each is built alone below, so only its own tests fail.
		if steps, err := Steps(root); err == nil {
			if bins, err := BuildAll(context.Background(), root, steps, binDir); err == nil {
				binaries = bins
				if bin, ok := binaries[step.Name]; ok {
					return bin
				}
			}
		}
	}
	bin, err := Build(context.Background(), root, step, binDir)
	if err != nil {
		t.Fatal(err)
	}
	binaries[step.Name] = bin
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func stepsUnderTest(t *testing.T) (string, []Step) {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := Steps(root)
	if err != nil || len(steps) == 0 {
		t.Fatalf("no steps found under %s: %v", root, err)
	}
	return root, steps
}

// mode says how a step that searches gets its embeddings.
type mode string

const (
	plain   mode = ""        // a step without an -embedder flag
	offline mode = "offline" // the built-in lexical embedder
	standIn mode = "ollama"  // the real Ollama client, talking to the Ollama stand-in
)

// modes lists the ways to run a step: steps that embed run both offline and through the real
// Ollama client against the stand-in, and must print the same transcript either way.
func modes(t *testing.T, root string, step Step) []mode {
	usage, _ := exec.Command(binary(t, root, step), "-h").CombinedOutput()
	if strings.Contains(string(usage), "-embedder") {
		return []mode{offline, standIn}
	}
	return []mode{plain}
}

// startStep runs a step over a private copy of the sample vault, so a step that writes
// cannot change the vault the next test reads.
func startStep(t testing.TB, root string, step Step, m mode) (*Server, Env) {
	t.Helper()
	env, vault := stepEnv(t, root, step, m)
	srv, err := Start(binary(t, root, step), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Stop()
		if t.Failed() {
			t.Logf("%s server log:\n%s", step.Name, srv.Logs())
		}
	})
	return srv, Env{MCP: srv.URL, Vault: vault}
}

// stepEnv prepares what a step runs with, over either transport: a private copy of the
// sample vault, its own index, and the embedder for the mode.
func stepEnv(t testing.TB, root string, step Step, m mode) (env []string, vault string) {
	t.Helper()
	dir := t.TempDir()
	vault = filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatalf("copy sample vault: %v", err)
	}
	env = []string{"VAULT_PATH=" + vault, "VAULTMCP_DB=" + filepath.Join(dir, "data", "index.db")}
	switch m {
	case offline:
		env = append(env, "VAULTMCP_EMBEDDER=offline")
	case standIn:
		ollama := ollamatest.NewServer(ollamatest.Options{})
		t.Cleanup(func() {
			if len(ollama.Calls()) == 0 {
				t.Errorf("%s never called the Ollama stand-in, so the Ollama client was not tested", step.Name)
			}
			ollama.Close()
		})
		// The stand-in's vectors are the offline embedder's: from step 6, where the server
		// measures its score floor on the index, it finds the offline embedder's floor by itself.
		env = append(env, "VAULTMCP_EMBEDDER=ollama", "OLLAMA_HOST="+ollama.URL)
	}
	return env, vault
}

func TestTranscripts(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		for _, m := range modes(t, root, step) {
			name := step.Name
			if m != plain {
				name += "/" + string(m)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each run has its own port, vault and index
				sections, err := ParseFile(step.Transcript())
				if err != nil {
					t.Fatal(err)
				}
				_, env := startStep(t, root, step, m)
				if m != standIn { // the tools do not depend on the embedder
					toolsSeen.Store(step.Name, toolsList(t, env.MCP))
				}
				for _, s := range sections {
					if f := Run(context.Background(), s, env); f != nil {
						t.Errorf("%s\n(against a running `make step %d`, use MCP=http://127.0.0.1:3000/mcp)", f.Error(), step.Number)
					}
				}
			})
		}
	}
}

// TestToolsListBudget keeps each step's tools within the budget (see budget_test.go): a
// description that grows, a schema field, a new tool, each has to fit. It comes after
// TestTranscripts, whose servers it reads.
func TestToolsListBudget(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			var tools []byte
			if seen, ok := toolsSeen.Load(step.Name); ok {
				tools = seen.([]byte)
			} else {
				_, env := startStep(t, root, step, offline)
				tools = toolsList(t, env.MCP)
			}
			t.Logf("%s: tools/list is %d bytes, about %d tokens", step.Name, len(tools), len(tools)/bytesPerToken)
			if len(tools) > toolsListBudget {
				t.Errorf("%s: tools/list is %d bytes, over its budget of %d; make descriptions and schemas say less:\n%s",
					step.Name, len(tools), toolsListBudget, tools)
			}
		})
	}
}

// TestEachStepAddsWhatItClaims checks the chain of transcripts: step N keeps every section
// of step N-1 (possibly with different expected output, which the guide explains), and each
// section step N adds fails against step N-1. So the new code is what makes it pass.
func TestEachStepAddsWhatItClaims(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for i := 1; i < len(steps); i++ {
		prev, step := steps[i-1], steps[i]
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel() // each run has its own port, vault and index
			before, err := ParseFile(prev.Transcript())
			if err != nil {
				t.Fatal(err)
			}
			after, err := ParseFile(step.Transcript())
			if err != nil {
				t.Fatal(err)
			}
			kept := map[string]bool{}
			for _, s := range after {
				kept[s.Title] = true
			}
			retired, err := retiredSections(step.Transcript())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range before {
				if !kept[s.Title] && !retired[s.Title] {
					t.Errorf("%s drops the section %q of %s; a section a step no longer shows is named in a %q line at the top of its transcript", step.Name, s.Title, prev.Name, retiresPrefix)
				}
				delete(retired, s.Title)
			}
			for title := range retired {
				t.Errorf("%s retires %q, which %s does not have", step.Name, title, prev.Name)
			}
			previous := map[string]bool{}
			for _, s := range before {
				previous[s.Title] = true
			}
			_, env := startStep(t, root, prev, modes(t, root, prev)[0])
			added := 0
			for _, s := range after {
				if previous[s.Title] {
					continue
				}
				added++
				if Run(context.Background(), s, env) == nil {
					t.Errorf("section %q of %s already passes against %s: it does not show what %s adds", s.Title, step.Name, prev.Name, step.Name)
				}
			}
			if added == 0 {
				t.Errorf("%s adds no transcript section", step.Name)
			}
		})
	}
}

// retiresPrefix starts a comment line, before a transcript's first section, naming a section
// of the step before that this step no longer shows, because what it showed is gone.
const retiresPrefix = "# retires: "

// retiredSections reads the titles a transcript retires.
func retiredSections(name string) (map[string]bool, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	retired := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if title, ok := strings.CutPrefix(line, retiresPrefix); ok {
			retired[title] = true
		}
	}
	return retired, nil
}
