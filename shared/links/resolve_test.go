package links_test

import (
	"slices"
	"testing"
)

// notesAt returns empty notes at paths, to resolve targets among.
func notesAt(paths ...string) map[string]string {
	notes := map[string]string{}
	for _, p := range paths {
		notes[p] = ""
	}
	return notes
}

func TestResolve(t *testing.T) {
	tests := []struct {
		rule    string
		notes   map[string]string
		from    string
		target  string
		want    string // "" when the target should not resolve
		byAlias bool
	}{
		// Names and paths.
		{rule: "a name finds a note in any folder", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "Ideas", want: "Garden/Ideas.md"},
		{rule: ".md may be written", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "Ideas.md", want: "Garden/Ideas.md"},
		{rule: "letter case does not matter", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "iDEAS.MD", want: "Garden/Ideas.md"},
		{rule: "letter case does not matter in other scripts", notes: notesAt("Kitchen/Crème fraîche.md"), from: "Home.md", target: "CRÈME FRAÎCHE", want: "Kitchen/Crème fraîche.md"},
		{rule: "emoji with zero-width joiners are matched as written", notes: notesAt("👨\u200d👧\u200d👦 People.md"), from: "Home.md", target: "👨\u200d👧\u200d👦 PEOPLE", want: "👨\u200d👧\u200d👦 People.md"},
		{rule: "an emoji without its joiners is another name", notes: notesAt("👨\u200d👧\u200d👦 People.md"), from: "Home.md", target: "👨👧👦 People"},
		{rule: "a path picks among notes of one name", notes: notesAt("Garden/Ideas.md", "Projects/Ideas.md"), from: "Home.md", target: "Projects/Ideas", want: "Projects/Ideas.md"},
		{rule: "a path matches the end of a note's path", notes: notesAt("Home/Garden/Ideas.md"), from: "Home.md", target: "garden/ideas", want: "Home/Garden/Ideas.md"},
		{rule: "a path matches whole folder names only", notes: notesAt("MyGarden/Ideas.md"), from: "Home.md", target: "Garden/Ideas"},
		{rule: "a path whose folder is wrong finds nothing, even when the name exists", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "Projects/Ideas"},
		{rule: "a missing note is unresolved", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "Chicken coop"},
		{rule: "a heading or block after the target is ignored", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "Ideas#^block", want: "Garden/Ideas.md"},

		// Several notes of one name.
		{rule: "1. the whole path wins, even over the linking note's folder", notes: notesAt("Ideas.md", "Garden/Ideas.md"), from: "Garden/Plan.md", target: "Ideas", want: "Ideas.md"},
		{rule: "2. then the linking note's folder", notes: notesAt("X/Ideas.md", "Garden/Ideas.md"), from: "Garden/Plan.md", target: "Ideas", want: "Garden/Ideas.md"},
		{rule: "2. the linking note's folder, for a path too", notes: notesAt("X/Sub/Ideas.md", "Garden/Sub/Ideas.md"), from: "Garden/Plan.md", target: "Sub/Ideas", want: "Garden/Sub/Ideas.md"},
		{rule: "2. folders above the linking note's do not count", notes: notesAt("Zz/Ideas.md", "Garden/Ideas.md"), from: "Garden/Sub/Plan.md", target: "Ideas", want: "Zz/Ideas.md"},
		{rule: "3. then the shortest path", notes: notesAt("Garden/Ideas.md", "Archive/2024/Ideas.md"), from: "Home.md", target: "Ideas", want: "Garden/Ideas.md"},
		{rule: "3. the shortest path string, not the fewest folders", notes: notesAt("zzzz/Note.md", "a/b/Note.md"), from: "Home.md", target: "Note", want: "a/b/Note.md"},
		{rule: "4. then the path that sorts first", notes: notesAt("Projects/Ideas.md", "Projectz/Ideas.md", "Garden2/Ideas.md"), from: "Home.md", target: "Ideas", want: "Garden2/Ideas.md"},
		{rule: "the exact spelling first", notes: notesAt("note.md", "Note.md"), from: "Home.md", target: "note", want: "note.md"},
		{rule: "the exact spelling first, whichever sorts first", notes: notesAt("note.md", "Note.md"), from: "Home.md", target: "Note", want: "Note.md"},
		{rule: "no exact spelling: any letter case, then byte order", notes: notesAt("note.md", "Note.md"), from: "Home.md", target: "NOTE", want: "Note.md"},
		{rule: "the exact spelling first within rule 2", notes: notesAt("Garden/ideas.md", "Garden/Ideas.md"), from: "Garden/Plan.md", target: "ideas", want: "Garden/ideas.md"},
		{rule: "the exact spelling first within rule 3", notes: notesAt("A/IDEAS.md", "B/Ideas.md"), from: "Home.md", target: "Ideas", want: "B/Ideas.md"},
		{rule: "the exact spelling first, for a path", notes: notesAt("garden/Ideas.md", "Garden/Ideas.md"), from: "Home.md", target: "garden/Ideas", want: "garden/Ideas.md"},
		{rule: "an earlier rule before the exact spelling", notes: notesAt("Ideas.md", "Garden/ideas.md"), from: "Home.md", target: "ideas", want: "Ideas.md"},
		{rule: "4. byte order, so capitals first", notes: notesAt("garden/Ideas.md", "Garden/Ideas.md"), from: "Home.md", target: "Ideas", want: "Garden/Ideas.md"},

		// Paths from the linking note and from the vault root.
		{rule: "../ starts from the linking note's folder", notes: notesAt("Ideas.md", "Garden/Ideas.md"), from: "Garden/Sub/Plan.md", target: "../Ideas", want: "Garden/Ideas.md"},
		{rule: "./ is the linking note's folder, before a shorter path", notes: notesAt("Ideas.md", "Garden/Ideas.md"), from: "Garden/Plan.md", target: "./Ideas", want: "Garden/Ideas.md"},
		{rule: "./ must be a whole path", notes: notesAt("Projects/Ideas.md"), from: "Garden/Plan.md", target: "./Ideas"},
		{rule: "../ cannot leave the vault", notes: notesAt("Ideas.md"), from: "Garden/Plan.md", target: "../../Ideas"},
		{rule: "a leading / starts from the vault root", notes: notesAt("Garden/Ideas.md"), from: "Projects/Plan.md", target: "/Garden/Ideas.md", want: "Garden/Ideas.md"},
		{rule: "a leading / must be a whole path", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "/Ideas"},
		{rule: "an empty target is the linking note", notes: notesAt("Garden/Plan.md"), from: "Garden/Plan.md", target: "", want: "Garden/Plan.md"},
		{rule: "a target that is only a heading is the linking note", notes: notesAt("Garden/Plan.md"), from: "Garden/Plan.md", target: "#Heading", want: "Garden/Plan.md"},

		// Aliases.
		{rule: "an alias is a name", notes: map[string]string{"Bread/Starter.md": "---\naliases: [Levain]\n---\n"}, from: "Home.md", target: "Levain", want: "Bread/Starter.md", byAlias: true},
		{rule: "an alias ignores letter case", notes: map[string]string{"Bread/Starter.md": "---\naliases:\n  - Levain\n---\n"}, from: "Home.md", target: "LEVAIN", want: "Bread/Starter.md", byAlias: true},
		{rule: "\"alias\" in any letter case, as a text of names separated by commas", notes: map[string]string{"Bread/Starter.md": "---\nAlias: Levain, Mother dough\n---\n"}, from: "Home.md", target: "mother dough", want: "Bread/Starter.md", byAlias: true},
		{rule: "a note's name wins over another note's alias", notes: map[string]string{"Bread/Starter.md": "---\naliases: [Levain]\n---\n", "Old/Levain.md": ""}, from: "Home.md", target: "Levain", want: "Old/Levain.md"},
		{rule: "an alias is a name, not a file: .md finds no alias", notes: map[string]string{"Bread/Starter.md": "---\naliases: [Levain]\n---\n"}, from: "Home.md", target: "Levain.md"},
		{rule: "an alias in the linking note's folder wins", notes: map[string]string{"A/Starter.md": "---\naliases: [Levain]\n---\n", "Bread/Sourdough.md": "---\naliases: [Levain]\n---\n"}, from: "Bread/Loaf.md", target: "Levain", want: "Bread/Sourdough.md", byAlias: true},
		{rule: "then the shortest path declaring the alias", notes: map[string]string{"A/Starter.md": "---\naliases: [Levain]\n---\n", "Bread/Sourdough.md": "---\naliases: [Levain]\n---\n"}, from: "Home.md", target: "Levain", want: "A/Starter.md", byAlias: true},
		{rule: "frontmatter that does not parse gives no aliases", notes: map[string]string{"Bread/Starter.md": "---\naliases: [Levain\n---\n"}, from: "Home.md", target: "Levain"},

		// Files that are not notes.
		{rule: "an attachment is not resolved", notes: notesAt("Garden/Ideas.md"), from: "Home.md", target: "photo.png"},
		{rule: "a note named like an attachment is found", notes: notesAt("Diagrams/flow.png.md"), from: "Home.md", target: "flow.png", want: "Diagrams/flow.png.md"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			g := build(tt.notes)
			got, ok := g.Resolve(tt.from, tt.target)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.from, tt.target, got, ok, tt.want)
			}
			// The same target in a link says whether an alias was used.
			if tt.from == "Home.md" {
				set(g, "Home.md", "[["+tt.target+"]]")
				out := g.Outgoing("Home.md")
				if len(out) != 1 || out[0].To != tt.want || out[0].ByAlias != tt.byAlias {
					t.Errorf("[[%s]] in Home.md: %+v; want To %q, ByAlias %v", tt.target, out, tt.want, tt.byAlias)
				}
			}
		})
	}
}

