package reconcile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// recorded is a State as the index records it, long after the note's last write.
func recorded(size int64, mtime time.Time, hash string) State {
	return State{Size: size, MTime: mtime, Seen: mtime.Add(time.Hour), Hash: hash}
}

func TestCompute(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	t1 := t0.Add(time.Hour)
	indexed := map[string]State{
		"same.md":      recorded(10, t0, "h-same"),
		"edited.md":    recorded(10, t0, "h-old"),
		"touched.md":   recorded(10, t0, "h-touched"),
		"deleted.md":   recorded(10, t0, "h-deleted"),
		"Old/moved.md": recorded(20, t0, "h-moved"),
		"a/twin.md":    recorded(5, t0, "h-twin"),
		"b/twin.md":    recorded(5, t0, "h-twin"),
	}
	onDisk := map[string]State{
		"same.md":       {Size: 10, MTime: t0},
		"edited.md":     {Size: 12, MTime: t1},
		"touched.md":    {Size: 10, MTime: t1},
		"New/moved.md":  {Size: 20, MTime: t1},
		"new.md":        {Size: 3, MTime: t1},
		"c/twin.md":     {Size: 5, MTime: t1},
		"unreadable.md": {Size: 1, MTime: t1},
	}
	content := map[string]string{
		"edited.md": "h-new", "touched.md": "h-touched", "New/moved.md": "h-moved",
		"new.md": "h-new-note", "c/twin.md": "h-twin",
	}
	var hashed []string
	hash := func(path string) (string, error) {
		hashed = append(hashed, path)
		if h, ok := content[path]; ok {
			return h, nil
		}
		return "", errors.New("permission denied")
	}

	got := Compute(indexed, onDisk, hash)
	want := Plan{
		Embed:   []string{"edited.md", "new.md", "unreadable.md"},
		Touch:   []string{"touched.md"},
		Rename:  []Rename{{From: "Old/moved.md", To: "New/moved.md"}, {From: "a/twin.md", To: "c/twin.md"}},
		Delete:  []string{"b/twin.md", "deleted.md"},
		Checked: 6,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compute =\n %+v\nwant\n %+v", got, want)
	}
	for _, p := range hashed {
		if p == "same.md" {
			t.Error("an unchanged note (same size and time) was read")
		}
	}
}

// TestWhatSizeAndTimeHide: the two edits that keep a note's size and modification time. A
// rewrite whose time is put back (touch -r) changes the change time; two notes whose names
// were swapped change files. A note recorded within the racy window of its last write is read
// whatever its Stamp says, as git reads its racily clean entries, and recorded anew (Touch)
// when its content is the same.
func TestWhatSizeAndTimeHide(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	c0, later := t0.Add(time.Minute), t0.Add(24*time.Hour)
	state := func(file uint64, ctime, seen time.Time, hash string) State {
		return State{Size: 10, MTime: t0, CTime: ctime, FileID: file, Seen: seen, Hash: hash}
	}
	indexed := map[string]State{
		"Put back.md":      state(1, c0, later, "h-before"),
		"A.md":             state(2, c0, later, "h-a"),
		"B.md":             state(3, c0, later, "h-b"),
		"Racy, edited.md":  state(4, c0, t0.Add(time.Millisecond), "h-first"),
		"Racy, same.md":    state(5, c0, t0.Add(time.Millisecond), "h-same"),
		"Safe.md":          state(6, c0, later, "h-safe"),
		"Windows.md":       {Size: 10, MTime: t0, Seen: later, Hash: "h-win"},
		"Windows, edit.md": {Size: 10, MTime: t0, Seen: later, Hash: "h-win-old"},
	}
	onDisk := map[string]State{
		"Put back.md":      state(1, later, time.Time{}, ""),
		"A.md":             state(3, later, time.Time{}, ""),
		"B.md":             state(2, later, time.Time{}, ""),
		"Racy, edited.md":  state(4, c0, time.Time{}, ""),
		"Racy, same.md":    state(5, c0, time.Time{}, ""),
		"Safe.md":          state(6, c0, time.Time{}, ""),
		"Windows.md":       {Size: 10, MTime: t0},
		"Windows, edit.md": {Size: 10, MTime: t0.Add(100)},
	}
	content := map[string]string{
		"Put back.md": "h-after", "A.md": "h-b", "B.md": "h-a", "Racy, edited.md": "h-second",
		"Racy, same.md": "h-same", "Windows, edit.md": "h-win-new",
	}
	plan := Compute(indexed, onDisk, func(p string) (string, error) {
		h, ok := content[p]
		if !ok {
			t.Errorf("%s was read, though the index recorded it safely and its Stamp is the same", p)
		}
		return h, nil
	})
	want := Plan{
		Embed:   []string{"A.md", "B.md", "Put back.md", "Racy, edited.md", "Windows, edit.md"},
		Touch:   []string{"Racy, same.md"},
		Checked: 6,
	}
	if !reflect.DeepEqual(plan, want) {
		t.Errorf("Compute =\n %+v\nwant\n %+v", plan, want)
	}
}

