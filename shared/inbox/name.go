package inbox

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"vaultmcp/shared/vault"
)

// MaxTitleLen bounds a title in bytes, before cleaning. A file name keeps at most 252 bytes
// of it (about 84 CJK characters), so a title four times as long is still cut to fit; past
// that it is not a title, and it is refused before any work is done on it.
const MaxTitleLen = 1024

// maxName is the longest file name, ".md" included, in bytes. 255 bytes is the limit of
// ext4, btrfs and XFS; APFS and NTFS count 255 characters or UTF-16 units, which 255 bytes
// of UTF-8 never exceed. Encrypted file systems such as eCryptfs allow less (about 143
// bytes); there, a long title fails with the OS's "file name too long".
const maxName = 255

// forbidden are the characters Windows refuses in a file name (the others are the control
// characters), and '/', the separator everywhere. '#', '^', '[' and ']' are legal in file
// names, but Obsidian cannot link to a note whose name holds them: [[C# tips]] links to the
// heading " tips" of a note "C".
const forbidden = `<>:"/\|?*#^[]`

const (
	zwnj = '\u200c' // zero-width non-joiner: Persian and Indic scripts need it inside words
	zwj  = '\u200d' // zero-width joiner: glues emoji into one, like 👨‍👩‍👧
)

// FileName turns a title sent by a model into the file name of a new note: a name that is
// valid, and means the same file, on Windows, macOS and Linux, and that Obsidian can link to.
//
//   - Control characters, white space of every kind and the characters in forbidden become
//     spaces, and each run of spaces becomes one: "Re: plan\n" is "Re plan".
//   - Invisible formatting characters are removed: the right-to-left override that makes
//     "gpj.exe" display as "exe.jpg", zero-width spaces, soft hyphens. Only the joiners that
//     emoji and some scripts need stay.
//   - Leading dots and spaces go (a dot would hide the note), and so do trailing ones
//     (Windows drops them, so "Plan." and "Plan" would be one file there).
//   - One ".md" at the end goes too, since it is added back: "Plan.md" names "Plan.md".
//   - The name is cut to 255 bytes with ".md", between two characters as a reader sees
//     them: never inside a UTF-8 sequence, and not between a letter and its accent or
//     inside an emoji.
//   - Windows device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9, COM¹²³, LPT¹²³, CONIN$,
//     CONOUT$), in any case and with any extension, get a "_" after the device name:
//     "con.txt" becomes "con_.txt.md". Windows would open the device, not a file.
//   - A title without a letter or digit ("...", "???", "🙂") is refused: no name for a note
//     can be made from it.
//
// The title's characters are kept as they are, not normalised to NFC: models send NFC
// anyway. A name that differs from an existing note's only in that way, or in case, is
// refused by Create (see checkTwins): macOS would take the two for one file.
func FileName(title string) (string, error) {
	switch {
	case len(title) > MaxTitleLen:
		return "", vault.Refuse(ErrInvalid, "title is %d bytes long, more than the limit of %d; send a short title", len(title), MaxTitleLen)
	case !utf8.ValidString(title):
		return "", vault.Refuse(ErrInvalid, "title is not valid UTF-8; send it as UTF-8 text")
	}

	name := strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r), strings.ContainsRune(forbidden, r):
			return ' '
		case invisible(r):
			return -1
		}
		return r
	}, title)
	name = strings.Join(strings.Fields(name), " ") // Fields splits at every kind of space
	name = strings.Trim(name, ". ")
	if stem, ok := cutSuffixFold(name, ".md"); ok {
		name = strings.TrimRight(stem, ". ")
	}
	name = strings.TrimRight(cut(name, maxName-len(".md")), ". ")
	if !strings.ContainsFunc(name, isLetterOrDigit) {
		return "", vault.Refuse(ErrInvalid, "title %q has no letters or digits to name a file with; send a title with letters or digits, like %q", title, "Meeting notes")
	}
	if vault.Reserved(name) {
		base, _, _ := strings.Cut(name, ".")
		base = strings.TrimRight(base, " ")
		// The "_" must fit too: cut the rest one byte shorter.
		name = strings.TrimRight(base+"_"+cut(name[len(base):], maxName-len(".md")-len(base)-1), ". ")
	}
	return name + ".md", nil
}

// invisible reports whether r is a formatting character (Unicode's Cf) other than the two
// joiners.
func invisible(r rune) bool { return unicode.Is(unicode.Cf, r) && r != zwnj && r != zwj }

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// cut returns the longest prefix of s that is at most n bytes and ends between two
// characters as a reader sees them (a grapheme cluster, in Unicode's terms): not inside a
// UTF-8 sequence, not before an accent or an emoji modifier, not beside a zero-width joiner,
// not between the two letters of a flag. The standard library has no grapheme rules; these
// are the cases titles meet.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for !utf8.RuneStart(s[n]) {
		n--
	}
	for i := n; i > 0; {
		if boundary(s[:i], s[i:]) {
			return s[:i]
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	// One character longer than n bytes, like a letter under a hundred accents: cutting
	// through it still leaves valid UTF-8.
	return s[:n]
}

// boundary reports whether a cluster may end between before and after.
func boundary(before, after string) bool {
	prev, _ := utf8.DecodeLastRuneInString(before)
	next, _ := utf8.DecodeRuneInString(after)
	switch {
	case unicode.Is(unicode.M, next), // accents, vowel signs, emoji variation selectors
		'\U0001F3FB' <= next && next <= '\U0001F3FF', // skin tones
		prev == zwj, next == zwj:
		return false
	case regional(prev) && regional(next):
		// Flags are pairs of regional indicators: 🇫🇷 is F then R. Cut after a pair only.
		n := 0
		for r, size := utf8.DecodeLastRuneInString(before); regional(r); r, size = utf8.DecodeLastRuneInString(before) {
			before = before[:len(before)-size]
			n++
		}
		return n%2 == 0
	}
	return true
}

func regional(r rune) bool { return '\U0001F1E6' <= r && r <= '\U0001F1FF' }
