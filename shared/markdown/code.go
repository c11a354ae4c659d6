package markdown

import (
	"slices"
	"strings"
)

// This file finds code: fenced code blocks, and the backtick runs that open and close code
// spans. Code is content (it is indexed) but a "#include" in it is no tag and a "[[x]]" in it
// is no link.

// fence is an open fenced code block: a line of at least three backticks or tildes opens it and
// a line of at least as many of the same closes it. Everything in between is code.
type fence struct {
	marker byte // '`' or '~'; 0 when no fence is open
	size   int  // how many markers opened it
	quotes int  // how many blockquote levels ('>') it sits in, as in a callout
}

func (f fence) open() bool { return f.marker != 0 }

// openFence reports whether line opens a fence: up to three spaces of indentation (four make an
// indented code block instead), then the markers, then an optional info string such as "go".
func openFence(line string) (fence, bool) {
	quotes, rest := unquote(line, len(line))
	body := strings.TrimLeft(rest, " ")
	if len(rest)-len(body) > 3 || body == "" || (body[0] != '`' && body[0] != '~') {
		return fence{}, false
	}
	size := len(body) - len(strings.TrimLeft(body, body[:1]))
	// The info string of a backtick fence cannot hold a backtick: "```a``" is inline code.
	if size < 3 || (body[0] == '`' && strings.Contains(body[size:], "`")) {
		return fence{}, false
	}
	return fence{marker: body[0], size: size, quotes: quotes}, true
}

// within reads a line while f is open. The line is code, and may close the fence; or the
// blockquote that held the fence has ended, which closes the fence and leaves the line as prose.
func (f fence) within(line string) (code, closes bool) {
	quotes, rest := unquote(line, f.quotes)
	if quotes < f.quotes {
		return false, true
	}
	body := strings.TrimLeft(rest, " ")
	after := strings.TrimLeft(body, string(f.marker))
	closes = len(rest)-len(body) <= 3 && len(body)-len(after) >= f.size && strings.TrimSpace(after) == ""
	return true, closes
}

// unquote removes up to limit blockquote markers ("> ") from the start of line and says how
// many it removed.
func unquote(line string, limit int) (quotes int, rest string) {
	for quotes < limit {
		t := strings.TrimLeft(line, " ")
		if !strings.HasPrefix(t, ">") {
			break
		}
		line = strings.TrimPrefix(t[1:], " ")
		quotes++
	}
	return quotes, line
}

func runLength(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// runIndex maps each length of backtick run in a paragraph to where such runs start, in order.
// A code span closes at the next run of exactly the opening's length; looking that up here,
// instead of rescanning the rest of the paragraph for every opening, keeps a hostile line of
// ever-longer runs ("` “ ``` ...") from costing time quadratic in its length.
type runIndex map[int][]int

func backtickRuns(line string) runIndex {
	runs := runIndex{}
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := runLength(line[i:], '`')
		runs[n] = append(runs[n], i)
		i += n
	}
	return runs
}

// next returns where the first run of exactly n backticks at or after from begins, or -1.
func (r runIndex) next(n, from int) int {
	starts := r[n]
	if k, _ := slices.BinarySearch(starts, from); k < len(starts) {
		return starts[k]
	}
	return -1
}
