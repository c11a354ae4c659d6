package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
)

// suite is one release of @modelcontextprotocol/conformance, installed under an npm alias in
// scripts/interop/node_modules, and the scenarios we run from it.
type suite struct {
	alias     string
	revision  string // passed as --spec-version
	scenarios []string
	version   string // read from its package.json
	script    string // its dist/index.js
}

// The 0.2 suite runs a scenario that 2025-11-25 already had (tools-list, dns-rebinding-
// protection) at that revision unless --spec-version says otherwise, so every run names its
// revision. 0.1.16 speaks 2025-11-25 whatever the flag says.
var suites = []*suite{
	{alias: "conformance-2025", revision: "2025-11-25",
		scenarios: []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "resources-list", "completion-complete",
			"resources-subscribe", "resources-unsubscribe"}},
	{alias: "conformance-2026", revision: "2026-07-28",
		scenarios: []string{"server-stateless", "tools-list", "dns-rebinding-protection", "caching", "http-header-validation",
			"resources-list", "sep-2164-resource-not-found", "completion-complete"}},
}

// needs names, for a scenario about one feature, what server/discover must declare for the
// scenario to apply to a step: a step without resources has nothing for resources-list to
// check. The other resource scenarios (resources-read-text, resources-templates-read) read
// URIs only the suite's reference server has, such as test://static-text. completion-complete
// completes a prompt's argument; with no prompts, the answer is no values, which it accepts.
var needs = map[string]string{
	"resources-list":              "resources",
	"sep-2164-resource-not-found": "resources",
	"completion-complete":         "completions",
	"resources-subscribe":         "resources.subscribe",
	"resources-unsubscribe":       "resources.subscribe",
}

// scenarioTimeout bounds one run of the suite; a scenario takes about a second here.
const scenarioTimeout = 2 * time.Minute

// TestConformance runs the official MCP conformance suite against every step, at both
// revisions a client may speak: 2025-11-25, with the initialize handshake, and the stateless
// 2026-07-28. Only the scenarios that apply to a server with tools of its own run; the others
// call tools, prompts and resources that only the suite's reference server has. Every check
// must succeed, except the ones excused in conformance_excuses_test.go.
func TestConformance(t *testing.T) {
	skipIfShort(t)
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "scripts", "interop")
	node, err := conformanceNode(dir)
	if err != nil {
		skipOrFail(t, err.Error())
	}
	for _, s := range suites {
		if err := s.load(dir); err != nil {
			skipOrFail(t, err.Error())
		}
	}
	steps, err := transcript.Steps(root)
	if err != nil || len(steps) == 0 {
		t.Fatalf("no steps found under %s: %v", root, err)
	}

	bin := t.TempDir()
	var ledger ledger
	began := time.Now()
	// Cleanup runs once every parallel step below has finished.
	t.Cleanup(func() {
		t.Logf("conformance: %d of %d steps, %d scenario runs, %s", ledger.finished, len(steps), ledger.runs, time.Since(began).Round(time.Second))
		if ledger.finished < len(steps) {
			t.Logf("not every step ran every scenario, so unused excuses are not reported")
			return
		}
		for _, e := range excuses {
			if !ledger.used[e.key()] {
				t.Errorf("no step needed the excuse for %s: delete it from conformance_excuses_test.go", e.key())
			}
		}
	})

	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel()
			srv := startForConformance(t, root, node, step, bin)
			for _, s := range suites {
				for _, scenario := range s.scenarios {
					if feature := needs[scenario]; feature != "" && srv.lacks(feature) == nil {
						t.Logf("%s: not run, the step declares no %s", s.title(scenario), feature)
						continue
					}
					srv.run(t, s, scenario, &ledger)
				}
			}
			ledger.finish()
		})
	}
}

// stepServer is a step running for the suites, with what the excuses ask about it.
type stepServer struct {
	step       transcript.Step
	url        string
	node, root string
	caps       capabilities // what server/discover declares; nil when it failed
	capsErr    error
}

func startForConformance(t *testing.T, root, node string, step transcript.Step, bin string) *stepServer {
	t.Helper()
	exe, err := transcript.Build(t.Context(), root, step, bin)
	if err != nil {
		t.Fatal(err)
	}
	// A private vault and index, as the transcripts use: a suite may call create_note.
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatalf("copy sample vault: %v", err)
	}
	env := []string{"VAULT_PATH=" + vault, "VAULTMCP_DB=" + filepath.Join(dir, "data", "index.db"), "VAULTMCP_EMBEDDER=offline"}
	srv, err := transcript.Start(exe, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Stop()
		if t.Failed() {
			t.Logf("%s server log:\n%s", step.Name, srv.Logs())
		}
	})
	s := &stepServer{step: step, url: srv.URL, node: node, root: root}
	s.caps, s.capsErr = discover(t.Context(), srv.URL)
	return s
}

// run runs one scenario, once, and reports every check that is neither SUCCESS nor excused.
func (s *stepServer) run(t *testing.T, su *suite, scenario string, l *ledger) {
	checks, err := su.run(t.Context(), s.node, s.url, scenario, t.TempDir())
	l.ran()
	if err != nil {
		t.Errorf("%s: %v\n%s", su.title(scenario), err, s.reproduce(su, scenario))
		return
	}
	var problems, excused []string
	for _, c := range checks {
		if c.Status == "SUCCESS" {
			continue
		}
		e := findExcuse(su.revision, scenario, c)
		if e == nil {
			problems = append(problems, c.String())
			continue
		}
		if err := e.while(s, c); err != nil {
			problems = append(problems, fmt.Sprintf("%s\n    the excuse %q holds only while %v", c, e.why, err))
			continue
		}
		excused = append(excused, e.key())
	}
	l.use(excused)
	if len(problems) > 0 {
		if su.revision == "2026-07-28" && s.capsErr != nil {
			problems = append([]string{fmt.Sprintf("  (this step does not serve 2026-07-28: %v)", s.capsErr)}, problems...)
		}
		t.Errorf("%s:\n%s\n%s", su.title(scenario), strings.Join(problems, "\n"), s.reproduce(su, scenario))
		return
	}
	t.Logf("%s: %d checks, %d excused", su.title(scenario), len(checks), len(excused))
}

