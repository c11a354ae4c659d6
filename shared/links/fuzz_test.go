package links_test

import (
	"slices"
	"testing"
)

// FuzzGraph adds a note of any content, resolves any target from it, and removes it again;
// nothing may panic, and what the graph answers must hold together.
func FuzzGraph(f *testing.F) {
	for _, seed := range []struct{ content, target string }{
		{"[[Ideas]] [[../Ideas]] [[./x]] [[/Ideas]]", "Ideas"},
		{"---\naliases: [Levain, \"\", 3]\n---\n![[a.png]] [[#h]] [[Levain]]", "levain"},
		{"[[|]] [[|#x]] [[..]] [[.]] [[/]] [[//]] [[a/]] [[.md]]", "../../.."},
		{"[x](%zz) [y](<a b.md>) [[\u00ff\xfe]]", "\xff"},
		{"# H\n[[İstanbul]] [[ΣΊΣΥΦΟΣ]] [[ß]]", "i̇stanbul"},
	} {
		f.Add(seed.content, seed.target)
	}
	base := map[string]string{
		"Ideas.md":         "[[Levain]] [[Fuzz]]",
		"A/Ideas.md":       "[[Fuzz#h]]",
		"A/B/Starter.md":   "---\naliases: [Levain]\n---\n[[../Fuzz]]",
		"Projects/Plan.md": "[[A/Fuzz]] [[Missing]]",
	}
	paths := append(allPaths(base), "A/Fuzz.md")
	f.Fuzz(func(t *testing.T, content, target string) {
		g := build(base)
		set(g, "A/Fuzz.md", content)

		if to, ok := g.Resolve("A/Fuzz.md", target); ok && !slices.Contains(paths, to) {
			t.Fatalf("Resolve(%q) = %q, which is no note", target, to)
		}
		for _, p := range paths {
			for _, r := range g.Outgoing(p) {
				if r.To == "" || r.To == p {
					continue
				}
				if !slices.Contains(g.Backlinks(r.To), r) {
					t.Fatalf("%s links to %s, but is not among its backlinks: %+v", p, r.To, r)
				}
			}
		}
		for _, m := range g.Unresolved() {
			for _, r := range m.Refs {
				if r.To != "" || r.Attachment {
					t.Fatalf("missing note %q lists a link that leads somewhere: %+v", m.Target, r)
				}
			}
		}

		g.Remove("A/Fuzz.md")
		sameGraph(t, g, build(base), paths)
	})
}
