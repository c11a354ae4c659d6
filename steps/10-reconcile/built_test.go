//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"vaultmcp/shared/steptest"
)

// buildServer builds this step with build tags that stand in for another system, for a test
// that runs the server as a program of its own.
func buildServer(t *testing.T, tags string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %s: %v\n%s", tags, err, out)
	}
	return bin
}

// startBuilt starts cmd, a built server, and returns its MCP endpoint and a function that
// reads its log so far. When the test ends, the server is stopped as Ctrl-C stops it.
func startBuilt(t *testing.T, cmd *exec.Cmd) (url string, log func() string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("the server did not stop cleanly: %v", err)
		}
	})
	log = func() string {
		data, _ := os.ReadFile(logPath)
		return string(data)
	}
	steptest.Eventually(t, steptest.Patience, func() string {
		if m := regexp.MustCompile(`msg=listening url=(\S+)`).FindStringSubmatch(log()); m != nil {
			url = m[1]
			return ""
		}
		return "the server did not log its url:\n" + log()
	})
	return url, log
}
