// Package progress reports how far a long job has got: counts, rate and time left, on a log.
//
// Indexing a vault of thousands of notes takes minutes with a real embedding model, and a
// silent terminal for minutes looks like a hang. Short jobs stay quiet: a report appears only
// once a job has run for a while, and then every few seconds.
package progress

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Reporter counts finished notes and sections and logs the progress now and then.
type Reporter struct {
	logger *slog.Logger
	what   string // "indexing", "reconciling"
	total  int    // notes to do
	every  time.Duration
	now    func() time.Time

	mu         sync.Mutex
	start      time.Time
	lastReport time.Time
	notes      int
	sections   int
}

// Quiet is how long a job runs before the first report, and the gap between reports.
const Quiet = 2 * time.Second

// New starts a reporter for a job of total notes.
func New(logger *slog.Logger, what string, total int) *Reporter {
	r := &Reporter{logger: logger, what: what, total: total, every: Quiet, now: time.Now}
	r.start = r.now()
	r.lastReport = r.start
	return r
}

// Done records notes and sections finished, and logs a report if one is due.
func (r *Reporter) Done(notes, sections int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes += notes
	r.sections += sections
	now := r.now()
	if now.Sub(r.lastReport) < r.every {
		return
	}
	r.lastReport = now
	elapsed := now.Sub(r.start)
	rate := float64(r.sections) / elapsed.Seconds()
	left := "unknown"
	if r.notes > 0 {
		perNote := elapsed / time.Duration(r.notes)
		left = (perNote * time.Duration(r.total-r.notes)).Round(time.Second).String()
	}
	r.logger.Info(r.what,
		"notes", fmt.Sprintf("%d/%d", r.notes, r.total),
		"sections_per_second", fmt.Sprintf("%.0f", rate),
		"eta", left)
}

// Counts returns the notes and sections finished so far.
func (r *Reporter) Counts() (notes, sections int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.notes, r.sections
}

// Finish logs the summary line every job ends with, however short.
func (r *Reporter) Finish(failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	elapsed := r.now().Sub(r.start)
	r.logger.Info(r.what+" done",
		"notes", r.notes, "sections", r.sections, "failed", failed,
		"took", elapsed.Round(time.Millisecond).String())
}
