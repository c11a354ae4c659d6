package markdown

import (
	"math"
	"strings"

	"vaultmcp/shared/frontmatter"
)

// Outline returns every heading of a note, in file order, read by the same rules as Parse
// (code fences, comments and frontmatter hold no heading). Unlike Note.Headings it keeps all
// of them: past MaxSections, Parse folds a heading into the section before it, but a caller
// that edits under a heading must know where each one is, or text meant for the end of one
// section would land after the next heading.
func Outline(content string) []Heading {
	content = strings.ToValidUTF8(content, "\uFFFD") // as Parse does: the line numbers stay
	var n Note
	_, body, bodyLine := frontmatter.Split(content)
	p := parser{note: &n, maxSections: math.MaxInt}
	p.read(body, bodyLine)
	return n.Headings
}
