package markdown_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"vaultmcp/shared/markdown"
)

// TestOutline: every heading, by Parse's rules, however many there are.
func TestOutline(t *testing.T) {
	note := "---\n# yaml: a comment\n---\n# Day\r\n```\n## In code\n```\n%%\n## In a comment\n%%\n## Log\n"
	want := []markdown.Heading{{Text: "Day", Level: 1, Line: 4}, {Text: "Log", Level: 2, Line: 11}}
	if got := markdown.Outline(note); !reflect.DeepEqual(got, want) {
		t.Errorf("Outline = %+v, want %+v", got, want)
	}

	var many strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&many, "## H%d\nx\n", i)
	}
	parsed := markdown.Parse("Many.md", many.String())
	outline := markdown.Outline(many.String())
	if len(parsed.Headings) >= 1000 || len(outline) != 1000 || outline[999] != (markdown.Heading{Text: "H999", Level: 2, Line: 1999}) {
		t.Errorf("Parse kept %d headings and Outline %d; want fewer than 1000, and all 1000", len(parsed.Headings), len(outline))
	}
}
