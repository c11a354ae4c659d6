package links

import (
	"reflect"
	"testing"

	"vaultmcp/shared/markdown"
)

// An index written before the lines were read from the notes kept each link's line, with its
// source text as a place in it: such a row reads as it did, and its line is not read again.
func TestOldWrittenFormStillReads(t *testing.T) {
	old := []byte(`{"t":"Starter","l":3,"i":5,"n":11,"x":"see [[Starter]] here","s":"Bread"}`)
	r, err := decodeWritten(old)
	if err != nil {
		t.Fatal(err)
	}
	want := Ref{Link: markdown.Link{Target: "Starter", Line: 3, Original: "[[Starter]]"}, Text: "see [[Starter]] here", Section: "Bread"}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("decodeWritten(old form) = %+v, want %+v", r, want)
	}
	g := &Stored{read: func(string) (string, error) { t.Fatal("read a note for a line the index holds"); return "", nil }}
	refs := []Ref{r}
	if g.withLines(refs); refs[0].Text != want.Text {
		t.Errorf("withLines replaced a kept line with %q", refs[0].Text)
	}
	if _, err := decodeWritten([]byte(`{"l":3,"i":5,"n":40,"x":"short"}`)); err == nil {
		t.Error("a source text outside its line was read without an error")
	}
}
