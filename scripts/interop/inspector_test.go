package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
)

// TestInspectorCLI reads a note as a resource with the MCP Inspector's command line, as a
// reader checking a server by hand would (`mcp-inspector --cli URL --method resources/read
// --uri URI`), over HTTP and over stdio, on every step that offers resources. A note that
// does not exist must come back as an error that says so.
func TestInspectorCLI(t *testing.T) {
	skipIfShort(t)
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "scripts", "interop")
	node, err := conformanceNode(dir) // the Inspector, too, needs Node 22
	if err != nil {
		skipOrFail(t, err.Error())
	}
	launcher := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(launcher); err != nil {
		skipOrFail(t, "the MCP Inspector is not installed (run `make interop-deps`)")
	}
	steps, err := transcript.Steps(root)
	if err != nil || len(steps) == 0 {
		t.Fatalf("no steps found under %s: %v", root, err)
	}
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel()
			exe, stdio := binary(t, root, step)
			work := t.TempDir()
			vault := filepath.Join(work, "vault")
			if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
				t.Fatal(err)
			}
			env := []string{"VAULT_PATH=" + vault, "VAULTMCP_DB=" + filepath.Join(work, "index.db"), "VAULTMCP_EMBEDDER=offline"}
			srv, err := transcript.Start(exe, env)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop()
			if caps, err := discover(t.Context(), srv.URL); err != nil || caps["resources"] == nil {
				t.Logf("%s offers no resources (%v): nothing to read", step.Name, err)
				return
			}
			inspect := func(target []string, uri string) (stdout, stderr string, err error) {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				args := append(append([]string{launcher, "--cli"}, target...), "--method", "resources/read", "--uri", uri)
				cmd := exec.CommandContext(ctx, node, args...)
				// Where the Inspector keeps its list of servers: not in the reader's home.
				cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(work, "inspector.json"))
				var errOut strings.Builder
				cmd.Stderr = &errOut
				out, err := cmd.Output()
				return string(out), errOut.String(), err
			}
			targets := map[string][]string{"http": {srv.URL}}
			if stdio {
				// Its own index: the server above holds the lock on the other one.
				targets["stdio"] = []string{"-e", env[0], "-e", "VAULTMCP_DB=" + filepath.Join(work, "stdio.db"), "-e", env[2],
					exe, "-transport", "stdio"}
			}
			for transport, target := range targets {
				out, errOut, err := inspect(target, resourceURI)
				var read struct{ Contents []resourceContent }
				if err != nil || json.Unmarshal([]byte(out), &read) != nil {
					t.Errorf("over %s, the Inspector read %s: %v\n%s%s", transport, resourceURI, err, out, errOut)
					continue
				}
				found := false
				for _, c := range read.Contents {
					found = found || c.URI == resourceURI && c.MIMEType == "text/markdown" && strings.Contains(c.Text, resourceText)
				}
				if !found {
					t.Errorf("over %s, the Inspector read %s as %+v; want the note as text/markdown", transport, resourceURI, read.Contents)
				}
				// The Inspector prints a failed call's error on stderr.
				if out, errOut, err := inspect(target, "note:///Garden/Potatoes.md"); err == nil || !strings.Contains(errOut, "not found") {
					t.Errorf("over %s, the Inspector read a missing note: %v\n%s%s\nwant an error that says it is not found", transport, err, out, errOut)
				}
			}
			if t.Failed() {
				t.Logf("server log:\n%s", srv.Logs())
			}
		})
	}
}