// An unchanged vault is a plan of no work that reads no note: the cost of a stat per note.
func TestUnchangedVaultReadsNothing(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	indexed, onDisk := map[string]State{}, map[string]State{}
	for i := range 1000 {
		p := string(rune('a'+i%26)) + "/" + time.Duration(i).String() + ".md"
		indexed[p] = recorded(int64(i), t0, "h")
		onDisk[p] = State{Size: int64(i), MTime: t0}
	}
	plan := Compute(indexed, onDisk, func(string) (string, error) {
		t.Fatal("a note was read")
		return "", nil
	})
	if plan.Work() != 0 || plan.Checked != 0 {
		t.Errorf("plan for an unchanged vault: %+v", plan)
	}
}

// One note gone, every other still there: the paths found on disk are one fewer than the
// index holds, and the missing one is deleted, or renamed where its content turned up.
func TestOneNoteGone(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	indexed := map[string]State{"a.md": recorded(1, t0, "ha"), "b.md": recorded(2, t0, "hb")}
	read := func(string) (string, error) { return "hb", nil }
	deleted := Compute(indexed, map[string]State{"a.md": {Size: 1, MTime: t0}}, read)
	if want := (Plan{Delete: []string{"b.md"}}); !reflect.DeepEqual(deleted, want) {
		t.Errorf("b.md deleted: plan %+v, want %+v", deleted, want)
	}
	moved := Compute(indexed, map[string]State{"a.md": {Size: 1, MTime: t0}, "c.md": {Size: 2, MTime: t0}}, read)
	if want := (Plan{Rename: []Rename{{From: "b.md", To: "c.md"}}, Checked: 1}); !reflect.DeepEqual(moved, want) {
		t.Errorf("b.md moved to c.md: plan %+v, want %+v", moved, want)
	}
}

// A first index, or new notes while none is gone: no rename is possible, so no note is read to
// compare; each is read once, when it is embedded.
func TestNewNotesAloneAreNotRead(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	onDisk := map[string]State{"b.md": {Size: 1, MTime: t0}, "a.md": {Size: 2, MTime: t0}, "same.md": {Size: 3, MTime: t0}}
	for _, indexed := range []map[string]State{{}, {"same.md": recorded(3, t0, "h")}} {
		plan := Compute(indexed, onDisk, func(p string) (string, error) {
			t.Errorf("%s was read, though no indexed note is gone to have moved there", p)
			return "", nil
		})
		want := []string{"a.md", "b.md"}
		if len(indexed) == 0 {
			want = []string{"a.md", "b.md", "same.md"}
		}
		if !reflect.DeepEqual(plan, Plan{Embed: want}) {
			t.Errorf("Compute over an index of %d notes = %+v, want %v to embed", len(indexed), plan, want)
		}
	}
}

// TestPlanCoversEveryPath builds random indexes and disks and checks the plan's promise:
// every note on disk is embedded, touched, renamed to, or unchanged, once; every indexed note
// no longer on disk is deleted or renamed from, once; and applying the plan yields the disk.
func TestPlanCoversEveryPath(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		indexed, onDisk, content := map[string]State{}, map[string]State{}, map[string]string{}
		for i := range 30 {
			p := fmt.Sprintf("n%d.md", r.IntN(40))
			h := fmt.Sprintf("h%d", r.IntN(20))
			if r.IntN(2) == 0 {
				indexed[p] = recorded(int64(i), t0, h)
			}
			q := fmt.Sprintf("n%d.md", r.IntN(40))
			onDisk[q] = State{Size: int64(r.IntN(3)), MTime: t0.Add(time.Duration(r.IntN(2)))}
			content[q] = fmt.Sprintf("h%d", r.IntN(20))
		}
		plan := Compute(indexed, onDisk, func(p string) (string, error) { return content[p], nil })

		seen := map[string]int{}
		for _, p := range plan.Embed {
			seen[p]++
		}
		for _, p := range plan.Touch {
			seen[p]++
		}
		gone := map[string]int{}
		for _, rn := range plan.Rename {
			seen[rn.To]++
			gone[rn.From]++
			if indexed[rn.From].Hash != content[rn.To] {
				t.Fatalf("seed %d: rename %v pairs different content", seed, rn)
			}
		}
		for _, p := range plan.Delete {
			gone[p]++
		}
		for p, n := range seen {
			if _, ok := onDisk[p]; !ok || n != 1 {
				t.Fatalf("seed %d: %s planned %d times, on disk %v", seed, p, n, ok)
			}
		}
		for p := range indexed {
			_, still := onDisk[p]
			if still == (gone[p] == 1) || gone[p] > 1 {
				t.Fatalf("seed %d: indexed %s: on disk %v, removed %d times", seed, p, still, gone[p])
			}
		}
		for p := range onDisk {
			if _, known := indexed[p]; !known && seen[p] != 1 {
				t.Fatalf("seed %d: new note %s is not in the plan", seed, p)
			}
		}
	}
}
