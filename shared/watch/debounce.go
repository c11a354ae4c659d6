package watch

import "time"

// A debouncer holds paths until each has been quiet for the window: every event for a path
// pushes its deadline back, so a burst of events comes out as the path, once, after the burst.
// Paths do not wait for one another.
//
// Every deadline is "now + window", so deadlines are set in the order they fall due, and a
// queue does the work of a priority queue. An event for a path already waiting appends a new
// deadline and leaves the old one in the queue, where it is skipped as superseded.
type debouncer struct {
	window   time.Duration
	deadline map[string]time.Time // the current deadline of each waiting path
	queue    []due                // deadlines in the order they fall due, superseded ones included
}

type due struct {
	path string
	at   time.Time
}

func newDebouncer(window time.Duration) *debouncer {
	return &debouncer{window: window, deadline: make(map[string]time.Time)}
}

// add records an event for p at now.
func (d *debouncer) add(p string, now time.Time) {
	at := now.Add(d.window)
	d.deadline[p] = at
	d.queue = append(d.queue, due{path: p, at: at})
}

// next returns the earliest deadline, and false when no path waits.
func (d *debouncer) next() (time.Time, bool) {
	d.skipSuperseded()
	if len(d.queue) == 0 {
		return time.Time{}, false
	}
	return d.queue[0].at, true
}

// quiet removes and returns the paths that have been quiet for the window at now, in the
// order they fell quiet.
func (d *debouncer) quiet(now time.Time) []string {
	var paths []string
	for d.skipSuperseded(); len(d.queue) > 0 && !d.queue[0].at.After(now); d.skipSuperseded() {
		p := d.queue[0].path
		d.queue = d.queue[1:]
		delete(d.deadline, p)
		paths = append(paths, p)
	}
	return paths
}

func (d *debouncer) skipSuperseded() {
	for len(d.queue) > 0 && !d.deadline[d.queue[0].path].Equal(d.queue[0].at) {
		d.queue = d.queue[1:]
	}
}
