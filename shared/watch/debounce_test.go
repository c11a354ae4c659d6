package watch

import (
	"slices"
	"testing"
	"time"
)

// The debouncer is pure: these tests pass times in and need no clock.

func TestDebouncerBurstComesOutOnce(t *testing.T) {
	d := newDebouncer(time.Second)
	start := time.Now()
	for i := range 50 {
		d.add("a.md", start.Add(time.Duration(i)*20*time.Millisecond)) // 50 writes in one second
	}
	last := start.Add(49 * 20 * time.Millisecond)
	if got := d.quiet(last.Add(999 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("quiet before the window ran out: %v", got)
	}
	if at, _ := d.next(); !at.Equal(last.Add(time.Second)) {
		t.Errorf("next deadline %v after the last write, want 1s", at.Sub(last))
	}
	if got := d.quiet(last.Add(time.Second)); !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("quiet = %v, want [a.md]", got)
	}
	if _, ok := d.next(); ok {
		t.Error("a path still waits after the burst came out")
	}
}

func TestDebouncerPathsDoNotWaitForEachOther(t *testing.T) {
	d := newDebouncer(time.Second)
	start := time.Now()
	d.add("a.md", start)
	d.add("b.md", start.Add(100*time.Millisecond))
	// b.md keeps changing; a.md must come out on time all the same.
	for i := 2; i < 20; i++ {
		d.add("b.md", start.Add(time.Duration(i)*100*time.Millisecond))
	}
	if got := d.quiet(start.Add(time.Second)); !slices.Equal(got, []string{"a.md"}) {
		t.Fatalf("quiet after 1s = %v, want [a.md]", got)
	}
	if got := d.quiet(start.Add(2 * time.Second)); len(got) != 0 {
		t.Fatalf("quiet after 2s = %v, want nothing: b.md changed 100ms ago", got)
	}
	if got := d.quiet(start.Add(2900 * time.Millisecond)); !slices.Equal(got, []string{"b.md"}) {
		t.Fatalf("quiet after 2.9s = %v, want [b.md]", got)
	}
}

func TestDebouncerOrder(t *testing.T) {
	d := newDebouncer(time.Second)
	start := time.Now()
	d.add("a.md", start)
	d.add("b.md", start.Add(time.Millisecond))
	d.add("a.md", start.Add(2*time.Millisecond)) // a.md now falls quiet after b.md
	d.add("c.md", start.Add(3*time.Millisecond))
	want := []string{"b.md", "a.md", "c.md"}
	if got := d.quiet(start.Add(time.Hour)); !slices.Equal(got, want) {
		t.Fatalf("quiet = %v, want %v", got, want)
	}
}

func TestOutboxHoldsOneChangePerPath(t *testing.T) {
	o := outbox{paths: make(map[string]bool)}
	o.push(Change{Op: Updated, Path: "a.md"})
	o.push(Change{Op: Rescan})
	o.push(Change{Op: Removed, Path: "b.md"})
	o.push(Change{Op: Rescan})
	o.drop("a.md")
	var got []Change
	for c, ok := o.peek(); ok; c, ok = o.peek() {
		got = append(got, c)
		o.pop()
	}
	want := []Change{{Op: Rescan}, {Op: Removed, Path: "b.md"}}
	if !slices.Equal(got, want) {
		t.Fatalf("outbox gave %v, want %v", got, want)
	}
}
