package markdown_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/testvaults"
)

// The answer key: for each note in tasks-test-data/notes, the JSON that a running Obsidian
// reported from its metadata cache. These types read the parts we compare.
type obsidianReport struct {
	FileContents   string `json:"fileContents"`
	CachedMetadata struct {
		Frontmatter         map[string]any  `json:"frontmatter"`
		FrontmatterPosition json.RawMessage `json:"frontmatterPosition"`
		FrontmatterLinks    []obsidianLink  `json:"frontmatterLinks"`
		Headings            []struct {
			Heading  string           `json:"heading"`
			Level    int              `json:"level"`
			Position obsidianPosition `json:"position"`
		} `json:"headings"`
		Links  []obsidianLink `json:"links"`
		Embeds []obsidianLink `json:"embeds"`
		Tags   []struct {
			Tag      string           `json:"tag"`
			Position obsidianPosition `json:"position"`
		} `json:"tags"`
	} `json:"cachedMetadata"`
	FrontmatterTags []string `json:"parseFrontMatterTags"`
}

type obsidianLink struct {
	Link        string           `json:"link"`
	Original    string           `json:"original"`
	DisplayText string           `json:"displayText"`
	Key         string           `json:"key"` // frontmatter links only
	Position    obsidianPosition `json:"position"`
}

type obsidianPosition struct {
	Start struct {
		Line int `json:"line"` // 0-based
	} `json:"start"`
}

// deviation is a place where we knowingly differ from Obsidian, with the reason. The entries
// are in the form the comparison prints, so a failure shows what to copy here (with a reason).
type deviation struct {
	why  string
	drop []string // what Obsidian reports and we do not
	add  []string // what we report and Obsidian does not
}

// knownDeviations is keyed by note file name and aspect.
var knownDeviations = map[string]deviation{
	"comments_markdown_style.md tags": {
		why:  "Obsidian indexes tags inside %% comments %%, though it hides them when reading; a comment is not content, so we skip it",
		drop: []string{"5 #task", "8 #i-am-parsed-by-obsidian"},
	},
	"comments_markdown_style.md links": {
		why:  "Obsidian indexes links inside %% comments %% too; we skip them for the same reason",
		drop: []string{"9 [[comments_html_style]] → comments_html_style | comments_html_style"},
	},
	"internal_heading_links.md tags": {
		why:  `Obsidian starts a tag right after a backslash escape ("\[\[#Escaped"); we follow its documented rule that a tag follows a space or starts the line`,
		drop: []string{"43 #Escaped"},
	},
	"yaml_tags_with_two_values_on_one_line.md frontmatter tags": {
		why: `Obsidian ignores "tags: a, b" altogether (it wants a YAML list); older Obsidian and many vaults write tags that way, and dropping what the author meant helps nobody`,
		add: []string{"#value-1-of-2-on-one-line", "#value-2-of-2-on-one-line"},
	},
	"empty_yaml.md frontmatter": {
		why:  `Obsidian needs a line between the fences and shows "---\n---" as two rules; we read it as an empty frontmatter, which is what it is`,
		drop: []string{"absent"},
		add:  []string{"present {}"},
	},
}

func TestMatchesObsidian(t *testing.T) {
	dir := testvaults.Dir(t, "tasks-test-data")
	reports, err := filepath.Glob(filepath.Join(dir, "obsidian-metadata", "*.json"))
	if err != nil || len(reports) == 0 {
		t.Fatalf("no answer key in %s (err %v)", dir, err)
	}
	used := map[string]bool{}
	for _, report := range reports {
		name := strings.TrimSuffix(filepath.Base(report), ".json") + ".md"
		t.Run(name, func(t *testing.T) {
			var want obsidianReport
			readJSON(t, report, &want)
			content, err := os.ReadFile(filepath.Join(dir, "notes", name))
			if err != nil {
				t.Fatal(err)
			}
			if string(content) != want.FileContents {
				t.Fatalf("notes/%s is not the file Obsidian read", name)
			}
			got := markdown.Parse("Test Data/"+name, string(content))

			for _, aspect := range []struct {
				name      string
				want, got []string
			}{
				{"headings", obsidianHeadings(want), ourHeadings(got)},
				{"links", obsidianLinks(want.CachedMetadata.Links), ourLinks(got, false)},
				{"embeds", obsidianLinks(want.CachedMetadata.Embeds), ourLinks(got, true)},
				{"frontmatter links", obsidianLinks(want.CachedMetadata.FrontmatterLinks), ourFrontmatterLinks(got)},
				{"tags", obsidianTags(want), ourTags(got, false)},
				{"frontmatter tags", prefixed(want.FrontmatterTags), ourTags(got, true)},
				{"frontmatter", obsidianFrontmatter(t, want), ourFrontmatter(t, got)},
			} {
				key := name + " " + aspect.name
				expected := aspect.want
				if d, ok := knownDeviations[key]; ok {
					used[key] = true
					expected = apply(t, key, d, expected)
				}
				slices.Sort(expected)
				slices.Sort(aspect.got)
				if !slices.Equal(expected, aspect.got) {
					t.Errorf("%s differ from Obsidian's\nObsidian (with known deviations): %q\nours: %q",
						aspect.name, expected, aspect.got)
				}
			}
		})
	}
	for key := range knownDeviations {
		if !used[key] && !t.Failed() {
			t.Errorf("known deviation %q matches no note; remove it", key)
		}
	}
}

