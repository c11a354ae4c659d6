package vault

import (
	"net/url"
	"strings"
)

// A note as an MCP resource is named by a URI: "note:///" and the note's vault-relative path,
// each name in it percent-encoded, so "Garden/Green beans.md" is
// "note:///Garden/Green%20beans.md". The empty authority (the third slash) says the same as
// in file:///: the notes of this server's one vault.
//
// URITemplate is that rule as an RFC 6570 template. Its {+path} is reserved expansion: a
// client that fills it in keeps the '/' between folders and encodes what a URI cannot hold.
const (
	URIPrefix   = "note:///"
	URITemplate = URIPrefix + "{+path}"
)

// URI returns the URI of the note at the vault-relative path note.
func URI(note string) string {
	names := strings.Split(note, "/")
	for i, name := range names {
		names[i] = url.PathEscape(name)
	}
	return URIPrefix + strings.Join(names, "/")
}

// uriHint ends URI errors, as hint ends path errors.
const uriHint = `a note's URI is "note:///" and its path in the vault, like "note:///Folder/Note.md"`

// PathFromURI returns the note path a URI names, for NotePath and ReadNote to check like any
// path from a model. A URI comes from a client, which may have built it from anything, so it
// is held to one spelling per note: folders are separated by '/' itself, never by an encoded
// "%2F" or "%5C", which would give one note many URIs and hide a separator from a reader of
// logs. Everything else a path may not hold (.., NUL, a drive) is NotePath's to refuse.
func PathFromURI(uri string) (string, error) {
	if len(uri) > len(URIPrefix)+3*MaxPathLen { // every byte of the longest path escaped
		return "", Refuse(ErrInvalidPath, "URI is %d bytes long, more than a note's URI can be; %s", len(uri), uriHint)
	}
	encoded, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok {
		return "", Refuse(ErrInvalidPath, "URI %q does not name a note; %s", uri, uriHint)
	}
	lower := strings.ToLower(encoded)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
		return "", Refuse(ErrInvalidPath, "URI %q encodes a folder separator (%%2F or %%5C); write folders with '/', as in %q", uri, URIPrefix+"Folder/Note.md")
	}
	p, err := url.PathUnescape(encoded)
	if err != nil {
		return "", Refuse(ErrInvalidPath, "URI %q is not percent-encoded correctly (%v); %s", uri, err, uriHint)
	}
	if p == "" {
		return "", Refuse(ErrInvalidPath, "URI %q names no note; %s", uri, uriHint)
	}
	return p, nil
}
