package links_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
)

func TestBacklinks(t *testing.T) {
	g := build(map[string]string{
		"Garden/Tomatoes.md": "# Tomatoes\nSee [[#Blight]].\n## Blight\nIt spreads.\n",
		"Kitchen/Sauce.md": "---\nrelated: \"[[Tomatoes]]\"\n---\n" +
			"Intro with [[Tomatoes|toms]] and [[Tomatoes#Blight]].\r\n" +
			"# Method\n\n## Roast\n  - ![[tomatoes]] roasted\n",
		"Home.md": "# Home\n[[Garden/Tomatoes]]\n",
	})
	got := g.Backlinks("Garden/Tomatoes.md")
	want := []struct {
		from, original, text, section string
		line                          int
		embed                         bool
	}{
		{"Home.md", "[[Garden/Tomatoes]]", "[[Garden/Tomatoes]]", "Home", 2, false},
		{"Kitchen/Sauce.md", "[[Tomatoes]]", "related: [[Tomatoes]]", "", 0, false},
		{"Kitchen/Sauce.md", "[[Tomatoes|toms]]", "Intro with [[Tomatoes|toms]] and [[Tomatoes#Blight]].", "", 4, false},
		{"Kitchen/Sauce.md", "[[Tomatoes#Blight]]", "Intro with [[Tomatoes|toms]] and [[Tomatoes#Blight]].", "", 4, false},
		{"Kitchen/Sauce.md", "![[tomatoes]]", "  - ![[tomatoes]] roasted", "Roast", 8, true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d backlinks, want %d (a note's links to itself are not backlinks): %+v", len(got), len(want), got)
	}
	for i, w := range want {
		r := got[i]
		if r.From != w.from || r.Link.Original != w.original || r.Text != w.text || r.Section != w.section ||
			r.Link.Line != w.line || r.Link.Embed != w.embed || r.To != "Garden/Tomatoes.md" {
			t.Errorf("backlink %d = %+v\nwant %+v", i, r, w)
		}
	}

	self := g.Outgoing("Garden/Tomatoes.md")
	if len(self) != 1 || self[0].To != "Garden/Tomatoes.md" || self[0].Link.Heading != "Blight" || self[0].Section != "Tomatoes" {
		t.Errorf("Outgoing of a note linking to its own heading = %+v", self)
	}
	if got := g.Outgoing("Nowhere.md"); got != nil {
		t.Errorf("Outgoing of a note the graph does not hold = %+v, want nil", got)
	}
	if got := g.Backlinks("Nowhere.md"); got != nil {
		t.Errorf("Backlinks of a note the graph does not hold = %+v, want nil", got)
	}
}

func TestUnresolved(t *testing.T) {
	g := build(map[string]string{
		"Projects/Ideas.md": "[[Chicken coop]] and [[chicken coop.md|the coop]] and ![[coop.jpg]]\n[[../Outside]] [[../../Beyond]]",
		"Garden/Plan.md":    "[[Drip irrigation]]\n[[Chicken Coop#Roof]]\n[[Levain]] [[Home]]",
		"Home.md":           "[[Projects/Missing]] [[./Missing]]",
		"Bread/Starter.md":  "---\naliases: [Levain]\n---\n",
	})
	var got []string
	for _, m := range g.Unresolved() {
		var from []string
		for _, r := range m.Refs {
			from = append(from, fmt.Sprintf("%s:%d", r.From, r.Link.Line))
		}
		got = append(got, m.Target+" ← "+strings.Join(from, " "))
	}
	want := []string{
		"../Beyond ← Projects/Ideas.md:2",
		"Chicken Coop ← Garden/Plan.md:2 Projects/Ideas.md:1 Projects/Ideas.md:1",
		"Drip irrigation ← Garden/Plan.md:1",
		"Missing ← Home.md:1",
		"Outside ← Projects/Ideas.md:2",
		"Projects/Missing ← Home.md:1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Unresolved:\n got  %q\n want %q", got, want)
	}
}

// Each change is checked against a graph built from scratch over the notes as they are then.
func TestUpdates(t *testing.T) {
	notes := map[string]string{
		"Home.md":             "[[Ideas]] [[Levain]] [[Garden/Ideas]] [[Plan]]",
		"Garden/Plan.md":      "[[Ideas]] [[./Ideas]] [[../Home]]",
		"Garden/Ideas.md":     "[[Plan]]",
		"Projects/Ideas.md":   "",
		"Bread/Starter.md":    "---\naliases: [Levain]\n---\n[[Ideas]]",
		"Archive/Old Plan.md": "[[Plan]]",
	}
	g := build(notes)
	step := func(what string, change func()) {
		t.Helper()
		change()
		t.Run(what, func(t *testing.T) { sameGraph(t, g, build(notes), allPaths(notes)) })
	}

	step("edit a note's links", func() {
		notes["Home.md"] = "[[Projects/Ideas]]"
		set(g, "Home.md", notes["Home.md"])
	})
	step("drop an alias", func() {
		notes["Bread/Starter.md"] = "[[Ideas]]"
		set(g, "Bread/Starter.md", notes["Bread/Starter.md"])
	})
	step("give the alias to another note", func() {
		notes["Garden/Ideas.md"] = "---\nalias: levain\n---\n[[Plan]]"
		set(g, "Garden/Ideas.md", notes["Garden/Ideas.md"])
	})
	step("add a note that takes over a name", func() {
		notes["Ideas.md"] = ""
		set(g, "Ideas.md", "")
	})
	step("remove it again", func() {
		delete(notes, "Ideas.md")
		g.Remove("Ideas.md")
	})
	step("rename a note into another folder", func() {
		notes["Projects/Plan.md"] = notes["Garden/Plan.md"]
		delete(notes, "Garden/Plan.md")
		g.Rename("Garden/Plan.md", "Projects/Plan.md")
	})
	step("rename a note onto another one", func() {
		notes["Projects/Ideas.md"] = notes["Garden/Ideas.md"]
		delete(notes, "Garden/Ideas.md")
		g.Rename("Garden/Ideas.md", "Projects/Ideas.md")
	})
	step("remove a note that does not exist", func() { g.Remove("Nowhere.md") })
	step("rename a note that does not exist", func() { g.Rename("Nowhere.md", "Somewhere.md") })
	step("rename a note to itself", func() { g.Rename("Home.md", "Home.md") })
}

// After a rename, links that named the old path stay as written: Obsidian would rewrite them.
func TestRenameLeavesLinksAsWritten(t *testing.T) {
	g := build(map[string]string{
		"Home.md":            "[[Garden/Tomatoes]] [[Tomatoes]]",
		"Garden/Tomatoes.md": "[[./Beds]]",
		"Garden/Beds.md":     "",
	})
	g.Rename("Garden/Tomatoes.md", "Kitchen/Tomatoes.md")

	var got []string
	for _, r := range g.Outgoing("Home.md") {
		got = append(got, r.Link.Target+" → "+r.To)
	}
	if want := []string{"Garden/Tomatoes → ", "Tomatoes → Kitchen/Tomatoes.md"}; !slices.Equal(got, want) {
		t.Errorf("links to the renamed note: %q, want %q", got, want)
	}
	if out := g.Outgoing("Kitchen/Tomatoes.md"); len(out) != 1 || out[0].To != "" || out[0].From != "Kitchen/Tomatoes.md" {
		t.Errorf("the renamed note's ./ link now starts from its new folder, where there is no Beds: %+v", out)
	}
	if g.Outgoing("Garden/Tomatoes.md") != nil {
		t.Error("the old path still holds a note")
	}
}

// A link in a long paragraph keeps the text around it, not the whole line, and the text is
// cut between characters.
func TestLongLineText(t *testing.T) {
	long := strings.Repeat("é", 5000) + " see [[Target]] here " + strings.Repeat("ü", 5000)
	g := build(map[string]string{"Target.md": "", "Long.md": long, "Short.md": "a [[Target]] b"})
	back := g.Backlinks("Target.md")
	if len(back) != 2 || back[1].Text != "a [[Target]] b" {
		t.Fatalf("Backlinks(Target) = %+v", back)
	}
	text := back[0].Text
	if len(text) > links.MaxText+2*len("…") || !strings.Contains(text, "see [[Target]] here") ||
		!utf8.ValidString(text) || !strings.HasPrefix(text, "…é") || !strings.HasSuffix(text, "ü…") {
		t.Errorf("the text of a link in a line of %d bytes is %d bytes: %q", len(long), len(text), text)
	}
}

// Random changes to a small vault whose notes share names, aliases and folders, each compared
// with a graph built from scratch.
func TestRandomUpdates(t *testing.T) {
	notes := map[string]string{}
	g := links.New()
	next := randomChanges(rand.New(rand.NewPCG(1, 2)))
	for i := range 2000 {
		c := next()
		switch c.op {
		case "set":
			set(g, c.path, c.content)
		case "remove":
			g.Remove(c.path)
		case "rename":
			g.Rename(c.path, c.to)
		}
		c.apply(notes)
		paths := append(allPaths(notes), "Ideas.md", "A/Plan.md") // and some that may not exist
		if !reflect.DeepEqual(snapshotOf(g, paths), snapshotOf(build(notes), paths)) {
			t.Logf("operation %d: %s", i, c)
			sameGraph(t, g, build(notes), paths)
		}
	}
}

// change is a change to a vault: a note set to content, removed, or renamed to another path.
type change struct {
	op, path, to, content string
}

func (c change) String() string { return strings.TrimSpace(c.op + " " + c.path + " " + c.to) }

// apply makes the change to notes, a map from path to content.
func (c change) apply(notes map[string]string) {
	switch c.op {
	case "set":
		notes[c.path] = c.content
	case "remove":
		delete(notes, c.path)
	case "rename":
		if content, ok := notes[c.path]; ok && c.path != c.to {
			delete(notes, c.path)
			notes[c.to] = content
		}
	}
}

// randomChanges returns a source of random changes to a small vault whose notes share names,
// aliases and folders, and link to each other in every form: by name, by path, relative, to
// a heading of themselves.
func randomChanges(rng *rand.Rand) func() change {
	folders := []string{"", "A/", "B/", "A/C/"}
	names := []string{"Ideas", "ideas", "Plan", "Levain", "Note"}
	randomPath := func() string {
		return folders[rng.IntN(len(folders))] + names[rng.IntN(len(names))] + ".md"
	}
	randomNote := func() string {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "---\naliases: [%s, %s]\n---\n", names[rng.IntN(len(names))], names[rng.IntN(len(names))])
		}
		for range rng.IntN(6) {
			target := names[rng.IntN(len(names))]
			switch rng.IntN(6) {
			case 0:
				target = strings.TrimSuffix(randomPath(), ".md")
			case 1:
				target = "../" + target
			case 2:
				target = "./" + target + ".md"
			case 3:
				target = ""
			}
			fmt.Fprintf(&b, "## H%d\n[[%s#x]] text\n", rng.IntN(3), target)
		}
		return b.String()
	}
	return func() change {
		switch p := randomPath(); rng.IntN(4) {
		case 0, 1:
			return change{op: "set", path: p, content: randomNote()}
		case 2:
			return change{op: "remove", path: p}
		default:
			return change{op: "rename", path: p, to: randomPath()}
		}
	}
}

// Searches read the graph while a file watcher updates it; run with -race.
func TestConcurrentUse(t *testing.T) {
	g := build(map[string]string{"Home.md": "[[Ideas]] [[Plan]]", "Ideas.md": "[[Home]]"})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				p := fmt.Sprintf("F%d/Note %d.md", w, i%20)
				content := fmt.Sprintf("[[Home]] [[Note %d]] [[Ideas]]", i%7)
				g.Set(p, content, markdown.Parse(p, content))
				switch i % 3 {
				case 1:
					g.Rename(p, path.Join("G", p))
				case 2:
					g.Remove(p)
				}
			}
		})
		wg.Go(func() {
			for range 300 {
				for _, r := range g.Backlinks("Home.md") {
					if r.To != "Home.md" {
						t.Errorf("a backlink of Home.md leads to %q", r.To)
						return
					}
				}
				g.Outgoing("Home.md")
				g.Unresolved()
				g.Resolve("F1/x.md", "Note 3")
			}
		})
	}
	wg.Wait()
}

func allPaths(notes map[string]string) []string {
	return slices.Sorted(maps.Keys(notes))
}
