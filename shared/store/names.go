package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
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
// as it is written.
//
// The rules are those of a query (queryNames), and the index answers them from the notes'
// names held in memory (nameIndex), which it reads at the first completion and keeps as its
// writes change them: at 50,000 notes a completion is then a pass over about 5 MB, a few
// milliseconds, where the query reads every note's row from SQLite, in WebAssembly, at every
// keystroke, about ten times as long (BenchmarkCompleteNotes). The query still answers what
// memory cannot: typed text or a name that is not UTF-8 or holds a NUL, which SQLite reads
// its own way (see plainText).
func (s *Store) CompleteNotes(ctx context.Context, typed string, n int) (paths []string, total int, err error) {
	n = min(n, MaxCompletions)
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("complete %q: %w", typed, err)
	}
	if plainText(typed) && len(typed) <= maxTyped {
		if err := s.loadNames(ctx); err != nil {
			return nil, 0, fmt.Errorf("complete %q: %w", typed, err)
		}
		if paths, total, ok := s.names.complete(typed, n); ok {
			return paths, total, nil
		}
	}
	return s.queryNames(ctx, typed, n)
}

// maxTyped is the longest typed text memory completes: longer than any path, and short enough
// that its LIKE patterns stay within SQLite's limit of 50,000 bytes, past which the query
// fails.
const maxTyped = 8192

// queryNames is CompleteNotes as one query: the rules of completion, in SQL.
func (s *Store) queryNames(ctx context.Context, typed string, n int) (paths []string, total int, err error) {
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

// plainText reports whether s is text that SQLite's LIKE and length() read as Go does: valid
// UTF-8 without a NUL. SQLite's functions read text up to its first NUL, and read broken
// UTF-8 a character at a time in a way of their own. The steps store no other names (vault
// refuses a path that is not UTF-8, the parser repairs a note's text), and a person's typing
// arrives as JSON, which is UTF-8; so the query answers those rare texts, exactly, and memory
// all the others.
func plainText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// nameIndex is what completion reads, in memory: every note's path, title and aliases, as the
// notes table holds them. It is read at the first completion after Open or Reset, and each
// write that changes a note's names changes it the same way once it has committed, in the
// order the writes committed (see Store.commit), as the signs of a search are (signIndex).
// It takes about 100 bytes a note: the strings and their headers.
type nameIndex struct {
	mu     sync.RWMutex
	loaded bool
	names  []noteName // in no order
	// unplain counts the names that are not plainText: while there is one, the query answers.
	unplain int
}

// noteName is a note's row in the notes table, as far as completion reads it. A title that is
// part of the path (the file name, as it is) shares its bytes.
type noteName struct {
	path, title, aliases string // the aliases one a line, as the notes table holds them
}

func (n noteName) plain() bool {
	return plainText(n.path) && plainText(n.title) && plainText(n.aliases)
}

// nameChange is what a write did to a note's names, recorded in its signChanges: a note put at
// to.path (from ""), removed from from (to nil), or renamed from from to to.path, keeping its
// aliases (to.aliases is unused).
type nameChange struct {
	from string
	to   *noteName
}

// loadNames reads every note's names into memory, once, and from then on has each write
// change them as it commits. It holds the commit lock while it reads, so that no write commits
// meanwhile: every write after the state it read changes memory, and none before.
func (s *Store) loadNames(ctx context.Context) error {
	x := &s.names
	x.mu.RLock()
	loaded := x.loaded
	x.mu.RUnlock()
	if loaded {
		return nil
	}
	// A connection before the lock: a write waiting for the lock holds one of the pool's, and
	// the others may be held by writes waiting for that one.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read the notes' names: %w", err)
	}
	defer conn.Close()
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.applyNames = x.apply
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loaded {
		return nil
	}
	var count int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&count); err != nil {
		return fmt.Errorf("read the notes' names: %w", err)
	}
	// ctx is checked between rows rather than handed to the query, as NoteStates does: the
	// driver would otherwise call into SQLite twice more for each row.
	rows, err := conn.QueryContext(context.WithoutCancel(ctx), `SELECT path, title, aliases FROM notes`)
	if err != nil {
		return fmt.Errorf("read the notes' names: %w", err)
	}
	defer rows.Close()
	names, unplain := make([]noteName, 0, count), 0
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read the notes' names: %w", err)
		}
		var n noteName
		if err := rows.Scan(&n.path, &n.title, &n.aliases); err != nil {
			return fmt.Errorf("read the notes' names: %w", err)
		}
		n = n.sharing()
		if !n.plain() {
			unplain++
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the notes' names: %w", err)
	}
	x.names, x.unplain, x.loaded = names, unplain, true
	return nil
}

// sharing returns n with its title made of the path's bytes when the path holds it.
func (n noteName) sharing() noteName {
	if i := strings.Index(n.path, n.title); i >= 0 {
		n.title = n.path[i : i+len(n.title)]
	}
	return n
}

