package guard

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxConns bounds the connections a server from NewServer keeps open at once. One
// user's clients need a handful; a browser keeps at most a few hundred sockets open in all, so
// a page that tries to hold this server's connections idle reaches about this many.
const DefaultMaxConns = 256

// connLimit keeps a server's open connections at most max, so that connections, and the
// goroutine and buffers net/http gives each, are bounded like bodies and requests in flight.
// A connection is only counted, never queued: net/http accepts it at once and serves it on a
// goroutine of its own, so the limit acts on accept, through the server's ConnState hook.
//
// What to do past the limit is the point. Refusing the newcomer would let anyone who opens
// max connections and leaves them idle lock every client out, for the ten seconds to a minute
// the timeouts give them, again and again. So the newcomer is kept, and a connection that is doing nothing is closed
// instead: the one that has done nothing for longest, idle between requests or connected and
// silent. The newcomer, the newest of all, is the last such connection to go. A client whose
// idle connection is closed connects again, as HTTP clients do when a server drops an idle
// connection. Only when every other connection is busy with a request is the newcomer refused:
// closed at once, unread, since even reading its request would take more than the limit
// allows. Those requests end within the server's own time limits.
type connLimit struct {
	max  int
	mu   sync.Mutex
	open map[net.Conn]connState
}

type connState struct {
	state http.ConnState
	since time.Time // when it entered state
}

func newConnLimit(max int) *connLimit {
	return &connLimit{max: max, open: map[net.Conn]connState{}}
}

// track is the server's ConnState hook. net/http calls it for a new connection on the
// goroutine that accepts, before it reads anything, so a refusal costs no more than the accept.
func (l *connLimit) track(conn net.Conn, state http.ConnState) {
	var closing net.Conn
	l.mu.Lock()
	switch state {
	case http.StateNew, http.StateActive, http.StateIdle:
		l.open[conn] = connState{state, time.Now()}
	default: // closed, or hijacked: no longer the server's to count
		delete(l.open, conn)
	}
	if state == http.StateNew && len(l.open) > l.max {
		if closing = l.spare(conn); closing == nil {
			closing = conn // every other connection is busy: the newcomer goes
		}
		delete(l.open, closing)
	}
	l.mu.Unlock()
	if closing != nil {
		closing.Close() // net/http notices when it next reads, and reports it closed
	}
}

// spare returns the connection, other than newcomer, that can best be closed: the one that has
// done nothing for longest, idle between requests or new and silent. It returns nil when every
// other connection is busy with a request.
func (l *connLimit) spare(newcomer net.Conn) net.Conn {
	var best net.Conn
	var bestSince time.Time
	for conn, s := range l.open {
		idle := s.state == http.StateIdle || s.state == http.StateNew
		if conn != newcomer && idle && (best == nil || s.since.Before(bestSince)) {
			best, bestSince = conn, s.since
		}
	}
	return best
}