// reproduce says how a reader runs the same scenario by hand against `make step N`.
func (s *stepServer) reproduce(su *suite, scenario string) string {
	node := s.node
	if rel, err := filepath.Rel(s.root, node); err == nil && filepath.IsLocal(rel) {
		node = rel
	}
	script := filepath.Join("scripts", "interop", "node_modules", su.alias, "dist", "index.js")
	return fmt.Sprintf("reproduce: run `make step %d`, then from the repository root:\n  %s %s server --url http://127.0.0.1:3000/mcp --scenario %s --spec-version %s",
		s.step.Number, node, script, scenario, su.revision)
}

func (su *suite) title(scenario string) string {
	return fmt.Sprintf("conformance %s, %s at %s", su.version, scenario, su.revision)
}

func (su *suite) load(dir string) error {
	manifest, err := os.ReadFile(filepath.Join(dir, "node_modules", su.alias, "package.json"))
	if err != nil {
		return fmt.Errorf("the conformance suite %s is not installed; run `make interop-deps`", su.alias)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(manifest, &pkg); err != nil {
		return fmt.Errorf("%s/package.json: %v", su.alias, err)
	}
	su.version = pkg.Version
	su.script = filepath.Join(dir, "node_modules", su.alias, "dist", "index.js")
	return nil
}

// run runs one scenario against url and returns the checks it wrote. The suite exits 1 when a
// check fails; that is what the checks say, so only a missing checks.json is an error.
func (su *suite) run(ctx context.Context, node, url, scenario, out string) ([]conformanceCheck, error) {
	ctx, cancel := context.WithTimeout(ctx, scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, su.script, "server", "--url", url, "--scenario", scenario,
		"--spec-version", su.revision, "-o", out)
	cmd.WaitDelay = 5 * time.Second
	output, runErr := cmd.CombinedOutput()
	// The suite writes DIR/server-<scenario>-<time>/checks.json.
	found, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(found) != 1 {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("did not finish within %s", scenarioTimeout)
		}
		return nil, fmt.Errorf("wrote no checks.json (%v):\n%s", runErr, output)
	}
	data, err := os.ReadFile(found[0])
	if err != nil {
		return nil, err
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(data, &checks); err != nil {
		return nil, fmt.Errorf("%s: %v", found[0], err)
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("ran no checks:\n%s", output)
	}
	return checks, nil
}

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

func (c conformanceCheck) String() string {
	msg := strings.ReplaceAll(strings.TrimSpace(c.ErrorMessage), "\n", "\n    ")
	s := fmt.Sprintf("  %s (%s) %s: %s", c.ID, c.Name, c.Status, msg)
	var details bytes.Buffer
	if json.Compact(&details, c.Details) == nil && details.String() != "null" && details.String() != "{}" {
		d := details.String()
		if len(d) > 400 {
			d = d[:400] + "…"
		}
		s += "\n    details: " + d
	}
	return s
}

// capabilities are the server's capabilities as server/discover declares them.
type capabilities map[string]map[string]any

// discover asks the server what it declares, at 2026-07-28.
func discover(ctx context.Context, url string) (capabilities, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var answer struct {
		Result *struct{ Capabilities capabilities }
		Error  *struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, fmt.Errorf("server/discover: HTTP %s, %v", resp.Status, err)
	}
	if answer.Result == nil {
		msg := "no result"
		if answer.Error != nil {
			msg = answer.Error.Message
		}
		return nil, fmt.Errorf("server/discover failed: HTTP %s, %s", resp.Status, msg)
	}
	return answer.Result.Capabilities, nil
}

// ledger counts what the parallel steps did, for the summary at the end.
type ledger struct {
	mu       sync.Mutex
	used     map[string]bool
	runs     int
	finished int
}

func (l *ledger) use(keys []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.used == nil {
		l.used = map[string]bool{}
	}
	for _, k := range keys {
		l.used[k] = true
	}
}

func (l *ledger) ran()    { l.mu.Lock(); l.runs++; l.mu.Unlock() }
func (l *ledger) finish() { l.mu.Lock(); l.finished++; l.mu.Unlock() }

// conformanceNode finds a node that runs the suites, which need Node 22: the one `make
// interop-deps` installs beside them on Linux x64, else node on PATH if it is recent enough.
func conformanceNode(dir string) (string, error) {
	local := filepath.Join(dir, "node_modules", ".bin", "node")
	if _, err := os.Stat(local); err == nil {
		return local, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed and the conformance suites need Node >= 22; run `make interop-deps` (it brings Node 22 on Linux x64) or install Node 22")
	}
	out, err := exec.Command(node, "--version").Output()
	var major int
	if _, scanErr := fmt.Sscanf(string(out), "v%d", &major); err != nil || scanErr != nil || major < 22 {
		return "", fmt.Errorf("%s is %q and the conformance suites need Node >= 22; run `make interop-deps` (it brings Node 22 on Linux x64) or install Node 22", node, bytes.TrimSpace(out))
	}
	return node, nil
}
