package markdown

import (
	"strings"
	"unicode/utf8"
)

// MaxChunk is the most bytes one chunk holds, its "Title > Heading" line included. Embedding
// models read a bounded number of tokens, often 2048, and a token stands for at least one byte
// of text, so 2000 bytes fit whatever the language, with room for the task prefix an embedder
// adds (package embed still caps what it sends, as a last defence). Smaller chunks also embed
// more sharply: a vector per idea rather than one for a whole page.
const MaxChunk = 2000

// maxPrefix bounds the "Title > Heading" line, so that even a giant heading leaves room for text.
const maxPrefix = MaxChunk / 4

// prefix is the line that lets a chunk stand alone in search results and tells the embedder
// what the text is about: "Title > Heading > Subheading". A first heading that repeats the
// title, as many notes open with, is said once.
func prefix(title string, trail []string) string {
	parts := []string{title}
	for i, h := range trail {
		if i == 0 && strings.EqualFold(h, title) {
			continue
		}
		parts = append(parts, h)
	}
	return truncate(strings.Join(parts, " > "), maxPrefix)
}

// chunk cuts a section's text into chunks of at most MaxChunk bytes, each opening with the
// prefix line and a blank line. Paragraphs (lines between blank lines) are kept whole and
// together while they fit; a paragraph too long for any chunk is cut, at a line end or a space
// where there is one, and never inside a UTF-8 character. A section with no text has no chunk.
func chunk(prefix, text string) []string {
	head := prefix + "\n\n"
	room := MaxChunk - len(head)
	var chunks []string
	var body strings.Builder
	flush := func() {
		if body.Len() > 0 {
			chunks = append(chunks, head+body.String())
			body.Reset()
		}
	}
	for _, para := range paragraphs(text) {
		for len(para) > room {
			flush()
			cut := cutPoint(para, room)
			if part := strings.TrimRight(para[:cut], " \t\n"); part != "" {
				chunks = append(chunks, head+part)
			}
			para = strings.TrimLeft(para[cut:], " \t\n")
		}
		if para == "" {
			continue
		}
		if body.Len() > 0 && body.Len()+len("\n\n")+len(para) > room {
			flush()
		}
		if body.Len() > 0 {
			body.WriteString("\n\n")
		}
		body.WriteString(para)
	}
	flush()
	return chunks
}

// paragraphs splits text at blank lines.
func paragraphs(text string) []string {
	var paras, lines []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			continue
		}
		if len(lines) > 0 {
			paras = append(paras, strings.Join(lines, "\n"))
			lines = nil
		}
	}
	if len(lines) > 0 {
		paras = append(paras, strings.Join(lines, "\n"))
	}
	return paras
}

// cutPoint returns where to cut s (longer than n) so that s[:cut] fits in n bytes: after the
// last line end or space in the second half of those n bytes, or else at the last character
// boundary.
func cutPoint(s string, n int) int {
	n = len(truncate(s, n))
	if i := strings.LastIndexAny(s[n/2:n], "\n "); i >= 0 {
		return n/2 + i + 1
	}
	return n
}

// truncate shortens s to at most n bytes without splitting a UTF-8 character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
