package vault

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPathLen bounds a path in bytes. Real note paths are far shorter; the bound keeps a
// hostile argument from costing anything and from being echoed back in an error.
const MaxPathLen = 1024

// hint ends most path errors: the model should learn what to send, not only what failed.
const hint = `send a path relative to the vault root, like "Folder/Note.md"`

// CleanPath turns a path sent by a model into a vault-relative path: '/'-separated, cleaned,
// and free of anything that could name a place outside the vault.
//
// Its rules are the same on every operating system, so that a vault synced between a Mac, a
// Windows PC and a Linux machine answers alike on each. That includes Windows's rules for a
// name: no ':' (a drive, or a hidden stream of a file), none of <>"|?*, no name ending in a dot
// or a space (Windows drops them, so "secret.md." would open "secret.md"), and none of the
// names of devices (CON, NUL, COM1). Obsidian refuses those characters in a note's name on
// every system too, so a vault written with it has none of them; a note named so by another
// program is listed with the reason by [Vault.NoteInfos], for its owner to rename.
//
// CleanPath is the first of two walls. It only looks at the text; the second wall, os.Root
// in [Vault], is the operating system refusing to leave the vault, symbolic links included.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", Refuse(ErrInvalidPath, "path is empty; %s", hint)
	case len(p) > MaxPathLen:
		return "", Refuse(ErrInvalidPath, "path is %d bytes long, more than the limit of %d; %s", len(p), MaxPathLen, hint)
	case !utf8.ValidString(p):
		return "", Refuse(ErrInvalidPath, "path %q is not valid UTF-8; %s", p, hint)
	case strings.ContainsFunc(p, unicode.IsControl):
		// NUL ends a string for the OS, so "a.md\x00.png" would open "a.md"; the other
		// control characters are refused by Windows and have no place in a note's name.
		return "", Refuse(ErrInvalidPath, "path %q contains a control character; %s", p, hint)
	}

	// Windows accepts both separators, so a model may send either; from here on only '/'.
	// That also turns the UNC forms \\server\share and \\?\C:\ into absolute paths.
	clean := strings.ReplaceAll(p, `\`, "/")
	switch {
	case strings.HasPrefix(clean, "/"):
		return "", Refuse(ErrOutside, "path %q is absolute; %s", p, hint)
	case strings.Contains(clean, ":"):
		// "C:\x", "C:x" and "c:/x" name a drive; "Note.md:secret" names a hidden NTFS
		// stream of a file.
		return "", Refuse(ErrOutside, "path %q contains ':', which names a drive or a file stream; %s", p, hint)
	case strings.ContainsAny(clean, forbidden):
		return "", Refuse(ErrInvalidPath, "path %q contains one of %s, which no note's name can hold on Windows or in Obsidian; send the exact name of the note", p, forbidden)
	}

	// Clean removes "." and empty elements and resolves "a/../b" to "b" by looking at the
	// text only. Every ".." that remains leads out of the vault.
	clean = path.Clean(clean)
	switch {
	case clean == ".":
		return "", Refuse(ErrInvalidPath, "path %q names the vault itself, not a note in it; %s", p, hint)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", Refuse(ErrOutside, "path %q leaves the vault; %s", p, hint)
	}

	for name := range strings.SplitSeq(clean, "/") {
		switch {
		case strings.HasPrefix(name, "."):
			// Obsidian hides dot-folders such as .obsidian (settings, plugin data),
			// .trash (deleted notes) and .git; they are not part of the vault. This also
			// refuses ".. ", which Windows would read as "..".
			return "", Refuse(ErrOutside, "path %q includes %q; hidden files and folders (names starting with a dot) are not part of the vault", p, name)
		case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
			// Windows drops trailing dots and spaces, so "secret.md." would open
			// "secret.md" there.
			return "", Refuse(ErrInvalidPath, "path %q has a name ending in a dot or space (%q); send the exact name of the note", p, name)
		case Reserved(name):
			return "", Refuse(ErrInvalidPath, "path %q uses %q, which Windows reserves for a device; %s", p, name, hint)
		}
	}
	return clean, nil
}

// servableName reports whether name, one element of a path, is one CleanPath accepts and
// leaves as it is, within a path whose other elements it does: the checks CleanPath makes of
// the whole path, asked of one name. A walk of the vault checks each name once this way, where
// CleanPath on each note's path would check its folders' names again for every note. The
// length of the whole path is the caller's to check. TestServableName holds the two to the
// same answer.
func servableName(name string) bool {
	return name != "" && utf8.ValidString(name) && !strings.ContainsFunc(name, unicode.IsControl) &&
		!strings.ContainsAny(name, `/\:`+forbidden) &&
		!strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".") && !strings.HasSuffix(name, " ") &&
		!Reserved(name)
}

// forbidden are the characters besides ':', '/' and '\\' that Windows refuses in a name.
const forbidden = `<>"|?*`

// Reserved reports whether name is a Windows device name (CON, NUL, COM1, ...): the part
// before the first dot, without trailing spaces and in any case. Windows opens the device
// instead of a file, before Windows 11 even for "nul.md", and os.Root refuses such names there.
//
// Every such name starts with C, P, A, N or L, and only those letters, in either case, turn
// into one in upper case (of the runes beyond ASCII, only ı and ſ upper-case into ASCII, as I
// and S). So a name that starts otherwise is not a device, and most are passed without the
// upper-casing, which costs a copy of the name: a walk of the vault asks this of every name.
func Reserved(name string) bool {
	if name == "" || !strings.ContainsRune("CPANLcpanl", rune(name[0])) {
		return false
	}
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch n := base[3:]; n {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// NotePath is CleanPath for a note: the result always ends in ".md" (in any case).
// Models often write notes the way Obsidian links them, "Folder/Note", so a path without an
// extension gets ".md"; a path with another extension ("image.png") is refused.
func NotePath(p string) (string, error) {
	clean, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	ext := path.Ext(clean)
	switch {
	case strings.EqualFold(ext, ".md"):
		return clean, nil
	case isFileType(ext):
		return "", Refuse(ErrNotNote, "path %q is not a note: only Markdown notes (.md) can be read; if the note's name really ends in %q, send %q",
			p, ext, clean+".md")
	}
	if len(clean)+len(".md") > MaxPathLen {
		return "", Refuse(ErrInvalidPath, "path is %d bytes long with \".md\", more than the limit of %d; %s", len(clean)+len(".md"), MaxPathLen, hint)
	}
	return clean + ".md", nil
}

// isFileType reports whether ext looks like a file type (".png", ".canvas", ".mp3") rather
// than a dot inside a title ("Dr. Smith", "v1.2", "Meeting 2024.01.05"): ASCII letters and
// digits only, at least one of them a letter.
func isFileType(ext string) bool {
	ext = strings.TrimPrefix(ext, ".")
	letter := false
	for _, r := range ext {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			letter = true
		case '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return letter
}