// The parser splits what follows the target off; the graph resolves what is left.
func TestResolveLinkForms(t *testing.T) {
	g := build(map[string]string{
		"Garden/Ideas.md":    "",
		"Garden/My Ideas.md": "",
		"Garden/Plan.md": `---
related: "[[Ideas]]"
---
# Plan
[[Ideas|my ideas]] [[Ideas#Spring|in spring]] [[Ideas#^list]] ![[Ideas]]
| a | [[Ideas\|in a table]] |
[text](Ideas.md) [text](<My Ideas.md>) [text](My%20Ideas.md#Spring) [top](#Plan)
[[#Plan]] [[#^block]] ![[photo.png|100]] ![alt](img/photo.jpg) [[Nowhere]]
`,
	})
	var got []string
	for _, r := range g.Outgoing("Garden/Plan.md") {
		to := r.To
		switch {
		case r.Attachment:
			to = "attachment"
		case to == "":
			to = "unresolved"
		}
		got = append(got, r.Link.Original+" → "+to)
	}
	want := []string{
		"[[Ideas]] → Garden/Ideas.md",
		"[[Ideas|my ideas]] → Garden/Ideas.md",
		"[[Ideas#Spring|in spring]] → Garden/Ideas.md",
		"[[Ideas#^list]] → Garden/Ideas.md",
		"![[Ideas]] → Garden/Ideas.md",
		`[[Ideas\|in a table]] → Garden/Ideas.md`,
		"[text](Ideas.md) → Garden/Ideas.md",
		"[text](<My Ideas.md>) → Garden/My Ideas.md",
		"[text](My%20Ideas.md#Spring) → Garden/My Ideas.md",
		"[top](#Plan) → Garden/Plan.md",
		"[[#Plan]] → Garden/Plan.md",
		"[[#^block]] → Garden/Plan.md",
		"![[photo.png|100]] → attachment",
		"![alt](img/photo.jpg) → attachment",
		"[[Nowhere]] → unresolved",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Outgoing:\n got  %q\n want %q", got, want)
	}
}
