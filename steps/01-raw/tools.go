package main

import "encoding/json"

// tool is what tools/list tells the client: a name, a description the model reads to decide
// when to call it, and a JSON Schema for its arguments.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations annotations    `json:"annotations"`
	call        func(args map[string]any) toolResult
}

// annotations are hints for the client. A hint left out means the worst: that the tool may
// change things, destroy data, and reach the outside world. readOnlyHint and openWorldHint
// apply to every tool; destructiveHint and idempotentHint say how a tool changes things, so
// the specification reads them only when readOnlyHint is false, and a tool that only reads
// leaves them out.
type annotations struct {
	ReadOnly    bool  `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint,omitempty"`
	Idempotent  *bool `json:"idempotentHint,omitempty"`
	OpenWorld   bool  `json:"openWorldHint"`
}

// readOnly annotates a tool that changes nothing and reaches nothing outside this machine.
var readOnly = annotations{ReadOnly: true, OpenWorld: false}

var tools = []tool{
	{
		Name:        "ping",
		Description: `Checks that the server is alive. Returns the text "pong".`,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		Annotations: readOnly,
		call:        func(map[string]any) toolResult { return textResult("pong") },
	},
	{
		Name:        "echo",
		Description: "Returns the text it is given, unchanged. Useful to test a client.",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string", "description": "the text to send back"}},
			"required":   []string{"text"},
		},
		Annotations: readOnly,
		call: func(args map[string]any) toolResult {
			text, ok := args["text"].(string)
			if !ok {
				return errorResult(`echo needs a "text" argument holding a string, for example {"text": "hello"}`)
			}
			return textResult(text)
		},
	},
}

// toolResult is what tools/call returns. A tool that fails still returns a result, with
// isError set and a message the model can act on: the model sees it and can try again.
type toolResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
	*stamp
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func textResult(text string) toolResult {
	return toolResult{Content: []content{{Type: "text", Text: text}}}
}
func errorResult(text string) toolResult {
	return toolResult{Content: []content{{Type: "text", Text: text}}, IsError: true}
}

// callTool finds the tool and runs it. Naming a tool that does not exist is a protocol error
// (-32602), not a tool error: the specification counts it among invalid parameters.
func callTool(params json.RawMessage) (toolResult, *rpcError) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return toolResult{}, invalidParams(`tools/call needs params.name (a tool from tools/list) and params.arguments (an object)`)
	}
	for _, t := range tools {
		if t.Name == p.Name {
			return t.call(p.Arguments), nil
		}
	}
	return toolResult{}, invalidParams("unknown tool %s; call tools/list to see the tools", quote(p.Name))
}
