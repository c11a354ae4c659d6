package watch

import (
	"path"
	"strings"

	"vaultmcp/shared/vault"
)

// Which paths matter is decided by two rules, the same ones vault.Notes lists notes by, so
// the watcher and the index never disagree about what a note is:
//
//  1. A path is visible when vault.CleanPath accepts it unchanged. That leaves out every
//     hidden file and folder (a name starting with a dot: .obsidian, .trash, .git,
//     .DS_Store, .hidden.md) and names that no model could send or Windows could not hold
//     (a backslash, a control character, a ':', one of <>"|?*, a trailing dot or space, a
//     device name).
//  2. A note is a visible path ending in ".md", in any case.
//
// Editors and sync tools save through files of their own beside the note. The two rules
// already leave out each one we know of, so there is no third list to keep up to date:
//
//	x.md.swp  x.md.swx  .x.md.swp  vim's swap files
//	4913                           vim's probe that the folder is writable
//	x.md~                          backups of vim, emacs, gedit, nano
//	#x.md#  .#x.md                 emacs's autosave and lock files
//	x.md.tmp  .x.md.tmp            atomic saves: write a temp file, rename it over the note
//	x.md___jb_tmp___               JetBrains' safe write
//	.~lock.x.md#                   LibreOffice's lock files
//	x.md.crdownload  x.md.part     downloads still in progress
//	.syncthing.x.md.tmp  ._x.md    Syncthing's temp files, macOS's resource forks
//	.vaultmcp-….tmp                this server's own writes, from step 9 (shared/atomicfile)
//
// A save through a temp file still comes out right: the rename over x.md is an event for
// x.md itself.

// visible reports whether p, a vault-relative '/'-separated path, names a file or folder
// that is part of the vault (rule 1).
func visible(p string) bool {
	clean, err := vault.CleanPath(p)
	return err == nil && clean == p
}

// isNote reports whether p names a note (rule 2).
func isNote(p string) bool {
	return strings.EqualFold(path.Ext(p), ".md") && visible(p)
}

// hidden reports whether a name in p starts with a dot, as Obsidian's own folders do.
func hidden(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.")
}

// visible is the rule above, or, for a Watcher that reports unservable names too, any path
// that is not hidden, as vault.NoteInfos walks the vault.
func (w *Watcher) visible(p string) bool {
	if w.unservable {
		return !hidden(p)
	}
	return visible(p)
}

// isNote is rule 2 with w's rule 1.
func (w *Watcher) isNote(p string) bool {
	return strings.EqualFold(path.Ext(p), ".md") && w.visible(p)
}
