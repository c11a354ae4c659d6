package inbox

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"vaultmcp/shared/frontmatter"
	"vaultmcp/shared/vault"
)

// The bounds on what a model may send besides the title.
const (
	// MaxContentSize bounds a note's body in bytes, and the text added to a note at once. A model writes a note in one reply, and
	// a reply of tens of thousands of tokens is 100-200 KB of text: 256 KiB holds any of
	// them, and is far below vault.MaxNoteSize, so the note can always be read back.
	MaxContentSize = 256 << 10
	// MaxTags bounds the number of tags. Notes carry a handful; twenty is generous, and
	// keeps the frontmatter far below frontmatter.MaxSize.
	MaxTags = 20
	// MaxTagLen bounds a tag in bytes. Even deeply nested tags ("work/clients/acme/2024")
	// are a few dozen bytes.
	MaxTagLen = 100
)

// createdBy is the value of the property "created_by" that every note from the inbox opens
// with. The folder tells the user a model wrote the note only until they move it; the
// property stays, so they can always find and review those notes (Obsidian's search:
// [created_by:vaultmcp]). It also gives every note a frontmatter block, so content that
// begins with "---" is always body, never properties. There is no "created" time: the file
// system keeps that, and a property would have to pick a time zone and a format.
const createdBy = "vaultmcp"

// newNote checks what the model sent, and returns the note's file name and its text, or the
// refusal of whatever the model must change. It touches no disk.
func newNote(title, content string, tags []string) (name, text string, err error) {
	if name, err = FileName(title); err != nil {
		return "", "", err
	}
	if err := CheckText("content", content); err != nil {
		return "", "", err
	}
	if tags, err = cleanTags(tags); err != nil {
		return "", "", err
	}
	if text, err = noteText(content, tags); err != nil {
		return "", "", err
	}
	// Valid UTF-8 can still be mostly control characters, which the vault does not read as a
	// note: a note no tool could read back is not written.
	if vault.NotText([]byte(text)) != "" {
		return "", "", vault.Refuse(ErrInvalid, "content is mostly control characters (such as \\x1b), which is not text a note can hold; send plain text")
	}
	return name, text, nil
}

// CheckText refuses text a model sent as arg (a note's content, or text to add to one) that
// no note should hold: too long, not UTF-8, or with a NUL byte.
func CheckText(arg, text string) error {
	switch {
	case len(text) > MaxContentSize:
		return vault.Refuse(ErrInvalid, "%s is %d bytes, more than the limit of %d KiB; send less, or split it over several calls", arg, len(text), MaxContentSize>>10)
	case !utf8.ValidString(text):
		return vault.Refuse(ErrInvalid, "%s is not valid UTF-8; send it as UTF-8 text", arg)
	case strings.ContainsRune(text, 0):
		// Git, grep and editors take a file with a NUL byte for a binary file.
		return vault.Refuse(ErrInvalid, "%s contains a NUL character (\\x00), which would make the note a binary file; send text without it", arg)
	}
	return nil
}

// cleanTags checks the tags a model sent, and returns them without a leading '#' (models
// write tags as they appear in text, but the property holds bare names) and without
// repeats. A tag that breaks Obsidian's rules is refused, not rewritten: "my project" could
// be meant as "my-project" or as two tags, and only the model knows which.
func cleanTags(tags []string) ([]string, error) {
	if len(tags) > MaxTags {
		return nil, vault.Refuse(ErrInvalid, "%d tags given, more than the limit of %d; send the %d that matter most", len(tags), MaxTags, MaxTags)
	}
	var clean []string
	for i, tag := range tags {
		switch {
		case len(tag) > MaxTagLen:
			return nil, vault.Refuse(ErrInvalid, "tag %d is %d bytes long, more than the limit of %d; send short tags, like %q", i+1, len(tag), MaxTagLen, "project/alpha")
		case !utf8.ValidString(tag):
			return nil, vault.Refuse(ErrInvalid, "tag %d is not valid UTF-8; send it as UTF-8 text", i+1)
		}
		tag = strings.TrimPrefix(tag, "#")
		if tag == "" {
			return nil, vault.Refuse(ErrInvalid, "tag %d is empty; send tags like %q", i+1, "project/alpha")
		}
		if i := strings.IndexFunc(tag, func(r rune) bool { return !tagRune(r) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(tag[i:])
			return nil, vault.Refuse(ErrInvalid, "tag %q contains %q, which a tag cannot hold; a tag is letters, digits, '_', '-' and '/' (for nested tags), without spaces, like %q", tag, r, "project/alpha")
		}
		if strings.Trim(tag, "0123456789") == "" {
			return nil, vault.Refuse(ErrInvalid, "tag %q is only digits, which Obsidian does not read as a tag; add a letter, like %q", tag, "y"+tag)
		}
		if !slices.Contains(clean, tag) {
			clean = append(clean, tag)
		}
	}
	return clean, nil
}

// tagRune reports whether r may be part of a tag. It is the rule by which shared/markdown
// reads tags, Obsidian's: ASCII letters and digits, '_', '-' and '/', and any other character
// that is not a space or punctuation ("é", "中", emoji). Invisible characters are refused
// too, as in file names: a tag should be what it looks like.
func tagRune(r rune) bool {
	switch {
	case r == '_', r == '-', r == '/':
		return true
	case r < utf8.RuneSelf:
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return !unicode.IsSpace(r) && !unicode.IsPunct(r) && !unicode.IsControl(r) && !invisible(r) && r != utf8.RuneError
}

// noteText returns the note as it goes on disk: a frontmatter block, then content exactly
// as given.
func noteText(content string, tags []string) (string, error) {
	props := map[string]any{"created_by": createdBy}
	if len(tags) > 0 {
		list := make([]any, len(tags))
		for i, tag := range tags {
			list[i] = tag
		}
		props["tags"] = list
	}
	// The library decides what to quote: "true", "null", "-" and "2024-01-01" are written as
	// strings in quotes, so they read back as strings. IndentSequence writes lists the way
	// Obsidian does, so its next save of the note changes nothing.
	yml, err := yaml.MarshalWithOptions(props, yaml.IndentSequence(true))
	if err != nil {
		return "", fmt.Errorf("the note's frontmatter could not be written: %w", err)
	}
	// The library quotes by its own reading of YAML, in which "1e3" and "08" are text; in
	// YAML 1.2, which Obsidian and frontmatter.Split read, they are numbers. A tag holds no
	// quote, so such a tag's line is quoted as it stands.
	for _, tag := range tags {
		if !frontmatter.ReadsAsText(tag) {
			yml = bytes.ReplaceAll(yml, []byte("  - "+tag+"\n"), []byte("  - '"+tag+"'\n"))
		}
	}
	text := "---\n" + string(yml) + "---\n" + content

	// Read the note back as every reader of the vault will. The library's quoting has gaps:
	// it writes the string ".inf" bare, which reads back as infinity. Tags cannot hold a dot,
	// so that one cannot happen here, and this check makes sure no other gap can either.
	fm, body, _ := frontmatter.Split(text)
	if fm.Err != nil || !reflect.DeepEqual(fm.Fields, props) || body != content {
		return "", fmt.Errorf("the note's frontmatter would not read back as written (tags %q); send plainer tags", tags)
	}
	return text, nil
}
