package guard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keepAlive sends one request on conn and reads its answer, leaving the connection open and
// idle, as an HTTP client leaves it between calls.
func keepAlive(t *testing.T, conn net.Conn, port string) {
	t.Helper()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", port, len(message), message)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a request on a connection to keep: status %d", resp.StatusCode)
	}
}

// closedByServer reports which of conns the server has closed: reading one gives its end at
// once, where an open one gives nothing until the deadline.
func closedByServer(conns []net.Conn, wait time.Duration) []bool {
	closed := make([]bool, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Go(func() {
			conn.SetReadDeadline(time.Now().Add(wait))
			_, err := conn.Read(make([]byte, 1))
			closed[i] = err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
		})
	}
	wg.Wait()
	return closed
}

// TestIdleConnectionsDoNotLockOut: 600 connections that do nothing, half of them never having
// sent a byte and half idle after a request, do not keep an ordinary request from being
// answered; and the server has closed all but DefaultMaxConns of them, so neither do they
// hold as many goroutines.
func TestIdleConnectionsDoNotLockOut(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 600 {
		conn, err := net.Dial("tcp", "127.0.0.1:"+srv.port)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, conn)
		if i%2 == 1 {
			keepAlive(t, conn, srv.port)
		}
	}

	// A client with no connection of its own yet, as a real one arrives.
	client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	resp, err := client.Post(srv.url, "application/json", strings.NewReader(message))
	if err != nil {
		t.Fatalf("an ordinary request after 600 idle connections: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != message {
		t.Fatalf("an ordinary request after 600 idle connections: %d %q; want 200 and its answer", resp.StatusCode, body)
	}

	// Every one of the 600 was accepted before the ordinary request was, so the limit has
	// counted them all.
	open := 0
	for _, closed := range closedByServer(conns, 2*time.Second) {
		if !closed {
			open++
		}
	}
	if open >= DefaultMaxConns {
		t.Errorf("%d of the 600 idle connections are still open; want fewer than %d, the limit, which the ordinary request's connection shares", open, DefaultMaxConns)
	}
}

// startLimited serves h with NewServer's settings, but a limit of max connections.
func startLimited(t *testing.T, h http.Handler, max int) (addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h)
	srv.ConnState = newConnLimit(max).track
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestTheIdlestConnectionGoes: past the limit, the connection idle longest is closed, and a
// newer idle one is kept.
func TestTheIdlestConnectionGoes(t *testing.T) {
	var calls atomic.Int32
	addr := startLimited(t, echo(&calls), 2)
	_, port, _ := net.SplitHostPort(addr)
	var conns []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		keepAlive(t, conn, port)
		conns = append(conns, conn)
		time.Sleep(10 * time.Millisecond) // so that the first has been idle longer
	}
	newcomer, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer newcomer.Close()
	keepAlive(t, newcomer, port)
	if closed := closedByServer(conns, time.Second); !closed[0] || closed[1] {
		t.Errorf("closed: the idlest %v, the other %v; want only the idlest closed", closed[0], closed[1])
	}
}

// TestBusyConnectionsRefuseTheNewcomer: when every connection is busy with a request, a new
// one is closed before it is read, and a request is served again once one is free.
func TestBusyConnectionsRefuseTheNewcomer(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	blocked := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") == "hold" {
			started.Done()
			<-release
		}
		w.Write([]byte("{}"))
	})
	addr := startLimited(t, blocked, 2)
	var held sync.WaitGroup
	for range 2 {
		started.Add(1)
		held.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(message))
			req.Header.Set("X-Test", "hold")
			if resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	started.Wait()

	newcomer, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer newcomer.Close()
	if closed := closedByServer([]net.Conn{newcomer}, 5*time.Second); !closed[0] {
		t.Error("a connection past the limit, with every other one busy, was kept open")
	}

	close(release)
	held.Wait()
	resp, err := (&http.Client{Transport: &http.Transport{}}).Post("http://"+addr+"/mcp", "application/json", strings.NewReader(message))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("once the busy requests ended: status %d, want 200", resp.StatusCode)
	}
}
