package main

import (
	"fmt"
	"path"
	"strings"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

// A hub is a note that links to many others: a map of content, an index, a glossary or a
// reference page that names every topic of the vault. Such a note shares words with many
// queries without being about any of them, so a ranking that puts it first for a query it
// does not answer has been fooled by its breadth. The report counts how often that happens.
//
// The definition reads each note as the index does (shared/markdown) and looks at nothing but
// its links and its length, never its name or folder:
//
//   - it links to at least hubLinks distinct notes, or
//   - it links to at least hubDenseLinks distinct notes, at least hubDensity per 1,000 words
//     of its text: a short page that is mostly links.
//
// A link counts when it is a wikilink or a Markdown link (frontmatter included, embeds
// included) to another note: one the vault has, by file name, or a name with no file
// extension, a note not yet written. Links to attachments (![[photo.png]]) and to the note
// itself or its headings do not count; two links to the same note count once.
const (
	hubLinks      = 12
	hubDenseLinks = 8
	hubDensity    = 40 // links per 1,000 words
)

// hubRule says the definition in a line, for the report.
var hubRule = fmt.Sprintf("a note that links to %d or more distinct notes, or to %d or more at %d or more per 1,000 words of its text",
	hubLinks, hubDenseLinks, hubDensity)

// noteShape is what the definition reads of a note, and what the eval says about the vault.
type noteShape struct {
	Links    int // distinct notes it links to
	Words    int // words of its text, frontmatter and headings left out
	Sections int // chunks the index embeds for it
}

// Hub reports whether the note is a hub.
func (n noteShape) Hub() bool {
	return n.Links >= hubLinks || (n.Links >= hubDenseLinks && n.Links*1000 >= hubDensity*max(n.Words, 1))
}

// readShapes reads every note the server indexes in the vault at dir.
func readShapes(dir string) (map[string]noteShape, error) {
	notes, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	defer notes.Close()
	paths, err := notes.Notes()
	if err != nil {
		return nil, err
	}
	// Notes by lower-case file name without ".md", as a link may name them.
	names := map[string]bool{}
	for _, p := range paths {
		names[strings.ToLower(strings.TrimSuffix(path.Base(p), ".md"))] = true
	}
	shapes := make(map[string]noteShape, len(paths))
	for _, p := range paths {
		_, content, err := notes.ReadNote(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		n := markdown.Parse(p, string(content))
		var shape noteShape
		self := strings.ToLower(n.Title)
		targets := map[string]bool{}
		for _, l := range n.Links {
			name := strings.ToLower(path.Base(l.Target))
			if name == "" || name == "." {
				continue // a heading or block of this note
			}
			name = strings.TrimSuffix(name, ".md")
			if name != self && (names[name] || path.Ext(name) == "") {
				targets[name] = true
			}
		}
		shape.Links = len(targets)
		for _, s := range n.Sections {
			shape.Words += len(strings.Fields(s.Text))
			shape.Sections += len(s.Chunks)
		}
		shapes[p] = shape
	}
	return shapes, nil
}
