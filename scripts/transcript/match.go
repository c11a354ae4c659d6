package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Placeholders stand for the values that legitimately vary between runs (scores, timings,
// temporary paths). They match inside JSON strings and in plain text; nothing else is loose.
const (
	AnyValue  = "<any>"    // as a whole JSON string: any value at all
	AnyNumber = "<number>" // a number, or digits inside text
	AnyString = "<string>" // a string, or any text on one line
	// As a whole JSON string: any value, or the key left out. For what a server reports only
	// when it knows it, such as when step 10's index was last rebuilt, which an index that an
	// earlier step built does not record.
	Optional = "<optional>"
)

var placeholder = regexp.MustCompile(`<any>|<number>|<string>`)

// Match compares what a command printed with what the transcript expects and returns "" when
// they agree, or a sentence saying where they differ.
//
// With `curl -i` the output starts with the status line and headers: the status must be equal
// and every header the transcript lists must be there with that value (other headers, like
// Date, may vary). The body is compared as JSON when the transcript's body is JSON, so spacing
// and key order do not matter; otherwise as text.
func Match(expected, actual string) string {
	actual = strings.ReplaceAll(actual, "\r\n", "\n")
	wantHead, wantBody := splitHTTP(expected)
	gotHead, gotBody := splitHTTP(actual)
	if wantHead == nil {
		return matchBody(strings.TrimSpace(expected), strings.TrimSpace(actual))
	}
	if gotHead == nil {
		return "expected an HTTP status line (curl -i prints it), got none"
	}
	if msg := matchHead(wantHead, gotHead); msg != "" {
		return msg
	}
	return matchBody(strings.TrimSpace(wantBody), strings.TrimSpace(gotBody))
}

// splitHTTP splits "HTTP/1.1 200 OK\nheaders\n\nbody" into its head lines and body. Text that
// does not start with a status line is all body.
func splitHTTP(s string) (head []string, body string) {
	if !strings.HasPrefix(s, "HTTP/") {
		return nil, s
	}
	headText, body, _ := strings.Cut(s, "\n\n")
	return strings.Split(headText, "\n"), body
}

func matchHead(want, got []string) string {
	// "HTTP/1.1 405 Method Not Allowed": compare the code and reason, not the HTTP version.
	wantStatus, gotStatus := statusOf(want[0]), statusOf(got[0])
	if wantStatus != gotStatus {
		return fmt.Sprintf("status: want %q, got %q", wantStatus, gotStatus)
	}
	for _, line := range want[1:] {
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		found := false
		for _, g := range got[1:] {
			gName, gValue, _ := strings.Cut(g, ":")
			if strings.EqualFold(strings.TrimSpace(gName), strings.TrimSpace(name)) {
				found = true
				if !matchText(value, strings.TrimSpace(gValue)) {
					return fmt.Sprintf("header %s: want %q, got %q", name, value, strings.TrimSpace(gValue))
				}
			}
		}
		if !found {
			return fmt.Sprintf("header %s: missing", name)
		}
	}
	return ""
}

func statusOf(line string) string {
	_, status, _ := strings.Cut(line, " ")
	return status
}

func matchBody(want, got string) string {
	var wantJSON any
	if want != "" && json.Unmarshal([]byte(want), &wantJSON) == nil {
		var gotJSON any
		if err := json.Unmarshal([]byte(got), &gotJSON); err != nil {
			return fmt.Sprintf("body: want JSON, got %q", clip(got))
		}
		return matchJSON("$", wantJSON, gotJSON)
	}
	if !matchText(want, got) {
		return fmt.Sprintf("body: want %q, got %q", clip(want), clip(got))
	}
	return ""
}

// matchJSON compares two decoded JSON values. Objects must have exactly the same keys. A
// string holding JSON (a tool result's text, say) is compared as JSON too.
func matchJSON(path string, want, got any) string {
	// A transcript may show JSON that travels inside a string (a tool's text result) as the
	// object it encodes, so readers can read it; it is compared as JSON all the same.
	if g, ok := got.(string); ok && isContainer(want) {
		var decoded any
		if json.Unmarshal([]byte(g), &decoded) == nil {
			got = decoded
			path += "(as JSON)"
		}
	}
	switch w := want.(type) {
	case string:
		if w == AnyValue || w == Optional {
			return ""
		}
		if _, isString := got.(string); w == AnyString && isString {
			return "" // as a whole value, any string, even one over many lines
		}
		if w == AnyNumber {
			if _, ok := got.(float64); ok {
				return ""
			}
		}
		g, ok := got.(string)
		if !ok {
			return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
		}
		if matchText(w, g) {
			return ""
		}
		var wj, gj any
		if json.Unmarshal([]byte(w), &wj) == nil && json.Unmarshal([]byte(g), &gj) == nil && isContainer(wj) {
			return matchJSON(path+"(as JSON)", wj, gj)
		}
		return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %s: want an object, got %s", path, show(got))
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("at %s: unexpected key %q (value %s)", path, k, show(g[k]))
			}
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok && wv == Optional {
				continue
			}
			if !ok {
				return fmt.Sprintf("at %s: missing key %q", path, k)
			}
			if msg := matchJSON(path+"."+k, wv, gv); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("at %s: want an array, got %s", path, show(got))
		}
		if len(w) != len(g) {
			return fmt.Sprintf("at %s: want %d elements, got %d: %s", path, len(w), len(g), show(got))
		}
		for i := range w {
			if msg := matchJSON(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); msg != "" {
				return msg
			}
		}
		return ""
	default: // numbers, booleans, null
		if want != got {
			return fmt.Sprintf("at %s: want %s, got %s", path, show(want), show(got))
		}
		return ""
	}
}

// matchText compares text exactly, except that each placeholder matches what it stands for.
func matchText(want, got string) bool {
	if !placeholder.MatchString(want) {
		return want == got
	}
	var pattern strings.Builder
	pattern.WriteString(`(?s)\A`)
	last := 0
	for _, loc := range placeholder.FindAllStringIndex(want, -1) {
		pattern.WriteString(regexp.QuoteMeta(want[last:loc[0]]))
		switch want[loc[0]:loc[1]] {
		case AnyNumber:
			pattern.WriteString(`-?[0-9][0-9.,eE+-]*`)
		case AnyString:
			pattern.WriteString(`[^\n]*?`)
		default:
			pattern.WriteString(`.*?`)
		}
		last = loc[1]
	}
	pattern.WriteString(regexp.QuoteMeta(want[last:]))
	pattern.WriteString(`\z`)
	return regexp.MustCompile(pattern.String()).MatchString(got)
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
