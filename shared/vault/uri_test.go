package vault

import (
	"errors"
	"strings"
	"testing"
)

func TestURI(t *testing.T) {
	for note, uri := range map[string]string{
		"Home.md":               "note:///Home.md",
		"Garden/Green beans.md": "note:///Garden/Green%20beans.md",
		"what?.md":              "note:///what%3F.md",
		"#tags/100%.md":         "note:///%23tags/100%25.md",
		"Café/über.md":          "note:///Caf%C3%A9/%C3%BCber.md",
		"👨‍👧‍👦 People/Bob.md":   "note:///%F0%9F%91%A8%E2%80%8D%F0%9F%91%A7%E2%80%8D%F0%9F%91%A6%20People/Bob.md",
	} {
		if got := URI(note); got != uri {
			t.Errorf("URI(%q) = %q, want %q", note, got, uri)
		}
		if got, err := PathFromURI(uri); got != note || err != nil {
			t.Errorf("PathFromURI(%q) = %q, %v; want %q", uri, got, err, note)
		}
	}
	// A client that fills in the template itself may leave reserved characters as they are.
	if got, err := PathFromURI("note:///what?.md"); got != "what?.md" || err != nil {
		t.Errorf(`PathFromURI("note:///what?.md") = %q, %v`, got, err)
	}
}

// TestURIHostile: what a client may send instead of a note's URI. Each is refused with a
// reason, or decodes to a path that NotePath then refuses: never to a place outside the vault.
func TestURIHostile(t *testing.T) {
	for uri, why := range map[string]string{
		"file:///etc/passwd":                   "does not name a note",
		"note://host/Home.md":                  "does not name a note",
		"NOTE:///Home.md":                      "does not name a note",
		"note:///":                             "names no note",
		"note:///..%2F..%2Fetc%2Fpasswd":       "encodes a folder separator",
		"note:///Garden%2fTomatoes.md":         "encodes a folder separator",
		"note:///..%5C..%5Csecret.md":          "encodes a folder separator",
		"note:///bad%zz.md":                    "not percent-encoded correctly",
		"note:///" + strings.Repeat("a", 4000): "more than a note's URI can be",
	} {
		p, err := PathFromURI(uri)
		if err == nil || !strings.Contains(err.Error(), why) || !errors.Is(err, ErrInvalidPath) {
			t.Errorf("PathFromURI(%.60q) = %q, %v; want an error saying %q", uri, p, err, why)
		}
	}
	for uri, why := range map[string]string{
		"note:///../secret.md":        "leaves the vault",
		"note:///%2E%2E/secret.md":    "leaves the vault",
		"note:///%2Fetc/passwd.md":    "encodes a folder separator",
		"note:////etc/passwd.md":      "absolute",
		"note:///Home.md%00.png":      "control character",
		"note:///C:/Windows/win.md":   "drive",
		"note:///image.png":           "only Markdown notes",
		"note:///Garden/%0ASecret.md": "control character",
	} {
		p, err := PathFromURI(uri)
		if err == nil {
			_, err = NotePath(p)
		}
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("PathFromURI then NotePath(%q) = %q, %v; want an error saying %q", uri, p, err, why)
		}
	}
}
