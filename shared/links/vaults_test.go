package links_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/links"
	"vaultmcp/shared/testvaults"
)

// counts tallies a graph's links.
type counts struct {
	links, unresolved, byAlias, attachments int
}

func countLinks(g *links.Graph, notes map[string]string) counts {
	var c counts
	for p := range notes {
		for _, r := range g.Outgoing(p) {
			c.links++
			switch {
			case r.Attachment:
				c.attachments++
			case r.To == "":
				c.unresolved++
			case r.ByAlias:
				c.byAlias++
			}
		}
	}
	return c
}

// The vaults' README counts links to missing notes the way Obsidian does, without aliases.
func TestRealVaults(t *testing.T) {
	t.Run("data-engineering-wiki", func(t *testing.T) {
		notes := readVault(t, testvaults.Dir(t, "data-engineering-wiki"))
		g := build(notes)
		c := countLinks(g, notes)
		// The README's 19 links to missing notes: 16 find nothing, and 3 name an alias
		// ([[Airflow]], [[data build tool|dbt]] twice), which Obsidian leaves unresolved.
		if c.unresolved != 16 || c.byAlias != 3 {
			t.Errorf("%d unresolved links and %d through aliases; want 16 and 3 (the README's 19)", c.unresolved, c.byAlias)
		}
		// Its 358 wikilinks, the one the README's count misses (see the markdown package) and
		// two Markdown links to notes.
		if c.links != 358+1+2 {
			t.Errorf("%d links, want 361", c.links)
		}
		// The images were left out of the copy; their embeds are attachments, not missing notes.
		if c.attachments != 30 {
			t.Errorf("%d attachment links, want 30", c.attachments)
		}
		wantResolved(t, g, "Tools/Workflow Orchestrators/Amazon MWAA.md", "Airflow", "Tools/Workflow Orchestrators/Apache Airflow.md", true)
		wantMissing(t, g, "Apache Kafka", 3)
	})

	t.Run("obsidian-garden", func(t *testing.T) {
		notes := readVault(t, testvaults.Dir(t, "obsidian-garden"))
		g := build(notes)
		c := countLinks(g, notes)
		// The README's 70 links to missing notes are those whose file name no note has; 2 of
		// them name an alias. The other 55 give a path whose folder has since been renamed
		// ([[📇 Terms/🪨 Obsidian/Link]] for 📇 Terms/💎 Obsidian/Link.md): a path that matches
		// no note is not looked up by its name alone, so they are missing too.
		if c.unresolved != 70-2+55 || c.byAlias != 2 {
			t.Errorf("%d unresolved links and %d through aliases; want 123 and 2", c.unresolved, c.byAlias)
		}
		wantMissing(t, g, "📇 Terms/🪨 Obsidian/Link", 18)

		// A note and a folder whose names differ only in case.
		wantResolved(t, g, "README.md", "⏰ ToDo Lists", "⏰ ToDo Lists.md", false)
		wantResolved(t, g, "README.md", "⏰ todo lists/Obsidian Garden Todo", "⏰ Todo Lists/Obsidian Garden Todo.md", false)
		// Emoji with zero-width joiners, in any letter case of the text around them.
		wantResolved(t, g, "README.md", "👨‍👧‍👦 PEOPLE", "👨‍👧‍👦 People.md", false)
		wantResolved(t, g, "README.md", "👩‍🌾 gardening tips/🌾 sowing your garden/🌱 planting seeds",
			"👩‍🌾 Gardening Tips/🌾 Sowing Your Garden/🌱 Planting Seeds.md", false)
		if back := g.Backlinks("👨‍👧‍👦 People.md"); len(back) == 0 {
			t.Error("no backlinks to 👨‍👧‍👦 People.md")
		}
	})
}

// The sample vault was written to show every rule; sample-vault-MAP.txt lists its links.
func TestSampleVault(t *testing.T) {
	notes := readVault(t, filepath.Join("..", "..", "sample-vault"))
	if _, ok := notes[".trash/Old idea.md"]; ok || len(notes) != 22 {
		t.Fatalf("read %d notes; want the 22 outside .trash", len(notes))
	}
	g := build(notes)

	wantResolved(t, g, "Garden/Raised beds.md", "Ideas", "Garden/Ideas.md", false) // two Ideas.md: the same folder wins
	wantResolved(t, g, "Home.md", "Projects/Ideas", "Projects/Ideas.md", false)
	wantResolved(t, g, "Home.md", "Compost.md", "Garden/Compost.md", false)
	wantResolved(t, g, "Daily/2026-03-14.md", "sourdough starter", "Kitchen/Bread/Sourdough starter.md", false)
	wantResolved(t, g, "Kitchen/Bread/Country loaf.md", "Levain", "Kitchen/Bread/Sourdough starter.md", true)
	wantResolved(t, g, "Daily/2026-03-15.md", "Creme fraiche", "Kitchen/Crème fraîche.md", true)

	var missing []string
	for _, m := range g.Unresolved() {
		missing = append(missing, m.Target)
	}
	if want := []string{"Chicken coop", "Drip irrigation", "Focaccia"}; !slices.Equal(missing, want) {
		t.Errorf("missing notes %q, want %q ([[Cold frame]] is in a comment)", missing, want)
	}

	// Raised beds is the note with the most backlinks: 7 notes, each once.
	var from []string
	for _, r := range g.Backlinks("Garden/Raised beds.md") {
		from = append(from, r.From)
	}
	want := []string{"Garden/Compost.md", "Garden/Ideas.md", "Garden/Planting calendar.md", "Home.md",
		"Projects/Rain barrel.md", "Projects/Soil moisture sensor.md", "Reading/The Patient Soil.md"}
	if !slices.Equal(from, want) {
		t.Errorf("backlinks of Raised beds from %q, want %q (the one in a code block is no link)", from, want)
	}
	for _, r := range g.Backlinks("Kitchen/Bread/Sourdough starter.md") {
		if r.From == "Kitchen/Bread/Country loaf.md" && r.Link.Line == 0 && r.Text != "related: [[Sourdough starter]]" {
			t.Errorf("the frontmatter link's text is %q", r.Text)
		}
	}
}

func wantResolved(t *testing.T, g *links.Graph, from, target, want string, byAlias bool) {
	t.Helper()
	if got, _ := g.Resolve(from, target); got != want {
		t.Errorf("[[%s]] in %s resolves to %q, want %q", target, from, got, want)
	}
	for _, r := range g.Outgoing(from) {
		if r.Link.Target == target && r.ByAlias != byAlias {
			t.Errorf("[[%s]] in %s: ByAlias is %v", target, from, r.ByAlias)
		}
	}
}

// wantMissing checks that target is a missing note with n links to it.
func wantMissing(t *testing.T, g *links.Graph, target string, n int) {
	t.Helper()
	for _, m := range g.Unresolved() {
		if strings.EqualFold(m.Target, target) {
			if len(m.Refs) != n {
				t.Errorf("%d links to the missing %q, want %d", len(m.Refs), target, n)
			}
			return
		}
	}
	t.Errorf("%q is not among the missing notes", target)
}
