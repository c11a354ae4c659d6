package steptest

import (
	"fmt"
	"net"
	"os"
	"testing"
)

// MainWithoutOllama runs a package's tests, from its TestMain, with OLLAMA_HOST pointing at an
// address of the tests' own that closes every connection at once: Ollama does not answer there,
// as on a machine without it. So a server a test starts without a stand-in of its own falls
// back to the offline embedder in auto mode whatever listens on the machine (the reader's
// Ollama, or `make standin`), and stopping that mid-run changes nothing. The programs the tests
// start inherit the setting. A test with its own stand-in points OLLAMA_HOST at it with
// t.Setenv, which puts this address back when the test ends.
func MainWithoutOllama(m *testing.M) {
	host, stop, err := NoOllama()
	if err != nil {
		fmt.Fprintln(os.Stderr, "steptest:", err)
		os.Exit(1)
	}
	os.Setenv("OLLAMA_HOST", host)
	code := m.Run()
	stop()
	os.Exit(code)
}

// NoOllama listens on a free loopback port and closes every connection it accepts. It returns
// the address as OLLAMA_HOST takes it, and stop, which closes the listener. A port held open is
// one no other program can take while the tests run, as a port merely found free could be.
func NoOllama() (host string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("an address for OLLAMA_HOST where Ollama does not answer: %w", err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed by stop
			}
			conn.Close()
		}
	}()
	return "http://" + ln.Addr().String(), func() { ln.Close() }, nil
}