// apply makes memory match a committed transaction's changes to the notes' names. Before the
// first completion nothing is in memory, and the load will read what was committed.
//
// The notes the transaction found in the index (those its first change to them comes from)
// are taken out of memory (takeOut); its changes are played again on them, in order; and the
// notes they end as go back in. So a write that only adds notes costs appends, and one that
// edits, removes or renames a note costs a look along memory for it.
func (x *nameIndex) apply(c *signChanges) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c.reset {
		x.loaded, x.names, x.unplain = false, nil, 0
		return
	}
	if !x.loaded || len(c.names) == 0 {
		return
	}
	before := make(map[string]*noteName) // the notes found, as they were; nil until read
	seen := make(map[string]bool)
	for _, ch := range c.names {
		if ch.from != "" && !seen[ch.from] {
			before[ch.from] = nil
			seen[ch.from] = true
		}
		if ch.to != nil {
			seen[ch.to.path] = true
		}
	}
	if len(before) > 0 {
		x.takeOut(before)
	}

	after := make(map[string]*noteName) // the notes the changes touched, as they end; nil: none
	var order []string                  // their paths, in the order first touched
	set := func(path string, n *noteName) {
		if _, ok := after[path]; !ok {
			order = append(order, path)
		}
		after[path] = n
	}
	for _, ch := range c.names {
		to := ch.to
		if to != nil && ch.from != "" { // renamed: the aliases are the note's own
			was, ok := after[ch.from]
			if !ok {
				was = before[ch.from]
			}
			if was == nil { // memory did not hold the note the index renamed: read it all again
				x.loaded, x.names, x.unplain = false, nil, 0
				return
			}
			to = &noteName{path: to.path, title: to.title, aliases: was.aliases}
		}
		if ch.from != "" {
			set(ch.from, nil)
		}
		if to != nil {
			set(to.path, to)
		}
	}
	for _, p := range order {
		if n := after[p]; n != nil {
			x.names = append(x.names, n.sharing())
			x.count(*n, +1)
		}
	}
}

// takeOut removes from memory the notes at the paths of found, and sets each path's value to
// the note as it was. Memory is in no order, so the last note takes the place of one removed:
// a few removed cost a comparison of paths each, along memory, and many a pass that looks each
// note's path up in found.
func (x *nameIndex) takeOut(found map[string]*noteName) {
	remove := func(i int) {
		n := x.names[i]
		found[n.path] = &n
		x.count(n, -1)
		last := len(x.names) - 1
		x.names[i], x.names[last] = x.names[last], noteName{} // lets the strings go
		x.names = x.names[:last]
	}
	if len(found) <= 16 {
		for p := range found {
			for i := range x.names {
				if x.names[i].path == p {
					remove(i)
					break
				}
			}
		}
		return
	}
	for i := 0; i < len(x.names); {
		if _, ok := found[x.names[i].path]; ok {
			remove(i) // the last note is now at i: look at it next
			continue
		}
		i++
	}
}

// count adds d to the count of names that are not plain, when n is one.
func (x *nameIndex) count(n noteName, d int) {
	if !n.plain() {
		x.unplain += d
	}
}

// complete is CompleteNotes from memory, for typed text that is plainText; ok is false when
// memory holds a name that is not, and the query must answer.
//
// For plain text, a LIKE pattern with no wildcard but % asks for the text between its %s as
// bytes, A to Z in either case: % at both ends for anywhere in the text, at the end only for
// its start. char(10) || aliases LIKE '%' || char(10) || typed || '%' asks whether an alias
// starts with typed; length() counts characters.
func (x *nameIndex) complete(typed string, n int) (paths []string, total int, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.unplain > 0 {
		return nil, 0, false
	}
	if n == 0 { // LIMIT 0: no rows, and no count
		return nil, 0, true
	}
	lower := lowerASCII(typed)
	// The best n, in order, kept as they are found: a common few letters match thousands of
	// notes, and sorting them all would take longer than finding them.
	var best []match
	for i := range x.names {
		name := &x.names[i]
		if indexFold(name.path, lower) < 0 && indexFold(name.aliases, lower) < 0 {
			continue
		}
		total++
		rank := 3
		switch {
		case hasPrefixFold(name.path, lower):
			rank = 0
		case hasPrefixFold(name.title, lower) || hasPrefixFold(name.aliases, lower) || indexFold(name.aliases, "\n"+lower) >= 0:
			rank = 1
		case indexFold(name.title, " "+lower) >= 0 || indexFold(name.path, "/"+lower) >= 0:
			rank = 2
		}
		m := match{name.path, rank, utf8.RuneCountInString(name.path)}
		if n < 0 { // a negative LIMIT is none: all of them, sorted at the end
			best = append(best, m)
			continue
		}
		if len(best) == n && m.compare(best[n-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, m, match.compare)
		best = slices.Insert(best[:min(len(best), n-1)], at, m)
	}
	if n < 0 {
		slices.SortFunc(best, match.compare)
	}
	for _, m := range best {
		paths = append(paths, m.path)
	}
	return paths, total, true
}

// match is a note that completes typed text, with what ranks it.
type match struct {
	path         string
	rank, length int // length in characters, as SQLite's length() counts them
}

func (a match) compare(b match) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.length, b.length), strings.Compare(a.path, b.path))
}

// lowerASCII lower-cases A to Z in s, and leaves every other byte as it is.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// indexFold returns where lower first occurs in s, A to Z in s matching in either case, or -1.
// lower has no letter from A to Z.
func indexFold(s, lower string) int {
	if lower == "" {
		return 0
	}
	first, other := lower[0], lower[0]
	if 'a' <= first && first <= 'z' {
		other = first - ('a' - 'A')
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if c := s[i]; (c == first || c == other) && hasPrefixFold(s[i:], lower) {
			return i
		}
	}
	return -1
}

// hasPrefixFold reports whether s starts with lower, A to Z in s matching in either case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
