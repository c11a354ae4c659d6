package guard_test

import (
	"log"
	"log/slog"
	"net"
	"net/http"

	"vaultmcp/shared/guard"
)

// A server puts its MCP handler behind the wall like this.
func Example() {
	addr := "127.0.0.1:3000" // the -addr flag
	if err := guard.CheckListenAddr(addr); err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}

	var mcpHandler http.Handler // server.NewStreamableHTTPServer(...) from mcp-go
	guarded, err := guard.Hostile(mcpHandler, guard.Config{
		Addr:    ln.Addr(), // the real port, even when addr asked for port 0
		Origins: []string{"http://localhost:6274"},
		Logger:  slog.Default(),
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", guarded)
	log.Fatal(guard.NewServer(mux).Serve(ln))
}

// Host and Origin alone keep web pages out, without the limits Hostile adds.
func ExampleLocal() {
	ln, err := net.Listen("tcp", "127.0.0.1:3000")
	if err != nil {
		log.Fatal(err)
	}
	var mcpHandler http.Handler // server.NewStreamableHTTPServer(...) from mcp-go
	local, err := guard.Local(mcpHandler, ln.Addr(), slog.Default())
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", local)
	log.Fatal(http.Serve(ln, mux))
}
