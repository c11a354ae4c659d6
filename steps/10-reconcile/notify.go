package main

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/vault"
)

// noteEvents tells clients what the watcher saw change: notifications/resources/list_changed
// when a note appears or goes, so a client lists the notes again, and
// notifications/resources/updated for a note a client asked to follow, so it reads it again.
// Both revisions of MCP are served, and they ask for notifications differently:
//
//   - 2025-11-25: a client that made the initialize handshake hears every list change, and
//     follows a note with resources/subscribe (and stops with resources/unsubscribe). A
//     stateless HTTP server keeps no session to send them on, so only stdio clients hear, and
//     only they are told, in initialize, that they will (see handshake).
//   - 2026-07-28: nothing is sent unasked. A client opens a subscriptions/listen request
//     saying what it wants to hear: list changes, and the URIs of the notes to follow. The
//     answer to it is a stream, HTTP or stdio, on which each notification carries the listen
//     request's id.
//
// mcp-go v1.2.1 answers all these requests and sends the acknowledgement a listen stream opens
// with. It keeps no list of what each client follows, and delivers a broadcast to stdio
// sessions unfiltered, so noteEvents keeps that list itself, from mcp-go's hooks, and writes
// each notification to the sessions that asked for it.
type noteEvents struct {
	notes  *vault.Vault // to name a followed note as the vault spells it
	logger *slog.Logger

	mu        sync.Mutex
	stdio     map[server.ClientSession]bool // sessions that last as long as a connection
	listeners map[*listener]bool
}

// listener is one client's request to hear: a 2025 session after its handshake, or a 2026
// listen stream while it is open.
type listener struct {
	session     server.ClientSession
	listenID    any // the subscriptions/listen request's id, or nil for a 2025 session
	listChanged bool
	follows     map[string]string // by URI in the form vault.URI gives, the URI the client gave
}

func newNoteEvents(hooks *server.Hooks, notes *vault.Vault, logger *slog.Logger) *noteEvents {
	e := &noteEvents{notes: notes, logger: logger, stdio: map[server.ClientSession]bool{}, listeners: map[*listener]bool{}}
	hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { e.connected(s, true) })
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { e.connected(s, false) })
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, result *mcp.InitializeResult) {
		e.handshake(server.ClientSessionFromContext(ctx), result)
	})
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		e.follow(server.ClientSessionFromContext(ctx), req.Params.URI, true)
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		e.follow(server.ClientSessionFromContext(ctx), req.Params.URI, false)
	})
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		e.listen(ctx, server.ClientSessionFromContext(ctx), id, req.Params.Notifications)
	})
	return e
}

// connected records a session that lasts as long as its connection (stdio), or its end.
func (e *noteEvents) connected(s server.ClientSession, open bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if open {
		e.stdio[s] = true
		return
	}
	delete(e.stdio, s)
	for l := range e.listeners {
		if l.session == s {
			delete(e.listeners, l)
		}
	}
}

// handshake makes a 2025 client that keeps its session a listener to every list change. A
// client whose session ends with its request, as every 2025 session over stateless HTTP does,
// will hear nothing, so result promises it nothing: without subscribe and listChanged, which
// server/discover still offers a 2026-07-28 client, whose listen stream carries them.
func (e *noteEvents) handshake(s server.ClientSession, result *mcp.InitializeResult) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.stdio[s] {
		if r := result.Capabilities.Resources; r != nil { // a copy of the server's, for this answer
			r.Subscribe, r.ListChanged = false, false
		}
		return
	}
	if e.legacy(s) == nil {
		e.listeners[&listener{session: s, listChanged: true, follows: map[string]string{}}] = true
	}
}

// follow starts or stops following a note for a 2025 client.
func (e *noteEvents) follow(s server.ClientSession, uri string, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l := e.legacy(s); l != nil {
		if on {
			l.follows[e.canonical(uri)] = uri
		} else {
			delete(l.follows, e.canonical(uri))
		}
	}
}

// legacy returns the 2025 listener of a session, if it has one. The caller holds e.mu.
func (e *noteEvents) legacy(s server.ClientSession) *listener {
	for l := range e.listeners {
		if l.session == s && l.listenID == nil {
			return l
		}
	}
	return nil
}

// listen adds a 2026 listen stream for as long as its request lasts.
func (e *noteEvents) listen(ctx context.Context, s server.ClientSession, id any, asked mcp.SubscriptionFilter) {
	if s == nil || id == nil {
		return // mcp-go refuses the request
	}
	l := &listener{session: s, listenID: id, listChanged: asked.ResourcesListChanged, follows: map[string]string{}}
	for _, uri := range asked.ResourceSubscriptions {
		l.follows[e.canonical(uri)] = uri
	}
	e.mu.Lock()
	e.listeners[l] = true
	e.mu.Unlock()
	context.AfterFunc(ctx, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		delete(e.listeners, l)
	})
}

// canonical is the URI vault.URI gives for the note uri names, so that a client following
// "note:///garden/tomatoes" hears of Garden/Tomatoes.md, under the URI it gave. A URI that
// names no note stays as it is, and hears nothing.
func (e *noteEvents) canonical(uri string) string {
	if p, err := vault.PathFromURI(uri); err == nil {
		if note, err := e.notes.Resolve(p); err == nil {
			return vault.URI(note)
		}
	}
	return uri
}

// changed tells the clients that the note at path changed on disk: those who follow it, and,
// when it appeared or went (listChanged), those who hear list changes.
func (e *noteEvents) changed(path string, listChanged bool) {
	uri := vault.URI(path)
	e.mu.Lock()
	defer e.mu.Unlock()
	for l := range e.listeners {
		if listChanged && l.listChanged {
			e.send(l, mcp.MethodNotificationResourcesListChanged, nil)
		}
		if asked, ok := l.follows[uri]; ok {
			e.send(l, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": asked})
		}
	}
}

// changedAll tells every listener that anything may have changed, after the watcher lost
// events and the index was compared with the disk.
func (e *noteEvents) changedAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for l := range e.listeners {
		if l.listChanged {
			e.send(l, mcp.MethodNotificationResourcesListChanged, nil)
		}
		for _, asked := range slices.Sorted(maps.Values(l.follows)) {
			e.send(l, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": asked})
		}
	}
}

// send writes one notification to a listener's session, without waiting: a client that does
// not read its notifications loses them, and the watcher never stalls for it. The caller holds
// e.mu.
func (e *noteEvents) send(l *listener, method string, params map[string]any) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: method,
		Params: mcp.NotificationParams{AdditionalFields: params},
	}}
	if l.listenID != nil {
		n.Params.Meta = map[string]any{mcp.MetaKeySubscriptionID: l.listenID}
	}
	select {
	case l.session.NotificationChannel() <- n:
	default:
		e.logger.Warn("a client is not reading its notifications; one was dropped", "method", method)
	}
}