// apply turns Obsidian's answer into ours for a known deviation, and fails if the deviation no
// longer applies, so the list cannot go stale.
func apply(t *testing.T, key string, d deviation, entries []string) []string {
	t.Helper()
	out := slices.Clone(entries)
	for _, e := range d.drop {
		i := slices.Index(out, e)
		if i < 0 {
			t.Errorf("%s: deviation drops %q, which Obsidian does not report", key, e)
			continue
		}
		out = slices.Delete(out, i, i+1)
	}
	return append(out, d.add...)
}

func obsidianHeadings(r obsidianReport) []string {
	out := []string{}
	for _, h := range r.CachedMetadata.Headings {
		out = append(out, fmt.Sprintf("%d h%d %s", h.Position.Start.Line+1, h.Level, h.Heading))
	}
	return out
}

func ourHeadings(n markdown.Note) []string {
	out := []string{}
	for _, h := range n.Headings {
		out = append(out, fmt.Sprintf("%d h%d %s", h.Line, h.Level, h.Text))
	}
	return out
}

func obsidianLinks(links []obsidianLink) []string {
	out := []string{}
	for _, l := range links {
		if l.Key != "" {
			out = append(out, fmt.Sprintf("%s: %s → %s | %s", l.Key, l.Original, l.Link, l.DisplayText))
		} else {
			out = append(out, fmt.Sprintf("%d %s → %s | %s", l.Position.Start.Line+1, l.Original, l.Link, l.DisplayText))
		}
	}
	return out
}

func ourLinks(n markdown.Note, embeds bool) []string {
	out := []string{}
	for _, l := range n.Links {
		if l.Key == "" && l.Embed == embeds {
			out = append(out, fmt.Sprintf("%d %s → %s | %s", l.Line, l.Original, obsidianLinkText(l), displayText(l)))
		}
	}
	return out
}

func ourFrontmatterLinks(n markdown.Note) []string {
	out := []string{}
	for _, l := range n.Links {
		if l.Key != "" {
			out = append(out, fmt.Sprintf("%s: %s → %s | %s", l.Key, l.Original, obsidianLinkText(l), displayText(l)))
		}
	}
	return out
}

// obsidianLinkText puts a link back together the way Obsidian reports it: "note#heading".
func obsidianLinkText(l markdown.Link) string {
	s := l.Target
	if l.Heading != "" {
		s += "#" + l.Heading
	}
	if l.Block != "" {
		s += "#^" + l.Block
	}
	return s
}

// displayText is what Obsidian shows for a link: its display text, or "note > heading > subheading".
func displayText(l markdown.Link) string {
	if l.Display != "" || l.Markdown {
		return l.Display
	}
	var parts []string
	if l.Target != "" {
		parts = append(parts, l.Target)
	}
	if l.Heading != "" {
		parts = append(parts, strings.Split(l.Heading, "#")...)
	}
	if l.Block != "" {
		parts = append(parts, "^"+l.Block)
	}
	return strings.Join(parts, " > ")
}

func obsidianTags(r obsidianReport) []string {
	out := []string{}
	for _, tag := range r.CachedMetadata.Tags {
		out = append(out, fmt.Sprintf("%d %s", tag.Position.Start.Line+1, tag.Tag))
	}
	return out
}

func ourTags(n markdown.Note, frontmatter bool) []string {
	out := []string{}
	for _, tag := range n.Tags {
		switch {
		case frontmatter && tag.Line == 0:
			out = append(out, "#"+tag.Name)
		case !frontmatter && tag.Line > 0:
			out = append(out, fmt.Sprintf("%d #%s", tag.Line, tag.Name))
		}
	}
	return out
}

func prefixed(tags []string) []string {
	out := []string{}
	for _, tag := range tags {
		out = append(out, "#"+strings.TrimPrefix(tag, "#"))
	}
	return out
}

// The frontmatter compares as JSON, since that is how our tools will return it.
func obsidianFrontmatter(t *testing.T, r obsidianReport) []string {
	if r.CachedMetadata.FrontmatterPosition == nil || string(r.CachedMetadata.FrontmatterPosition) == "null" {
		return []string{"absent"}
	}
	return []string{"present " + canonicalJSON(t, r.CachedMetadata.Frontmatter)}
}

func ourFrontmatter(t *testing.T, n markdown.Note) []string {
	switch fm := n.Frontmatter; {
	case !fm.Present:
		return []string{"absent"}
	case fm.Err != nil:
		return []string{"unparsed: " + fm.Err.Error()}
	default:
		return []string{"present " + canonicalJSON(t, fm.Fields)}
	}
}

// canonicalJSON encodes v with its numbers read back as float64, as from Obsidian's JSON.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("frontmatter is not JSON-encodable: %v", err)
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(back)
	return string(b)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
