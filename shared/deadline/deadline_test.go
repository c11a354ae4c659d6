package deadline

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// call runs handler behind ToolCalls(limit) as the tool "slow", and returns its answer's text,
// whether it is an error, and how long the call took.
func call(t *testing.T, ctx context.Context, limit time.Duration, logs *bytes.Buffer, handler server.ToolHandlerFunc) (text string, isError bool, took time.Duration) {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "slow"
	logger := slog.New(slog.NewTextHandler(logs, nil))
	start := time.Now()
	result, err := ToolCalls(limit, logger)(handler)(ctx, req)
	took = time.Since(start)
	if err != nil {
		t.Fatalf("the call returned the Go error %v; a tool's failure must be a result the model reads", err)
	}
	for _, c := range result.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text, result.IsError, took
}

func TestAnAnswerInTimePassesUnchanged(t *testing.T) {
	var logs bytes.Buffer
	text, isError, _ := call(t, t.Context(), time.Minute, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	})
	if text != "done" || isError {
		t.Errorf("got %q (isError %v); want the handler's own answer", text, isError)
	}
}

// A handler that never returns, and ignores its context, is answered at the deadline all the
// same: the caller, and the request slot it holds, do not wait for it.
func TestAStuckCallIsAnsweredAtTheDeadline(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	var logs bytes.Buffer
	text, isError, took := call(t, t.Context(), 100*time.Millisecond, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-stuck
		return mcp.NewToolResultText("too late"), nil
	})
	if !isError || !strings.Contains(text, "slow did not finish within 100ms") {
		t.Errorf("got %q (isError %v); want an isError result naming the tool and the limit", text, isError)
	}
	if took > 10*time.Second {
		t.Errorf("the call was answered after %v; want about the limit, 100ms", took)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "tool=slow") {
		t.Errorf("the log does not warn of the stuck call:\n%s", logs.String())
	}
}

// A handler that heeds its context sees it end at the deadline, so it stops its work.
func TestTheHandlersContextEndsAtTheDeadline(t *testing.T) {
	var logs bytes.Buffer
	var seen error
	var mu sync.Mutex
	stopped := make(chan struct{})
	_, isError, _ := call(t, t.Context(), 50*time.Millisecond, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		mu.Lock()
		seen = ctx.Err()
		mu.Unlock()
		close(stopped)
		return nil, ctx.Err()
	})
	<-stopped
	mu.Lock()
	defer mu.Unlock()
	if !isError || seen != context.DeadlineExceeded {
		t.Errorf("the handler saw %v (answer isError %v); want context.DeadlineExceeded and an isError answer", seen, isError)
	}
}

func TestNoLimitMeansTheDefault(t *testing.T) {
	var logs bytes.Buffer
	var left time.Duration
	call(t, t.Context(), 0, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d, _ := ctx.Deadline()
		left = time.Until(d)
		return mcp.NewToolResultText("done"), nil
	})
	if left <= Default-time.Minute || left > Default {
		t.Errorf("with limit 0 the call had %v left; want about Default, %v", left, Default)
	}
}

// A panic in a handler, which runs on a goroutine of its own, would end the program; it is an
// isError answer instead, and the log has its stack.
func TestAPanicIsAnAnswer(t *testing.T) {
	var logs bytes.Buffer
	text, isError, _ := call(t, t.Context(), time.Minute, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var m map[string]int
		m["boom"]++ // a nil map
		return nil, nil
	})
	if !isError || !strings.Contains(text, "slow failed") || strings.Contains(text, "nil map") {
		t.Errorf("got %q (isError %v); want an isError answer that names the tool and keeps the panic for the log", text, isError)
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "nil map") || !strings.Contains(logs.String(), "deadline_test.go") {
		t.Errorf("the log lacks the panic and its stack:\n%s", logs.String())
	}
}

// A call whose client went away is not waited for either.
func TestACancelledCallIsNotWaitedFor(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	var logs bytes.Buffer
	text, isError, took := call(t, ctx, time.Hour, &logs, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-stuck
		return nil, nil
	})
	if !isError || !strings.Contains(text, "cancelled") || took > 10*time.Second {
		t.Errorf("got %q (isError %v) after %v; want an isError answer soon after the cancel", text, isError, took)
	}
}
