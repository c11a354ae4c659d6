package vault

import (
	"io/fs"
	"time"
)

// A Stamp is what one stat tells of a file: enough to notice, without reading it, that a note
// changed. An index records it beside the note's content hash; a later look that finds
// another Stamp reads the note again, and the hash decides.
//
// Size and modification time are what an edit changes, but a program can set the time back
// (touch -r, an archive unpacked, a sync tool) and an edit that keeps the size may land in
// the same tick of the clock as the one before. So a Stamp also keeps, where the system has
// them, what no program can set: the change time (ctime), which the kernel sets to now at
// every write, rename and change of the times themselves, and the file's identity (its inode
// number), which differs when another file takes the name, as when two notes swap names or an
// editor saves through a temporary file. git keeps the same four for the same reason.
type Stamp struct {
	Size  int64
	MTime time.Time
	CTime time.Time // zero where the system gives none with a listing (Windows)
	File  uint64    // the inode number; zero where the system gives none with a listing
}

// StampOf reads the Stamp of info, as Stat, NoteInfos or a walk of the vault return it.
func StampOf(info fs.FileInfo) Stamp {
	s := Stamp{Size: info.Size(), MTime: info.ModTime()}
	s.CTime, s.File = identity(info)
	return s
}

// Same reports whether s and t describe the same file in the same state. A side that lacks
// the change time or the identity (a Stamp recorded where the system has none) compares on
// the rest.
func (s Stamp) Same(t Stamp) bool {
	return s.Size == t.Size && s.MTime.Equal(t.MTime) &&
		(s.CTime.IsZero() || t.CTime.IsZero() || s.CTime.Equal(t.CTime)) &&
		(s.File == 0 || t.File == 0 || s.File == t.File)
}

// RacyWindow is how close to the moment a Stamp was taken a modification time must be for
// the Stamp not to be trusted. File systems keep times coarser than the clock: Linux stamps a
// file from a clock that moves once per scheduler tick (1-10 ms) unless the file system opts
// into finer times, HFS+ and ext3 keep whole seconds, and FAT two. A second write within the
// same step as the first leaves size and time as they were; two seconds covers every step.
const RacyWindow = 2 * time.Second

// Racy reports whether s, taken at the moment seen, may hide a later change: its modification
// or change time is not safely older than seen, so a write just after could have left the
// whole Stamp as it was. A racy note must be read again, whatever its Stamp says; git calls
// these entries racily clean, and compares their content. A zero seen (not recorded) is racy.
func (s Stamp) Racy(seen time.Time) bool {
	safe := seen.Add(-RacyWindow)
	return seen.IsZero() || s.MTime.After(safe) || s.CTime.After(safe)
}
