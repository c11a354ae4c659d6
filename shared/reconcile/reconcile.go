// Package reconcile works out what an index must do to catch up with the vault on disk after
// the server was off: which notes to embed, which to drop, and which merely moved.
//
// It compares cheaply first and carefully only where it must. A note whose stat says what
// the index recorded (size, modification time, change time and identity: a vault.Stamp) is
// taken as unchanged without reading it: on a vault of thousands of notes that is the
// difference between a stat per note and reading everything. Where they differ, the content
// hash decides, so a note that was only touched (a sync tool resetting times, a save without
// edits) costs a read but no embedding. A note that vanished from one path and appeared at
// another with the same hash was renamed or moved: its sections and vectors can move with it,
// and nothing is embedded.
//
// A stat cannot see every edit. One that lands in the same tick of the file system's clock as
// the write before it, and keeps the size, leaves the whole Stamp as it was. git calls such
// index entries "racily clean" and reads them: it compares each entry's modification time
// with the moment the index was written, and where the two are too close for the clock to
// tell apart, it compares content. So does Compute, with the moment the index recorded each
// note's state (see vault.Stamp.Racy); such a note costs a read, and its new record (a Touch)
// is no longer racy.
package reconcile

import (
	"slices"
	"time"

	"vaultmcp/shared/vault"
)

// State is what is known of a note's file: as the index recorded it, or as the disk shows it.
// Hash is the content hash; on the disk side it is "" until read. Seen is when the size, times
// and identity were read: for the index, before the content was; on the disk side, when the
// listing began.
type State struct {
	Size   int64
	MTime  time.Time
	CTime  time.Time // zero where the system gives none
	FileID uint64    // zero where the system gives none
	Seen   time.Time // zero if not known, which makes the State racy
	Hash   string
}

// Stamp is the part of s a stat gives.
func (s State) Stamp() vault.Stamp {
	return vault.Stamp{Size: s.Size, MTime: s.MTime, CTime: s.CTime, File: s.FileID}
}

// unchanged reports whether the cheap test may take the note on disk as the one the index
// holds: the same Stamp, recorded safely after the note's last write.
func unchanged(indexed, disk State) bool {
	return indexed.Stamp().Same(disk.Stamp()) && !indexed.Stamp().Racy(indexed.Seen)
}

// Rename is a note found at a new path with content the index holds under an old one.
type Rename struct{ From, To string }

// Plan is the work that brings the index up to date. Every path is in exactly one list, or
// in none when the note is unchanged.
type Plan struct {
	Embed   []string // new notes, and notes whose content changed: read, parse, embed
	Touch   []string // same content, new state or a racy one: record the state, embed nothing
	Rename  []Rename // moved notes: move their rows, embed nothing
	Delete  []string // notes gone from the disk
	Checked int      // notes whose hash had to be computed
}

// Work is how many notes the plan changes in the index.
func (p Plan) Work() int { return len(p.Embed) + len(p.Touch) + len(p.Rename) + len(p.Delete) }

// Compute compares the index with the disk. indexed is what the index holds, by path; onDisk
// is what the disk holds, by path, with Hash empty. hash reads a note and returns its content
// hash; it is called only for notes whose state differs from the index or was recorded too
// close to their last write to be trusted, and for new notes while some indexed note is gone
// from its path (a rename can only be recognised by content). A note hash cannot read is left
// for the caller to retry: it appears in Embed, where reading it again will report the error.
func Compute(indexed, onDisk map[string]State, hash func(path string) (string, error)) Plan {
	var p Plan
	// Only the paths that differ are sorted, for a plan in path order: on a restart most
	// notes are unchanged, and sorting every path would cost more than comparing them.
	var fresh, differ []string // on disk: not in the index under that path; in it, with another state
	for path, disk := range onDisk {
		switch old, known := indexed[path]; {
		case !known:
			fresh = append(fresh, path)
		case !unchanged(old, disk):
			differ = append(differ, path)
		}
	}
	slices.Sort(fresh)
	slices.Sort(differ)
	for _, path := range differ {
		old := indexed[path]
		p.Checked++
		h, err := hash(path)
		switch {
		case err != nil || h != old.Hash:
			p.Embed = append(p.Embed, path)
		default:
			p.Touch = append(p.Touch, path)
		}
	}

	// The notes gone from their path, by hash: candidates for a rename. None is gone when
	// every indexed path was found on disk, as on most restarts.
	var left []string
	if len(onDisk)-len(fresh) < len(indexed) {
		for path := range indexed {
			if _, still := onDisk[path]; !still {
				left = append(left, path)
			}
		}
	}
	slices.Sort(left)
	gone := map[string][]string{}
	for _, path := range left {
		gone[indexed[path].Hash] = append(gone[indexed[path].Hash], path)
	}
	for _, path := range fresh {
		if len(gone) == 0 {
			// No note left its path, so none can have moved here: a new note is embedded
			// without reading it twice. A first index compares without reading a note.
			p.Embed = append(p.Embed, path)
			continue
		}
		p.Checked++
		h, err := hash(path)
		if olds := gone[h]; err == nil && h != "" && len(olds) > 0 {
			// Pair with the first old path of that content; two identical notes moved at
			// once pair in path order, which keeps the plan the same on every run.
			p.Rename = append(p.Rename, Rename{From: olds[0], To: path})
			gone[h] = olds[1:]
			continue
		}
		p.Embed = append(p.Embed, path)
	}
	for _, olds := range gone {
		p.Delete = append(p.Delete, olds...)
	}
	slices.Sort(p.Delete)
	return p
}
