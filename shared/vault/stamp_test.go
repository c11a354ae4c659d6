package vault

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func stampOf(t *testing.T, name string) Stamp {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return StampOf(info)
}

// TestStampSeesWhatSizeAndTimeHide: the two edits that keep a note's size and modification
// time, a rewrite with its old time put back (touch -r) and two notes swapping names, give
// another Stamp, where the system keeps a change time and an inode.
func TestStampSeesWhatSizeAndTimeHide(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "A.md"), filepath.Join(dir, "B.md")
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, name := range []string{a, b} {
		if err := os.WriteFile(name, []byte("# "+filepath.Base(name)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	before := stampOf(t, a)
	if before.File == 0 || before.CTime.IsZero() {
		t.Skip("this system gives no inode or change time with a stat")
	}
	if !before.Same(stampOf(t, a)) {
		t.Fatal("a file's Stamp differs from itself")
	}
	// The change time comes from a clock that moves once per scheduler tick: let it move.
	time.Sleep(50 * time.Millisecond)

	if err := os.WriteFile(a, []byte("# B.md"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	if err := os.Chtimes(a, old, old); err != nil {
		t.Fatal(err)
	}
	after := stampOf(t, a)
	if after.Size != before.Size || !after.MTime.Equal(before.MTime) {
		t.Fatalf("the rewrite changed size or time: %+v, then %+v", before, after)
	}
	if after.Same(before) {
		t.Errorf("a rewrite with its old time put back has the same Stamp: %+v", after)
	}

	// Swap the names, through a third.
	beforeA, beforeB := stampOf(t, a), stampOf(t, b)
	tmp := filepath.Join(dir, "tmp")
	for _, mv := range [][2]string{{a, tmp}, {b, a}, {tmp, b}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if afterA := stampOf(t, a); afterA.Same(beforeA) {
		t.Errorf("A.md, now the other note, has the same Stamp: %+v", afterA)
	}
	if afterB := stampOf(t, b); afterB.Same(beforeB) {
		t.Errorf("B.md, now the other note, has the same Stamp: %+v", afterB)
	}
}

func TestStampSameWithoutIdentity(t *testing.T) {
	at := time.Unix(1000, 0)
	recorded := Stamp{Size: 10, MTime: at} // as where the system gives no ctime or inode
	onDisk := Stamp{Size: 10, MTime: at, CTime: at.Add(time.Hour), File: 42}
	if !recorded.Same(onDisk) || !onDisk.Same(recorded) {
		t.Error("a Stamp without change time and inode differs from one with them")
	}
	if recorded.Same(Stamp{Size: 11, MTime: at}) || recorded.Same(Stamp{Size: 10, MTime: at.Add(1)}) {
		t.Error("a Stamp of another size or time is the same")
	}
}

func TestStampRacy(t *testing.T) {
	mtime := time.Unix(1000, 0)
	s := Stamp{Size: 1, MTime: mtime, CTime: mtime}
	for _, c := range []struct {
		seen time.Time
		racy bool
	}{
		{time.Time{}, true},                             // not recorded
		{mtime.Add(-time.Second), true},                 // a time in the future, as FAT rounds up
		{mtime, true},                                   // the same tick
		{mtime.Add(RacyWindow - time.Nanosecond), true}, // within the window
		{mtime.Add(RacyWindow), false},                  // safely older
		{mtime.Add(time.Hour), false},                   //
	} {
		if got := s.Racy(c.seen); got != c.racy {
			t.Errorf("Racy(mtime%+v) = %v, want %v", c.seen.Sub(mtime), got, c.racy)
		}
	}
	touched := Stamp{Size: 1, MTime: mtime, CTime: mtime.Add(time.Hour)} // touch -r: old mtime, new ctime
	if !touched.Racy(mtime.Add(time.Hour)) {
		t.Error("a Stamp whose change time is the moment it was taken is not racy")
	}
}
