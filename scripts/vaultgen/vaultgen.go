// Package vaultgen writes made-up Obsidian vaults of any size for benchmarks.
//
// A benchmark needs a vault of 10,000 or 50,000 notes, and the same vault every time it runs,
// on every machine, or its figures cannot be compared. Shipping such a vault would put hundreds
// of megabytes of notes in the repository; a generator puts a few hundred lines of code there
// instead. Generate writes the same files, byte for byte, for the same Options: every choice
// comes from one math/rand/v2 PCG stream seeded with Options.Seed, through methods whose output
// the Go project pins across releases, and nothing depends on map order, time or platform.
//
// The vaults look like real ones in what costs a server time: nested folders, names in several
// scripts, long-tailed note sizes with a few notes of megabytes, frontmatter, headings, lists,
// code and tables, tags, and links of every form, some to notes that do not exist. The
// proportions are rough models of vaults we have seen, not measurements; each is stated where
// it is chosen. The prose is nonsense from a fixed vocabulary, with enough real English words
// for lexical search to find things.
package vaultgen

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"vaultmcp/shared/vault"
)

// Options says which vault to write.
type Options struct {
	Notes int   // how many notes
	Seed  int64 // same seed, same vault, byte for byte
}

// Stats is what Generate wrote.
type Stats struct {
	Notes        int64
	Folders      int64 // not counting the vault's own folder
	Bytes        int64 // of all notes
	Largest      int64 // bytes of the largest note
	Frontmatter  int64 // notes that open with frontmatter
	Headings     int64
	Tags         int64 // in frontmatter and in text
	Links        int64 // wikilinks and Markdown links to notes, in frontmatter and in text
	MissingLinks int64 // links to notes that do not exist
}

// stream is the PCG stream constant; with the seed it fixes every random choice.
const stream = 0x7661756c7467656e // "vaultgen"

