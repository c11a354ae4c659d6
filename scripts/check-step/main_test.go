package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"testing"
)

// TestNoServerSaysHowToStartIt: with no server to check, check-step says what starts one
// where it looks, and from step 4 on, with the embedder the transcripts show, which needs no
// Ollama.
func TestNoServerSaysHowToStartIt(t *testing.T) {
	const atDefault = "http://127.0.0.1:3000/mcp"
	for n, want := range map[int]string{
		1: "make step 1", 3: "make step 3", 4: "make step 4 EMBEDDER=offline", 10: "make step 10 EMBEDDER=offline",
	} {
		if got := startCommand(n, atDefault); got != want {
			t.Errorf("startCommand(%d, %s) = %q, want %q", n, atDefault, got, want)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = run(context.Background(), []string{"check-step", "-mcp", "http://" + addr + "/mcp", "4"}, os.Getenv, &bytes.Buffer{})
	want := "start it first with `make step 4 EMBEDDER=offline ADDR=" + addr + "` in another terminal"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check-step -mcp http://%s/mcp 4 = %v, want it to say %q", addr, err, want)
	}
}
