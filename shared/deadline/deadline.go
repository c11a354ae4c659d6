// Package deadline bounds how long one tool call may take, and answers the model when it
// takes longer.
//
// net/http cannot do it. Its WriteTimeout only makes a late answer fail to be written: the
// request's context is not cancelled (go.dev/issue/59602), so a tool that waits forever, on
// an Ollama that no longer answers or a disk that hangs, keeps its goroutine and its request
// slot, and the model waits with it. ToolCalls gives each call a context with a deadline, and
// at the deadline answers for the tool: an isError result that says what happened, so the
// model can tell the user or try something else, and the slot is free at once.
package deadline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Default is how long a tool call may take unless told otherwise. A search waits on Ollama,
// which may need a minute to load its model after a while unused, or to finish a batch of
// indexing first; a call still running after two is not coming back.
const Default = 2 * time.Minute

// errDeadline is the cause of a call's context when its deadline passes.
var errDeadline = errors.New("the tool call's deadline passed")

// ToolCalls returns a middleware that gives each tool call at most limit (Default when limit
// is 0 or less), as callLimit.run describes. logger gets a line for each call that passes its
// deadline or panics; nil means slog.Default().
func ToolCalls(limit time.Duration, logger *slog.Logger) server.ToolHandlerMiddleware {
	if limit <= 0 {
		limit = Default
	}
	if logger == nil {
		logger = slog.Default()
	}
	c := callLimit{limit: limit, log: logger}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return c.run(ctx, req, next)
		}
	}
}

// callLimit is the deadline ToolCalls gives every call.
type callLimit struct {
	limit time.Duration
	log   *slog.Logger
}

// run calls next with a context that ends after c.limit. A handler that heeds its context
// stops there; whether it does or not, the call is answered then, with an isError result that
// names the tool and the limit, and the handler's own answer, if it ever comes, is dropped. So
// the handler runs on a goroutine of its own, and a panic there, which would end the whole
// program, is answered with an isError result too, and logged with its stack.
//
// What is simplified: a handler that ignores its context keeps running after the answer, on
// its goroutine, until it returns. Every tool here passes its context to what it waits on
// (Ollama, SQLite), so that is a moment, not for ever.
func (c callLimit) run(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.limit, errDeadline)
	defer cancel()
	name := req.Params.Name
	type answer struct {
		result *mcp.CallToolResult
		err    error
	}
	done := make(chan answer, 1) // the handler never waits to hand in a late answer
	go func() {
		defer func() {
			if p := recover(); p != nil {
				c.log.Error("a tool call panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				done <- answer{result: mcp.NewToolResultError(fmt.Sprintf(
					"%s failed because of a fault in the server, not in your call; the server's log says more. Tell the user.", name))}
			}
		}()
		result, err := next(ctx, req)
		done <- answer{result, err}
	}()

	select {
	case a := <-done:
		return a.result, a.err
	case <-ctx.Done():
	}
	if !errors.Is(context.Cause(ctx), errDeadline) {
		// The client went away, or the server, stopping, cancelled what was still running.
		return mcp.NewToolResultError(fmt.Sprintf("%s was cancelled before it finished: the server is stopping, or the client left", name)), nil
	}
	c.log.Warn("a tool call passed its deadline; answered with an error", "tool", name, "limit", c.limit)
	return mcp.NewToolResultError(fmt.Sprintf(
		"%s did not finish within %v, the longest a tool call may take on this server, and the server stopped waiting for it. "+
			"Something it waits on is not answering (for a search, Ollama); try again in a while, or tell the user. "+
			"If the tool changes notes, its change may still be made: check before you call it again.", name, c.limit)), nil
}
