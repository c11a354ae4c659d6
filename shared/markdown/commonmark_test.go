package markdown

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The parser reads code spans, links and HTML comments as CommonMark does. These tests hold it
// to the examples of the CommonMark spec 0.31.2 (testdata/commonmark, with its licence): for
// each example, what the spec's HTML says is code, a link or a comment must be what the
// parser takes for code, a link or a comment. The parser renders no HTML, so each test reads
// the one thing it checks out of the spec's HTML and compares that.

type specExample struct {
	Example  int    `json:"example"`
	Section  string `json:"section"`
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
}

func specExamples(t *testing.T, sections ...string) []specExample {
	t.Helper()
	data, err := os.ReadFile("testdata/commonmark/spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []specExample
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	var out []specExample
	for _, e := range all {
		if slices.Contains(sections, e.Section) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no examples of %v", sections)
	}
	return out
}

// parseSpec parses an example's Markdown as a note's body, and returns the note and the code
// spans read, backticks included.
func parseSpec(markdown string) (Note, []string) {
	var n Note
	var code []string
	p := parser{note: &n, onCode: func(c string) { code = append(code, c) }}
	p.read(strings.TrimSuffix(markdown, "\n"), 1)
	return n, code
}

// specDeviations are the examples where we knowingly read otherwise, with the reason.
var specDeviations = map[int]string{
	183: "an indented code block (four spaces) is read as text: Obsidian's users write fences, and four spaces are far more often a nested list",
}

// linksInImages are the examples with a link or image inside an image's description. The
// spec's HTML shows the description only as the image's alt text, but CommonMark parses what
// is in it (section 6.4: "only the plain string content is rendered"), and so does the parser:
// these are the links the spec's text says the example holds, written by hand.
var linksInImages = map[int][]string{
	520: {linkKey(false, "uri1"), linkKey(true, "uri3")},
	574: {linkKey(true, "/url"), linkKey(true, "/url2")},
	575: {linkKey(false, "/url"), linkKey(true, "/url2")},
}

// TestCommonMarkCodeSpans: the code spans of every example in the spec's "Code spans"
// section, with their content as the spec's <code> elements hold it.
func TestCommonMarkCodeSpans(t *testing.T) {
	codeElement := regexp.MustCompile(`(?s)<code>(.*?)</code>`)
	for _, e := range specExamples(t, "Code spans") {
		t.Run(fmt.Sprint(e.Example), func(t *testing.T) {
			var want []string
			for _, m := range codeElement.FindAllStringSubmatch(e.HTML, -1) {
				want = append(want, html.UnescapeString(m[1]))
			}
			_, spans := parseSpec(e.Markdown)
			var got []string
			for _, c := range spans {
				got = append(got, codeContent(c))
			}
			checkExample(t, e, want, got)
		})
	}
}

// codeContent is what CommonMark shows of a code span (section 6.1): the text between the
// backtick runs, line ends read as spaces, and one space stripped from each end when both
// ends have one and the text is not all spaces.
func codeContent(span string) string {
	run := runLength(span, '`')
	c := strings.ReplaceAll(span[run:len(span)-run], "\n", " ")
	if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
		c = c[1 : len(c)-1]
	}
	return c
}

// TestCommonMarkLinks: the local destinations of the links and images in every example of the
// sections about links and what surrounds them, as the spec's <a href> and <img src> give
// them. Links to web addresses are not links between notes; both sides leave them out.
// Examples with link reference definitions ("[foo]: /url") are left out: references are not
// read (Obsidian users write inline links), and neither is raw HTML that is itself a link.
func TestCommonMarkLinks(t *testing.T) {
	target := regexp.MustCompile(`<(a href|img src)="([^"]*)"`)
	for _, e := range specExamples(t, "Links", "Images", "Autolinks", "Code spans", "Raw HTML",
		"Backslash escapes", "Entity and numeric character references") {
		if strings.Contains(e.Markdown, "]:") || strings.Contains(e.Markdown, "<a ") || strings.Contains(e.Markdown, "<img") {
			continue
		}
		t.Run(fmt.Sprint(e.Example), func(t *testing.T) {
			var want []string
			for _, m := range target.FindAllStringSubmatch(e.HTML, -1) {
				if dest := html.UnescapeString(m[2]); dest != "" && !hasScheme(dest) {
					want = append(want, linkKey(m[1] == "img src", dest))
				}
			}
			if links, ok := linksInImages[e.Example]; ok {
				want = links
			}
			n, _ := parseSpec(e.Markdown)
			var got []string
			for _, l := range n.Links {
				if l.Markdown {
					got = append(got, linkKey(l.Embed, l.Target+subpath(l)))
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			checkExample(t, e, want, got)
		})
	}
}

// linkKey writes a destination as the parser reads it: percent-decoded and split at its '#'.
func linkKey(image bool, dest string) string {
	if decoded, err := url.PathUnescape(dest); err == nil {
		dest = decoded
	}
	t, h, b := splitSubpath(dest)
	return fmt.Sprintf("image %v: %q %q %q", image, t, h, b)
}

func subpath(l Link) string {
	switch {
	case l.Block != "":
		return "#^" + l.Block
	case l.Heading != "":
		return "#" + l.Heading
	}
	return ""
}

// TestCommonMarkComments: in every example with an HTML comment, the text left once comments
// are hidden is the example's text without the comments the spec's HTML holds. A comment is
// "<!-->", "<!--->", or "<!--" up to the next "-->"; an HTML block that opens with "<!--" and
// never closes runs to the end of the document, which the spec's HTML shows as a "<!--" with
// no end.
func TestCommonMarkComments(t *testing.T) {
	comment := regexp.MustCompile(`(?s)<!--(?:>|->|.*?-->|.*$)`)
	for _, e := range specExamples(t, "HTML blocks", "Raw HTML") {
		if !strings.Contains(e.Markdown, "<!--") {
			continue
		}
		t.Run(fmt.Sprint(e.Example), func(t *testing.T) {
			want := e.Markdown
			for _, c := range comment.FindAllString(e.HTML, -1) {
				i := strings.Index(want, c)
				if i < 0 {
					t.Fatalf("example %d: the comment %q is not in the Markdown as written", e.Example, c)
				}
				want = want[:i] + want[i+len(c):]
			}
			n, _ := parseSpec(e.Markdown)
			var got []string
			for _, s := range n.Sections {
				got = append(got, s.Text)
			}
			checkExample(t, e, []string{strings.Join(strings.Fields(want), " ")}, []string{strings.Join(strings.Fields(strings.Join(got, "\n")), " ")})
		})
	}
}

// checkExample compares what the parser read of example e with what the spec says, unless e is
// a known deviation, which must then still deviate.
func checkExample(t *testing.T, e specExample, want, got []string) {
	t.Helper()
	same := slices.Equal(want, got)
	if why, ok := specDeviations[e.Example]; ok {
		if same {
			t.Errorf("example %d is listed as a deviation (%s) but now reads as the spec says; remove it", e.Example, why)
		}
		return
	}
	if !same {
		t.Errorf("example %d (%s):\n%q\nthe spec's HTML: %q\nwant %q\n got %q", e.Example, e.Section, e.Markdown, e.HTML, want, got)
	}
}
