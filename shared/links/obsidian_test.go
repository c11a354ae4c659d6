package links_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/links"
	"vaultmcp/shared/testvaults"
)

// obsidianReport is the part of the answer key read here: for each note of tasks-test-data,
// what a running Obsidian resolved each of its links to. resolveLinkToPath maps a link as
// Obsidian reports it ("note#heading") to the file it leads to, or null (read as "") when none.
type obsidianReport struct {
	FilePath          string            `json:"filePath"`
	FileContents      string            `json:"fileContents"`
	ResolveLinkToPath map[string]string `json:"resolveLinkToPath"`
}

// resolutionDeviations are the links we knowingly resolve differently from Obsidian, keyed by
// note file name and link as Obsidian reports it, with the reason.
var resolutionDeviations = map[string]string{
	"link_in_task_wikilink.md a_pdf_file.pdf":      "a PDF is an attachment: the graph holds notes only, so it neither resolves the link nor calls it missing",
	"link_in_task_markdown_link.md a_pdf_file.pdf": "the same attachment, linked the Markdown way",
}

func TestMatchesObsidian(t *testing.T) {
	dir := testvaults.Dir(t, "tasks-test-data")
	keys, err := filepath.Glob(filepath.Join(dir, "obsidian-metadata", "*.json"))
	if err != nil || len(keys) == 0 {
		t.Fatalf("no answer key in %s (err %v)", dir, err)
	}

	// The vault Obsidian ran on held these notes in "Test Data/", and more in other folders
	// that the copy leaves out; the answers name those, so they are added back, empty.
	notes := map[string]string{}
	reports := map[string]obsidianReport{}
	for _, key := range keys {
		var r obsidianReport
		readJSON(t, key, &r)
		content, err := os.ReadFile(filepath.Join(dir, "notes", filepath.Base(r.FilePath)))
		if err != nil || string(content) != r.FileContents {
			t.Fatalf("notes/%s is not the file Obsidian read (err %v)", filepath.Base(r.FilePath), err)
		}
		notes[r.FilePath] = r.FileContents
		reports[r.FilePath] = r
	}
	for _, r := range reports {
		for _, to := range r.ResolveLinkToPath {
			if _, ok := notes[to]; !ok && strings.HasSuffix(to, ".md") {
				notes[to] = ""
			}
		}
	}
	g := build(notes)

	compared, used := 0, map[string]bool{}
	for from, report := range reports {
		for _, r := range g.Outgoing(from) {
			link := obsidianLinkText(r)
			want, ok := report.ResolveLinkToPath[link]
			if !ok {
				// The key records links, not embeds.
				if !r.Link.Embed {
					t.Errorf("%s: Obsidian gave no answer for %s (%q)", from, r.Link.Original, link)
				}
				continue
			}
			compared++
			name := filepath.Base(from) + " " + link
			if why, ok := resolutionDeviations[name]; ok {
				used[name] = true
				if !r.Attachment || r.To != "" {
					t.Errorf("%s: %s: known deviation (%s) no longer holds: %+v", from, r.Link.Original, why, r)
				}
				continue
			}
			if r.To != want || r.ByAlias || r.Attachment {
				t.Errorf("%s: %s resolves to %q (alias %v, attachment %v); Obsidian: %q",
					from, r.Link.Original, r.To, r.ByAlias, r.Attachment, want)
			}
		}
	}
	for name := range resolutionDeviations {
		if !used[name] {
			t.Errorf("known deviation %q matches no link; remove it", name)
		}
	}
	// The answer key holds 78 links (embeds aside); the parser skips the one in a %% comment %%.
	if compared != 77 {
		t.Errorf("compared %d links with Obsidian's answers, want 77", compared)
	}
}

// obsidianLinkText puts a link back together the way Obsidian reports it: "note#heading".
func obsidianLinkText(r links.Ref) string {
	s := r.Link.Target
	if r.Link.Heading != "" {
		s += "#" + r.Link.Heading
	}
	if r.Link.Block != "" {
		s += "#^" + r.Link.Block
	}
	return s
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