// Generate writes a new vault into dir, which must not exist or be empty, and returns what it
// wrote. Notes are written with os.WriteFile and keep the time they were written as mtime.
// After an error the vault is incomplete and the Stats are zero.
func Generate(dir string, opts Options) (Stats, error) {
	if opts.Notes < 0 {
		return Stats{}, fmt.Errorf("generate vault: %d notes asked for; want 0 or more", opts.Notes)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return Stats{}, fmt.Errorf("generate vault: %w", err)
		}
	case err != nil:
		return Stats{}, fmt.Errorf("generate vault: %w", err)
	case len(entries) > 0:
		return Stats{}, fmt.Errorf("generate vault: %s is not empty; give a new or empty folder", dir)
	}

	g := &gen{r: rand.New(rand.NewPCG(uint64(opts.Seed), stream))}
	g.plan(opts.Notes)
	for _, f := range g.folders[1:] {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(f.path)), 0o755); err != nil {
			return Stats{}, fmt.Errorf("generate vault: %w", err)
		}
		g.stats.Folders++
	}

	// Creating files takes longer than generating them, and more so when the file system
	// stalls now and then, so a few goroutines write while this one generates. Every byte is
	// decided here, in order, so the vault is the same whatever order the files land in.
	type file struct {
		path    string
		content []byte
	}
	files := make(chan file, 64)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		writeErr error
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return writeErr != nil
	}
	for range writers {
		wg.Go(func() {
			for f := range files {
				if failed() {
					continue // drain, so that the generator never blocks
				}
				if err := os.WriteFile(f.path, f.content, 0o644); err != nil {
					mu.Lock()
					writeErr = cmp.Or(writeErr, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := 0; i < len(g.notes) && !failed(); i++ {
		content := g.note(i)
		files <- file{filepath.Join(dir, filepath.FromSlash(g.notes[i].path)), content}
		g.stats.Notes++
		g.stats.Bytes += int64(len(content))
		g.stats.Largest = max(g.stats.Largest, int64(len(content)))
	}
	close(files)
	wg.Wait()
	if writeErr != nil {
		return Stats{}, fmt.Errorf("generate vault: %w", writeErr)
	}
	return g.stats, nil
}

// writers is how many goroutines write notes.
const writers = 4

// gen holds the plan of a vault and generates its notes one at a time.
type gen struct {
	r       *rand.Rand
	folders []folder // folders[0] is the vault root
	notes   []note
	hubs    []int    // the much-linked notes
	missing []string // names that links lead to but no note has
	buf     []byte   // the note being written
	stats   Stats
}

type folder struct {
	path  string          // vault-relative; "" for the root
	depth int             // 0 for the root
	taken map[string]bool // lower-cased names of the files and folders in it
}

type note struct {
	path     string // vault-relative, with ".md"
	name     string // the file name without ".md"
	link     string // how a link names it: the name, or the path when other notes share the name
	size     int    // bytes to write, frontmatter included
	headings []heading
	aliases  []string
	fm       bool // opens with frontmatter
}

type heading struct {
	level int
	text  string
}

// plan decides everything that notes refer to in each other before any note is written:
// folders, names, sizes, headings, aliases, the hubs and the missing names.
func (g *gen) plan(n int) {
	g.folders = []folder{{taken: map[string]bool{}}}

	// A few dozen folders per thousand notes, up to four deep. A third of them, at most the
	// names in topFolders, sit at the top. A new folder goes more often into an early folder,
	// and the early ones are the shallow ones, so the tree is bushy at the top and thin below,
	// as vaults grow.
	daily := -1
	if n >= 20 {
		daily = g.addFolder(0, "Daily")
	}
	count := n * 36 / 1000
	top := slicesShuffled(g.r, topFolders)[:min(len(topFolders), count/3)]
	for k := range count {
		if k < len(top) {
			g.addFolder(0, top[k])
			continue
		}
		parent := g.skewed(len(g.folders))
		if g.folders[parent].depth >= 4 {
			parent = 0
		}
		g.addFolder(parent, g.folderName())
	}

	// Which folder a note goes into is skewed the same way: some folders hold hundreds of
	// notes, most a few. About one note in ten is a daily note, all in one folder.
	g.notes = make([]note, n)
	day := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	names := map[string]int{} // how many notes have each lower-cased name
	for i := range g.notes {
		nt := &g.notes[i]
		f := g.skewed(len(g.folders))
		var name string
		switch p := g.r.IntN(1000); {
		case daily >= 0 && p < 100:
			f = daily
			day = day.AddDate(0, 0, 1+g.r.IntN(3))
			name = day.Format("2006-01-02")
		case p < 115:
			name = commonNames[g.r.IntN(len(commonNames))]
		case p < 185:
			name = g.nonASCIIName()
		case p < 190:
			name = emoji[g.r.IntN(len(emoji))] + " " + g.title(1+g.r.IntN(3))
		default:
			name = g.noteName()
		}
		nt.name = g.claim(f, name, ".md")
		nt.path = path.Join(g.folders[f].path, nt.name+".md")
		names[strings.ToLower(nt.name)]++
		nt.size = g.noteSize()
		if name == "Untitled" {
			nt.size = 0 // a note created and never written in, as Obsidian leaves them
		}
	}

	// Notes of megabytes: pasted logs, exports, a book's highlights. About one and a half per
	// 10,000 notes, and one in any vault of a thousand notes or more.
	if n >= 1000 {
		huge := max(1, (n*3+g.r.IntN(20000))/20000)
		for range huge {
			g.notes[g.r.IntN(n)].size = 2<<20 + g.r.IntN(1<<20)
		}
	}

	aliases := map[string]bool{}
	for i := range g.notes {
		nt := &g.notes[i]
		if names[strings.ToLower(nt.name)] > 1 {
			nt.link = strings.TrimSuffix(nt.path, ".md")
		} else {
			nt.link = nt.name
		}
		nt.headings = g.headings(nt.size)
		nt.fm = g.r.IntN(100) < 60 && nt.size > 0 // frontmatter in three notes of five
		if nt.fm && g.r.IntN(100) < 20 {
			nt.aliases = g.aliases(nt.name)
			for _, a := range nt.aliases {
				aliases[strings.ToLower(a)] = true
			}
		}
	}

	// One note in fifty is a hub (a map of content, a person, a project) that takes three
	// links in ten: real link graphs have a few much-linked notes.
	perm := g.r.Perm(n)
	g.hubs = perm[:min(n, max(1, n/50))]

	// One link in twenty leads to a note that does not exist yet, from a pool of names so
	// that, as in a real vault, several notes wait for the same missing note.
	for range max(5, n/25) {
		for {
			name := g.title(1 + g.r.IntN(3))
			if key := strings.ToLower(name); names[key] == 0 && !aliases[key] {
				g.missing = append(g.missing, name)
				break
			}
		}
	}
}

// addFolder adds a folder named like name to parent and returns its index.
func (g *gen) addFolder(parent int, name string) int {
	p := g.folders[parent]
	name = g.claim(parent, name, "")
	g.folders = append(g.folders, folder{path: path.Join(p.path, name), depth: p.depth + 1, taken: map[string]bool{}})
	return len(g.folders) - 1
}

// claim returns a file name made from name that no file or folder in the folder f has yet in
// any letter case (macOS and Windows would not tell them apart), and takes it. Like Obsidian,
// it numbers a repeated name: "Untitled", "Untitled 1", "Untitled 2".
func (g *gen) claim(f int, name, ext string) string {
	taken := g.folders[f].taken
	candidate := name
	for k := 1; taken[strings.ToLower(candidate+ext)]; k++ {
		candidate = name + " " + strconv.Itoa(k)
	}
	taken[strings.ToLower(candidate+ext)] = true
	return candidate
}

// skewed returns an index below n, small ones more often: k comes with a probability that falls
// like log(n/k), a gentle long tail without floating point.
func (g *gen) skewed(n int) int {
	return g.r.IntN(1 + g.r.IntN(n))
}

// sizeBuckets model note sizes as a histogram of a log-normal: most notes between 500 B and
// 5 KB, one in twenty-five over 16 KB, a few over 64 KB. Weights are per thousand notes.
// A histogram, not math.Exp of a normal: float functions may differ in the last bit from one
// architecture to another, and a vault must not.
var sizeBuckets = []struct{ lo, hi, weight int }{
	{64, 256, 30},
	{256, 512, 70},
	{512, 1 << 10, 170},
	{1 << 10, 2 << 10, 260},
	{2 << 10, 4 << 10, 240},
	{4 << 10, 8 << 10, 130},
	{8 << 10, 16 << 10, 60},
	{16 << 10, 32 << 10, 28},
	{32 << 10, 64 << 10, 10},
	{64 << 10, 128 << 10, 2},
}

func (g *gen) noteSize() int {
	p := g.r.IntN(1000)
	for _, b := range sizeBuckets {
		if p < b.weight {
			return b.lo + g.r.IntN(b.hi-b.lo)
		}
		p -= b.weight
	}
	panic("vaultgen: size weights do not add up to 1000")
}

// headings returns the outline of a note of size bytes: up to one heading per 300 bytes and
// never more than 15. The first is at level 1 or 2, the others at 2 to 4, each at most one
// level from the one before.
func (g *gen) headings(size int) []heading {
	hs := make([]heading, g.r.IntN(min(15, size/300)+1))
	level := 1 + g.r.IntN(2)
	for k := range hs {
		if k > 0 {
			level = max(2, min(4, level+g.r.IntN(3)-1))
		}
		hs[k] = heading{level, g.title(1 + g.r.IntN(4))}
	}
	return hs
}

// aliases returns one or two other names for the note named name: its initials, or a
// shorter phrase, as people abbreviate what they link often.
func (g *gen) aliases(name string) []string {
	var as []string
	if fields := strings.Fields(name); len(fields) >= 2 && g.r.IntN(2) == 0 {
		var initials []rune
		for _, f := range fields {
			if r, _ := utf8.DecodeRuneInString(f); unicode.IsLetter(r) {
				initials = append(initials, unicode.ToUpper(r))
			}
		}
		if len(initials) >= 2 {
			as = append(as, string(initials))
		}
	}
	for len(as) == 0 || len(as) == 1 && g.r.IntN(3) == 0 {
		as = append(as, g.title(1+g.r.IntN(2)))
	}
	return as
}

// noteName returns an ordinary note name, in one of the styles people name notes in.
func (g *gen) noteName() string {
	for {
		var name string
		switch p := g.r.IntN(100); {
		case p < 45:
			name = g.title(1 + g.r.IntN(4))
		case p < 55:
			name = upperFirst(g.lowerWords(2 + g.r.IntN(5)))
		case p < 62:
			name = g.title(1+g.r.IntN(2)) + " - " + g.title(1+g.r.IntN(2))
		case p < 67:
			if g.r.IntN(2) == 0 {
				name = g.title(1+g.r.IntN(2)) + " " + strconv.Itoa(2015+g.r.IntN(11))
			} else {
				name = fmt.Sprintf("v%d.%d %s", 1+g.r.IntN(4), g.r.IntN(10), g.title(1+g.r.IntN(2)))
			}
		case p < 72: // a Zettelkasten ID
			name = fmt.Sprintf("%04d%02d%02d%02d%02d %s", 2018+g.r.IntN(8), 1+g.r.IntN(12), 1+g.r.IntN(28),
				g.r.IntN(24), g.r.IntN(60), upperFirst(g.lowerWords(1+g.r.IntN(4))))
		case p < 77:
			name = strings.ReplaceAll(g.lowerWords(2+g.r.IntN(3)), " ", "-")
		case p < 82:
			name = g.punctuatedName()
		case p < 87:
			name = firstNames[g.r.IntN(len(firstNames))] + " " + lastNames[g.r.IntN(len(lastNames))]
		case p < 92:
			name = "The " + g.title(1+g.r.IntN(3))
		default:
			name = g.title(1+g.r.IntN(2)) + " " + strconv.Itoa(1+g.r.IntN(99))
		}
		if validName(name) {
			return name
		}
	}
}

func (g *gen) punctuatedName() string {
	a, b := g.title(1), g.title(1+g.r.IntN(2))
	switch g.r.IntN(6) {
	case 0:
		return "What's " + b
	case 1:
		return a + " & " + b
	case 2:
		return a + ", " + b
	case 3:
		return b + " (draft)"
	case 4:
		return a + " + " + b
	}
	return "Dr. " + b
}

// nonASCIIName returns a name in or with another script.
func (g *gen) nonASCIIName() string {
	phrase := nonASCIINames[g.r.IntN(len(nonASCIINames))]
	switch g.r.IntN(3) {
	case 0:
		return phrase
	case 1:
		return phrase + " " + g.title(1)
	}
	return g.title(1) + " " + phrase
}

// folderName returns the name of a folder below the top level.
func (g *gen) folderName() string {
	for {
		var name string
		switch p := g.r.IntN(100); {
		case p < 8:
			name = g.nonASCIIName()
		case p < 9:
			name = emoji[g.r.IntN(len(emoji))] + " " + g.title(1)
		case p < 20:
			name = strconv.Itoa(2015 + g.r.IntN(11))
		case p < 30:
			name = "Project " + g.title(1)
		default:
			name = g.title(1 + g.r.IntN(2))
		}
		if validName(name) {
			return name
		}
	}
}

// validName reports whether name can be a file or folder name in a vault on every system,
// and can be linked to: Obsidian refuses # ^ [ ] | in names, as they mean something in a link.
func validName(name string) bool {
	return name != "" && len(name) <= 80 && utf8.ValidString(name) &&
		!strings.ContainsAny(name, `<>:"/\|?*#^[]%`) &&
		!strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".") &&
		strings.TrimSpace(name) == name && !vault.Reserved(name)
}

// title returns n name words in title case.
func (g *gen) title(n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(upperFirst(words[functionWords+g.skewed(len(words)-functionWords)]))
	}
	return b.String()
}

// lowerWords returns n name words in lower case.
func (g *gen) lowerWords(n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToLower(words[functionWords+g.skewed(len(words)-functionWords)]))
	}
	return b.String()
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func slicesShuffled(r *rand.Rand, s []string) []string {
	s = append([]string(nil), s...)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// note returns the content of note i.
func (g *gen) note(i int) []byte {
	nt := &g.notes[i]
	g.buf = make([]byte, 0, nt.size+nt.size/8+1024) // blocks end past the size aimed at
	if nt.size == 0 {
		return g.buf
	}
	if nt.fm {
		g.frontmatter(i)
		g.stats.Frontmatter++
	}
	// The text before the first heading and the sections under each heading share the size;
	// a note that opens with a level 1 heading has no text before it: that heading is its title.
	start, sections := len(g.buf), len(nt.headings)+1
	body := max(0, nt.size-start)
	for k := range sections {
		if k > 0 {
			h := nt.headings[k-1]
			g.buf = append(g.buf, "######"[:h.level]...)
			g.buf = append(g.buf, ' ')
			g.buf = append(g.buf, h.text...)
			g.buf = append(g.buf, "\n\n"...)
			g.stats.Headings++
		} else if len(nt.headings) > 0 && nt.headings[0].level == 1 {
			continue
		}
		for end := start + body*(k+1)/sections; len(g.buf) < end; {
			g.block(i)
		}
	}
	for len(g.buf) > 1 && g.buf[len(g.buf)-2] == '\n' {
		g.buf = g.buf[:len(g.buf)-1] // one newline at the end, not a blank line
	}
	return g.buf
}

// frontmatter writes note i's YAML properties: title, date, tags, aliases and, now and then,
// a link, each in some of the notes and some in more than one of the ways people write them.
func (g *gen) frontmatter(i int) {
	nt := &g.notes[i]
	g.buf = append(g.buf, "---\n"...)
	if g.r.IntN(2) == 0 {
		g.buf = append(g.buf, "title: "...)
		g.buf = strconv.AppendQuote(g.buf, nt.name)
		g.buf = append(g.buf, '\n')
	}
	if g.r.IntN(10) < 7 {
		day := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, g.r.IntN(7*365))
		g.buf = day.AppendFormat(append(g.buf, "date: "...), "2006-01-02\n")
	}
	if g.r.IntN(10) < 8 {
		n := 1 + g.r.IntN(4)
		g.stats.Tags += int64(n)
		switch g.r.IntN(3) {
		case 0:
			g.buf = append(g.buf, "tags: ["...)
			for k := range n {
				if k > 0 {
					g.buf = append(g.buf, ", "...)
				}
				g.buf = append(g.buf, g.tag()...)
			}
			g.buf = append(g.buf, "]\n"...)
		case 1:
			g.buf = append(g.buf, "tags:\n"...)
			for range n {
				g.buf = append(g.buf, "  - "...)
				g.buf = append(g.buf, g.tag()...)
				g.buf = append(g.buf, '\n')
			}
		default:
			g.buf = append(g.buf, "tags:"...)
			for range n {
				g.buf = append(g.buf, ' ')
				g.buf = append(g.buf, g.tag()...)
			}
			g.buf = append(g.buf, '\n')
		}
	}
	if len(nt.aliases) > 0 {
		g.buf = append(g.buf, "aliases:\n"...)
		for _, a := range nt.aliases {
			g.buf = strconv.AppendQuote(append(g.buf, "  - "...), a)
			g.buf = append(g.buf, '\n')
		}
	}
	if g.r.IntN(100) < 8 && len(g.notes) > 0 {
		g.buf = append(g.buf, "related: "...)
		g.buf = strconv.AppendQuote(g.buf, "[["+g.notes[g.r.IntN(len(g.notes))].link+"]]")
		g.buf = append(g.buf, '\n')
		g.stats.Links++
	}
	if g.r.IntN(100) < 15 {
		g.buf = append(g.buf, "status: "...)
		g.buf = append(g.buf, [...]string{"draft", "active", "done"}[g.r.IntN(3)]...)
		g.buf = append(g.buf, '\n')
	}
	g.buf = append(g.buf, "---\n"...)
}

// block writes one block of note i, and the blank line after it. Of a hundred blocks, about
// 62 are paragraphs, 22 lists, 4 quotes or callouts, 4 code, 4 tables, 4 lines of links.
// Links come at about 1.5 per KB, more than the 1 per KB of the wiki in ../shared/vaults, as
// personal vaults link more densely than a wiki, less than a pure map of links.
func (g *gen) block(i int) {
	switch p := g.r.IntN(100); {
	case p < 62:
		for k := range 1 + g.r.IntN(6) {
			if k > 0 {
				g.buf = append(g.buf, ' ')
			}
			g.sentence(i, 5+g.r.IntN(14), 5)
		}
		g.buf = append(g.buf, '\n')
	case p < 84:
		g.list(i)
	case p < 88:
		g.quote(i)
	case p < 92:
		g.code()
	case p < 96:
		g.table(i)
	default:
		g.buf = append(g.buf, [...]string{"See also: ", "Related: ", "Up: ", ""}[g.r.IntN(4)]...)
		for k := range 1 + g.r.IntN(6) {
			if k > 0 {
				g.buf = append(g.buf, ", "...)
			}
			g.link(i, false)
		}
		g.buf = append(g.buf, '\n')
	}
	g.buf = append(g.buf, '\n')
}

// sentence writes a sentence of n words and, before about one word in sixty, an inline
// element: a link (linkChance per thousand words), a tag, code, emphasis or a web link.
func (g *gen) sentence(i, n, linkChance int) {
	for k := range n {
		w := g.word()
		if k == 0 {
			w = upperFirst(w)
		} else {
			g.buf = append(g.buf, ' ')
			switch p := g.r.IntN(1000); {
			case p < linkChance:
				g.link(i, false)
				g.buf = append(g.buf, ' ')
			case p < linkChance+4:
				g.buf = append(g.buf, '#')
				g.buf = append(g.buf, g.tag()...)
				g.buf = append(g.buf, ' ')
				g.stats.Tags++
			case p < linkChance+7:
				g.buf = append(g.buf, '`')
				g.buf = append(g.buf, w...)
				g.buf = append(g.buf, "()` "...)
			case p < linkChance+12:
				g.buf = append(g.buf, "**"...)
				g.buf = append(g.buf, w...)
				g.buf = append(g.buf, "** "...)
			case p < linkChance+15:
				g.buf = append(g.buf, '*')
				g.buf = append(g.buf, w...)
				g.buf = append(g.buf, "* "...)
			case p < linkChance+16:
				g.buf = append(g.buf, '[')
				g.buf = append(g.buf, w...)
				g.buf = append(g.buf, "](https://example.com/"...)
				g.buf = append(g.buf, url.PathEscape(w)...)
				g.buf = append(g.buf, ") "...)
			}
		}
		g.buf = append(g.buf, w...)
		if k < n-1 && g.r.IntN(12) == 0 {
			g.buf = append(g.buf, ',')
		}
	}
	g.buf = append(g.buf, '.')
}

// word returns a word of prose; the vocabulary's early words come more often (see skewed).
func (g *gen) word() string { return words[g.skewed(len(words))] }

// tag returns a tag without its '#'; the early tags come more often.
func (g *gen) tag() string { return tags[g.skewed(len(tags))] }

// list writes a bulleted, numbered or task list of 2 to 9 items, some nested, some starting
// with a link, as lists of links are how many people organise notes.
func (g *gen) list(i int) {
	style := g.r.IntN(4)
	for k := range 2 + g.r.IntN(8) {
		if k > 0 && g.r.IntN(5) == 0 {
			g.buf = append(g.buf, "    "...)
		}
		switch style {
		case 0, 1:
			g.buf = append(g.buf, "- "...)
		case 2:
			g.buf = strconv.AppendInt(g.buf, int64(k+1), 10)
			g.buf = append(g.buf, ". "...)
		default:
			g.buf = append(g.buf, [...]string{"- [ ] ", "- [x] "}[g.r.IntN(2)]...)
		}
		if g.r.IntN(8) == 0 {
			g.link(i, false)
			g.buf = append(g.buf, " - "...)
		}
		g.sentence(i, 2+g.r.IntN(10), 8)
		g.buf = append(g.buf, '\n')
	}
}

// quote writes a quote or, one time in three, an Obsidian callout.
func (g *gen) quote(i int) {
	if g.r.IntN(3) == 0 {
		g.buf = append(g.buf, "> [!"...)
		g.buf = append(g.buf, [...]string{"note", "tip", "warning", "info"}[g.r.IntN(4)]...)
		g.buf = append(g.buf, "] "...)
		g.buf = append(g.buf, g.title(1+g.r.IntN(3))...)
		g.buf = append(g.buf, '\n')
	}
	for range 1 + g.r.IntN(3) {
		g.buf = append(g.buf, "> "...)
		g.sentence(i, 4+g.r.IntN(14), 5)
		g.buf = append(g.buf, '\n')
	}
}

// code writes a fenced code block. Its comments look like headings and tags, and now and then
// it holds a wikilink: none of them count, as code is not Markdown.
func (g *gen) code() {
	lang := codeLangs[g.r.IntN(len(codeLangs))]
	fence := "```"
	if g.r.IntN(10) == 0 {
		fence = "~~~"
	}
	g.buf = append(g.buf, fence...)
	g.buf = append(g.buf, lang...)
	g.buf = append(g.buf, '\n')
	for range 3 + g.r.IntN(18) {
		g.buf = append(g.buf, "    "[:4*g.r.IntN(2)]...)
		a, b := g.word(), g.word()
		switch g.r.IntN(6) {
		case 0:
			g.buf = append(g.buf, "# "...)
			g.buf = append(g.buf, a...)
			g.buf = append(g.buf, " #"...)
			g.buf = append(g.buf, b...)
		case 1:
			g.buf = append(g.buf, "// see [["...)
			g.buf = append(g.buf, upperFirst(a)...)
			g.buf = append(g.buf, "]]"...)
		case 2:
			g.buf = append(g.buf, "return "...)
			g.buf = append(g.buf, a...)
		default:
			g.buf = append(g.buf, a...)
			g.buf = append(g.buf, '_')
			g.buf = append(g.buf, b...)
			g.buf = append(g.buf, " = "...)
			g.buf = append(g.buf, b...)
			g.buf = append(g.buf, '(')
			g.buf = strconv.AppendInt(g.buf, int64(g.r.IntN(1000)), 10)
			g.buf = append(g.buf, ')')
		}
		g.buf = append(g.buf, '\n')
	}
	g.buf = append(g.buf, fence...)
	g.buf = append(g.buf, '\n')
}

// table writes a table of 2 to 5 columns and 2 to 9 rows; some cells hold links.
func (g *gen) table(i int) {
	cols := 2 + g.r.IntN(4)
	for c := range cols {
		g.buf = append(g.buf, "| "...)
		g.buf = append(g.buf, g.title(1)...)
		g.buf = append(g.buf, ' ')
		if c == cols-1 {
			g.buf = append(g.buf, "|\n"...)
		}
	}
	for c := range cols {
		g.buf = append(g.buf, "| --- "...)
		if c == cols-1 {
			g.buf = append(g.buf, "|\n"...)
		}
	}
	for range 2 + g.r.IntN(8) {
		for range cols {
			g.buf = append(g.buf, "| "...)
			switch g.r.IntN(20) {
			case 0:
				g.link(i, true)
			case 1, 2, 3, 4:
				g.buf = strconv.AppendInt(g.buf, int64(g.r.IntN(10000)), 10)
			default:
				g.buf = append(g.buf, g.word()...)
			}
			g.buf = append(g.buf, ' ')
		}
		g.buf = append(g.buf, "|\n"...)
	}
}

// link writes a link from note i. Of a hundred links, about 5 lead to missing notes and 30 to
// hubs; by form, 60 are [[Note]], 15 [[Note|display text]], 13 [[Note#Heading]], 3 with heading and
// alias, 3 embeds ![[Note]], 6 Markdown links [text](Note.md), and one in a hundred, in notes
// with headings, [[#Heading]] in the note itself. In a table the alias's '|' is written "\|".
func (g *gen) link(i int, inTable bool) {
	g.stats.Links++
	if own := g.notes[i].headings; len(own) > 0 && g.r.IntN(100) == 0 {
		g.buf = append(g.buf, "[[#"...)
		g.buf = append(g.buf, own[g.r.IntN(len(own))].text...)
		g.buf = append(g.buf, "]]"...)
		return
	}
	var target *note
	var name string
	switch p := g.r.IntN(100); {
	case p < 5:
		name = g.missing[g.r.IntN(len(g.missing))]
		g.stats.MissingLinks++
	case p < 35:
		target = &g.notes[g.hubs[g.r.IntN(len(g.hubs))]]
	default:
		target = &g.notes[g.r.IntN(len(g.notes))]
	}
	if target != nil {
		name = target.link
	}
	alias := func() string {
		if target != nil && len(target.aliases) > 0 && g.r.IntN(2) == 0 {
			return target.aliases[g.r.IntN(len(target.aliases))]
		}
		return g.lowerWords(1 + g.r.IntN(3))
	}
	sep := "|"
	if inTable {
		sep = `\|`
	}
	form := g.r.IntN(100)
	if target == nil || len(target.headings) == 0 {
		if 75 <= form && form < 91 {
			form = 0 // no heading to link to
		}
	}
	switch {
	case form < 60:
		g.buf = append(g.buf, "[["+name+"]]"...)
	case form < 75:
		g.buf = append(g.buf, "[["+name+sep+alias()+"]]"...)
	case form < 88:
		g.buf = append(g.buf, "[["+name+"#"+target.headings[g.r.IntN(len(target.headings))].text+"]]"...)
	case form < 91:
		g.buf = append(g.buf, "[["+name+"#"+target.headings[g.r.IntN(len(target.headings))].text+sep+alias()+"]]"...)
	case form < 94:
		g.buf = append(g.buf, "![["+name+"]]"...)
	default:
		// Obsidian percent-encodes a Markdown link's path, each folder name on its own.
		g.buf = append(g.buf, "["+alias()+"]("...)
		for k, part := range strings.Split(name, "/") {
			if k > 0 {
				g.buf = append(g.buf, '/')
			}
			g.buf = append(g.buf, url.PathEscape(part)...)
		}
		g.buf = append(g.buf, ".md)"...)
	}
}
