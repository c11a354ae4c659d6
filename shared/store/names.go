package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// MaxCompletions is the most notes CompleteNotes returns: the specification's bound on one
// completion answer.
const MaxCompletions = 100

// CompleteNotes returns the paths of up to n notes (at most MaxCompletions) that typed may be
// the start of, best first, and how many notes match in all. A note matches when its path,
// its title (the file name) or one of its aliases holds typed, letter case aside. The best are
// those whose path starts with it ("Garden/To"), then those whose title or an alias does
// ("tom"), then those where it starts a word of the title or a folder's name ("bed" for
// "Raised beds", "bread" for "Kitchen/Bread/Country loaf.md"), then the rest; among equals,
// shorter paths first, then by bytes.
//
// The title is the file name, so matching the path matches it too. Letter case is ignored
// for A to Z only, as SQLite's LIKE does: "CRÈME" misses "crème"; a person types a name much
// as it is written. The query reads every note's path and aliases: about 30 ms at 50,000
// notes (BENCHMARKS.md), less than the time between two keystrokes.
func (s *Store) CompleteNotes(ctx context.Context, typed string, n int) (paths []string, total int, err error) {
	n = min(n, MaxCompletions)
	// In a LIKE pattern, % and _ are wildcards; typed text means them literally.
	literal := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(typed)
	rows, err := s.db.QueryContext(ctx, `
		SELECT path, count(*) OVER ()
		FROM notes
		WHERE path LIKE :anywhere ESCAPE '\' OR aliases LIKE :anywhere ESCAPE '\'
		ORDER BY
			CASE
				WHEN path LIKE :start ESCAPE '\' THEN 0
				WHEN title LIKE :start ESCAPE '\' OR char(10) || aliases LIKE :line ESCAPE '\' THEN 1
				WHEN title LIKE :word ESCAPE '\' OR path LIKE :folder ESCAPE '\' THEN 2
				ELSE 3
			END,
			length(path), path
		LIMIT :n`,
		sql.Named("anywhere", "%"+literal+"%"), sql.Named("start", literal+"%"),
		sql.Named("line", "%\n"+literal+"%"), sql.Named("word", "% "+literal+"%"),
		sql.Named("folder", "%/"+literal+"%"), sql.Named("n", n))
	if err != nil {
		return nil, 0, fmt.Errorf("complete %q: %w", typed, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p, &total); err != nil {
			return nil, 0, fmt.Errorf("complete %q: %w", typed, err)
		}
		paths = append(paths, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("complete %q: %w", typed, err)
	}
	return paths, total, nil
}
