package main

import (
	"errors"
	"testing"
)

// TestCompactionStatus: index_status says how much of the vectors table is live, and why the
// latest compaction failed, in words a user can act on.
func TestCompactionStatus(t *testing.T) {
	for _, c := range []struct {
		live, dead int
		failed     error
		want       string
	}{
		{0, 0, nil, "100% of the vector slots are live; the index compacts itself below 75%"},
		{900, 100, nil, "90% of the vector slots are live; the index compacts itself below 75%"},
		{600, 400, errors.New("compact the index: the disk is full"),
			"60% of the vector slots are live; the index compacts itself below 75%; the latest compaction failed, and is tried again later: compact the index: the disk is full"},
	} {
		if got := compaction(c.live, c.dead, c.failed); got != c.want {
			t.Errorf("compaction(%d, %d, %v) =\n %q\nwant %q", c.live, c.dead, c.failed, got, c.want)
		}
	}
}
