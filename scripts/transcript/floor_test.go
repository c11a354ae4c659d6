package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/steptest"
)

// TestFloorRecipe runs what chapter 6 asks a reader to try, to see chance: step 6 over the
// sample vault, offline, the vector leg alone and a floor that cuts nothing. The figures the
// chapter quotes must be the ones the tool prints: the best score of nonsense, below the
// measured floor the chapter quotes, and that of a real question, above it.
func TestFloorRecipe(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "06-search.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(chapter)), " ")
	figure := func(pattern string) float64 {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("guide/06-search.md no longer matches %q; keep the recipe and this test together", pattern)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	if !strings.Contains(text, "make step 6 EMBEDDER=offline VAULTMCP_RANK=vector VAULTMCP_MIN_SCORE=0.001") {
		t.Fatal("guide/06-search.md no longer shows the recipe's command; keep the recipe and this test together")
	}
	floor := figure(`msg="score floor measured" min_score=([0-9]+\.[0-9]+) model=offline-lexical-v1`)
	nonsense := figure("`xyzzy plugh` finds some, the best at ([0-9]+\\.[0-9]+)")
	question := figure("`why is my bread dense` finds the dense loaf's log first, at ([0-9]+\\.[0-9]+)")

	step, err := FindStep(root, 6)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := stepEnv(t, root, step, offline)
	srv, err := Start(binary(t, root, step), append(env, "VAULTMCP_RANK=vector", "VAULTMCP_MIN_SCORE=0.001"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	best := func(query string) (path string, score float64) {
		t.Helper()
		raw, rpcErr := steptest.RPC(t, srv.URL, "tools/call", map[string]any{"name": "search_vault", "arguments": map[string]any{"query": query}})
		var result struct {
			StructuredContent struct {
				Results []struct {
					Path  string
					Score float64
				}
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(raw, &result); rpcErr != nil || err != nil {
			t.Fatalf("search_vault(%q) = %s, %v (%v)", query, raw, rpcErr, err)
		}
		results := result.StructuredContent.Results
		if len(results) == 0 {
			t.Fatalf("search_vault(%q) found nothing with a floor of 0.001; the chapter shows notes", query)
		}
		return results[0].Path, results[0].Score
	}
	if _, got := best("xyzzy plugh"); got != nonsense || got >= floor {
		t.Errorf("xyzzy plugh: best score %.3f; chapter 6 says %.3f, under its measured floor %.3f", got, nonsense, floor)
	}
	if path, got := best("why is my bread dense"); got != question || got <= floor || !strings.Contains(path, "Dense loaf") {
		t.Errorf("why is my bread dense: first %s at %.3f; chapter 6 says the dense loaf at %.3f, over its measured floor %.3f", path, got, question, floor)
	}

	// The floor itself, as make step 6 EMBEDDER=offline logs it at its first search.
	plain, _ := startStep(t, root, step, offline)
	if _, rpcErr := steptest.RPC(t, plain.URL, "tools/call", map[string]any{"name": "search_vault", "arguments": map[string]any{"query": "compost"}}); rpcErr != nil {
		t.Fatalf("search_vault: %v", rpcErr)
	}
	measured := regexp.MustCompile(`msg="score floor measured" min_score=([0-9.]+) model=offline-lexical-v1`)
	var logged []string
	for deadline := time.Now().Add(10 * time.Second); logged == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		logged = measured.FindStringSubmatch(plain.Logs())
	}
	if logged == nil {
		t.Fatalf("step 6 logged no score floor at its first search:\n%s", plain.Logs())
	}
	if got, _ := strconv.ParseFloat(logged[1], 64); got != floor {
		t.Errorf("step 6 logs min_score=%s; chapter 6 shows min_score=%.3f", logged[1], floor)
	}
}
