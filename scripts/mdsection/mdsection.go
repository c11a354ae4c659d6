// Package mdsection lets two programs write one Markdown file: each owns a section marked by
// HTML comments, which Markdown viewers do not show, and replaces only its own.
// BENCHMARKS.md is written that way: scripts/benchreport writes the speed figures and keeps the
// search-quality section that scripts/eval writes.
package mdsection

import (
	"bytes"
	"strings"
)

func begin(name string) string { return "<!-- begin " + name + " -->\n" }
func end(name string) string   { return "<!-- end " + name + " -->\n" }

// Get returns the text of section name in doc, without its markers, and whether doc has it.
func Get(doc []byte, name string) ([]byte, bool) {
	start, stop, ok := find(doc, name)
	if !ok {
		return nil, false
	}
	return bytes.Clone(doc[start+len(begin(name)) : stop]), true
}

// Put returns doc with section name holding text. A section already there is replaced in
// place. Otherwise the section goes before the first line of doc that starts with before, or
// at the end when no line does (or before is empty).
func Put(doc []byte, name string, text []byte, before string) []byte {
	block := []byte(begin(name))
	block = append(block, text...)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		block = append(block, '\n')
	}
	block = append(block, end(name)...)

	if start, stop, ok := find(doc, name); ok {
		return concat(doc[:start], block, doc[stop+len(end(name)):])
	}
	if before != "" {
		for offset := 0; offset < len(doc); {
			line, _, _ := strings.Cut(string(doc[offset:]), "\n")
			if strings.HasPrefix(line, before) {
				return concat(doc[:offset], append(block, '\n'), doc[offset:])
			}
			offset += len(line) + 1
		}
	}
	var gap []byte
	if len(doc) > 0 {
		doc, gap = bytes.TrimRight(doc, "\n"), []byte("\n\n")
	}
	return concat(doc, gap, block)
}

// find returns where the begin marker of section name starts and where its end marker starts.
// Markers count only at the start of a line.
func find(doc []byte, name string) (start, stop int, ok bool) {
	start = lineIndex(doc, begin(name), 0)
	if start < 0 {
		return 0, 0, false
	}
	stop = lineIndex(doc, end(name), start)
	if stop < 0 {
		return 0, 0, false
	}
	return start, stop, true
}

// lineIndex is the index of the first line at or after from that is exactly line, or -1.
func lineIndex(doc []byte, line string, from int) int {
	for i := from; i < len(doc); {
		j := bytes.Index(doc[i:], []byte(line))
		if j < 0 {
			return -1
		}
		if at := i + j; at == 0 || doc[at-1] == '\n' {
			return at
		}
		i += j + 1
	}
	return -1
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
