package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// toolsListBudget is what a step's tools/list may weigh: the compact JSON of its tools, which a
// client sends the model with every turn. 5 KB is about 1,250 tokens, for six tools.
const toolsListBudget = 5000

// bytesPerToken turns bytes into tokens by the usual rule of thumb for English text and JSON,
// about four bytes a token; a model's own tokenizer gives somewhat more or fewer.
const bytesPerToken = 4

// toolsList asks the server at url for its tools and returns them as compact JSON.
func toolsList(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result struct{ Tools json.RawMessage }
	}
	var tools bytes.Buffer
	if err := json.Unmarshal(body, &msg); err != nil || json.Compact(&tools, msg.Result.Tools) != nil {
		t.Fatalf("tools/list: %v\n%s", err, body)
	}
	return tools.Bytes()
}

// toolsSeen keeps the tools/list of each step that TestTranscripts started, so that
// TestToolsListBudget, which runs after it, need not start every step again: a step's tools
// are the same on every start.
var toolsSeen sync.Map // step name → []byte

// BenchmarkToolsList times a tools/list on each step and reports what it weighs.
func BenchmarkToolsList(b *testing.B) {
	root, err := Root()
	if err != nil {
		b.Fatal(err)
	}
	steps, err := Steps(root)
	if err != nil {
		b.Fatal(err)
	}
	for _, step := range steps {
		b.Run(step.Name, func(b *testing.B) {
			_, env := startStep(b, root, step, offline)
			var tools []byte
			for b.Loop() {
				tools = toolsList(b, env.MCP)
			}
			b.ReportMetric(float64(len(tools)), "bytes")
			b.ReportMetric(float64(len(tools)/bytesPerToken), "tokens")
		})
	}
}
