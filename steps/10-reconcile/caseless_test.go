//go:build unix

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/shared/steptest"
)

// TestEveryToolOnACaselessDisk runs the server on a disk that ignores case and Unicode form,
// as macOS and Windows do (a build with -tags simulate_caseless; see shared/vault). There the
// disk alone opens a path in any spelling, so a tool that trusted it would read the note and
// then miss its links and sections. Every tool must answer another spelling exactly as it
// answers the note's own, naming the note as the vault spells it.
func TestEveryToolOnACaselessDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server; `make check` runs it")
	}
	bin := buildServer(t, "simulate_caseless")
	url, _ := startBuilt(t, exec.Command(bin, "-vault", steptest.CopyVault(t), "-addr", "127.0.0.1:0",
		"-embedder", "offline", "-db", filepath.Join(t.TempDir(), "index.db")))
	waitReady(t, url)

	tool := func(name, arg string, rest ...any) func(string) (string, any) {
		return func(value string) (string, any) {
			args := map[string]any{arg: value}
			for i := 0; i+1 < len(rest); i += 2 {
				args[rest[i].(string)] = rest[i+1]
			}
			return "tools/call", map[string]any{"name": name, "arguments": args}
		}
	}
	readResource := func(uri string) (string, any) { return "resources/read", map[string]any{"uri": uri} }
	nfd := norm.NFD.String
	for _, c := range []struct {
		ask          func(string) (method string, params any)
		own          string // the vault's own spelling
		want         string // in the answer to it
		otherSpelled []string
	}{
		{tool("get_note", "path"), "Garden/Tomatoes.md", `\"path\":\"Garden/Tomatoes.md\"`,
			[]string{"garden/tomatoes.md", "GARDEN/TOMATOES", `garden\Tomatoes.MD`}},
		{tool("get_note", "path"), "Kitchen/Crème fraîche.md", `\"path\":\"Kitchen/Crème fraîche.md\"`,
			[]string{nfd("Kitchen/Crème fraîche.md"), nfd("KITCHEN/CRÈME FRAÎCHE"), "kitchen/crème fraîche"}},
		{tool("get_backlinks", "path"), "Garden/Tomatoes.md", `"from":"Garden/Planting calendar.md"`,
			[]string{"garden/tomatoes.md", "GARDEN/TOMATOES", nfd("garden/tomatoes")}},
		{tool("get_backlinks", "path"), "Kitchen/Crème fraîche.md", `"from":"Daily/2026-03-15.md"`,
			[]string{nfd("Kitchen/Crème fraîche.md"), nfd("KITCHEN/CRÈME FRAÎCHE")}},
		{tool("search_vault", "folder", "query", "how do I make the bread rise"), "Kitchen/Bread", `"path":"Kitchen/Bread/`,
			[]string{"kitchen/bread", "KITCHEN/BREAD/", `kitchen\Bread`}},
		{tool("search_vault", "tag", "query", "how do I make the bread rise"), "bread", `"path":"Kitchen/Bread/`,
			[]string{"BREAD", "#Bread"}},
		{readResource, "note:///Garden/Tomatoes.md", `"uri":"note:///Garden/Tomatoes.md"`,
			[]string{"note:///garden/tomatoes.md", "note:///GARDEN/Tomatoes"}},
	} {
		method, params := c.ask(c.own)
		own, rpcErr := steptest.RPC(t, url, method, params)
		if rpcErr != nil || !strings.Contains(string(own), c.want) || strings.Contains(string(own), `"isError":true`) {
			t.Errorf("%s %v = %.300s (error %v); want an answer holding %s", method, params, own, rpcErr, c.want)
			continue
		}
		for _, spelling := range c.otherSpelled {
			method, params := c.ask(spelling)
			if got, rpcErr := steptest.RPC(t, url, method, params); rpcErr != nil || !bytes.Equal(got, own) {
				t.Errorf("%s %v = %.300s (error %v)\nwant the answer to %q: %.300s", method, params, got, rpcErr, c.own, own)
			}
		}
	}
}
