package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestReportsOnlyAfterTheQuietPeriod(t *testing.T) {
	var logs bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := New(slog.New(slog.NewTextHandler(&logs, nil)), "indexing", 100)
	r.now = func() time.Time { return clock }
	r.start, r.lastReport = clock, clock

	clock = clock.Add(time.Second)
	r.Done(10, 30)
	if logs.Len() != 0 {
		t.Fatalf("reported before the quiet period: %s", logs.String())
	}

	clock = clock.Add(3 * time.Second) // 4 s in, 40 of 100 notes done
	r.Done(30, 90)
	out := logs.String()
	for _, want := range []string{"notes=40/100", "sections_per_second=30", "eta=6s"} {
		if !strings.Contains(out, want) {
			t.Errorf("report %q lacks %q", out, want)
		}
	}

	logs.Reset()
	r.Finish(2)
	if out := logs.String(); !strings.Contains(out, "indexing done") || !strings.Contains(out, "failed=2") {
		t.Errorf("summary = %q", out)
	}
}
