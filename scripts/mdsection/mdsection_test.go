package mdsection

import "testing"

func TestPut(t *testing.T) {
	tests := []struct{ name, doc, before, want string }{{
		name: "into an empty file",
		doc:  "",
		want: "<!-- begin eval -->\nnew\n<!-- end eval -->\n",
	}, {
		name:   "before the anchor line",
		doc:    "# Report\n\n## Speed\n\nfast\n\n## Every result\n\nall\n",
		before: "## Every result",
		want:   "# Report\n\n## Speed\n\nfast\n\n<!-- begin eval -->\nnew\n<!-- end eval -->\n\n## Every result\n\nall\n",
	}, {
		name:   "at the end when the anchor is missing",
		doc:    "# Report\n\nfast",
		before: "## Every result",
		want:   "# Report\n\nfast\n\n<!-- begin eval -->\nnew\n<!-- end eval -->\n",
	}, {
		name:   "in place of the old section, wherever it is",
		doc:    "# Report\n\n<!-- begin eval -->\nold\nlines\n<!-- end eval -->\n\n## Every result\n",
		before: "# Report",
		want:   "# Report\n\n<!-- begin eval -->\nnew\n<!-- end eval -->\n\n## Every result\n",
	}, {
		name:   "markers quoted inside a line are text",
		doc:    "say `<!-- begin eval -->` to start\n## Every result\n",
		before: "## Every result",
		want:   "say `<!-- begin eval -->` to start\n<!-- begin eval -->\nnew\n<!-- end eval -->\n\n## Every result\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := []byte(tt.doc)
			got := string(Put(doc, "eval", []byte("new"), tt.before))
			if got != tt.want {
				t.Errorf("Put =\n%q\nwant\n%q", got, tt.want)
			}
			if string(doc) != tt.doc {
				t.Errorf("Put changed its argument to %q", doc)
			}
		})
	}
}

func TestGet(t *testing.T) {
	doc := []byte("# Report\n<!-- begin eval -->\n## Search quality\n\n| a |\n<!-- end eval -->\n<!-- begin other -->\nx\n<!-- end other -->\n")
	got, ok := Get(doc, "eval")
	if !ok || string(got) != "## Search quality\n\n| a |\n" {
		t.Errorf("Get = %q, %v", got, ok)
	}
	// What Get returns, Put puts back unchanged.
	if again := Put(doc, "eval", got, ""); string(again) != string(doc) {
		t.Errorf("Put(Get) changed the file:\n%q\nwas\n%q", again, doc)
	}
	if _, ok := Get([]byte("# Report\n<!-- begin eval -->\nno end\n"), "eval"); ok {
		t.Error("Get found a section without its end marker")
	}
	if _, ok := Get(doc, "missing"); ok {
		t.Error("Get found a section that is not there")
	}
}
