package embed_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/embed"
)

const (
	denseLoaves = "Dense loaf troubleshooting > Underproofing\n\nUnderproofing is the most common " +
		"reason for a dense sourdough loaf: the dough was baked before the yeast made enough gas."
	tomatoes = "Tomatoes > Varieties\n\nSungold for eating off the plant, San Marzano for sauce. " +
		"Pinch out the side shoots every week and water at the base."
)

func TestLexicalRanksSharedWordsHigher(t *testing.T) {
	query := embed.Lexical("why is my bread dense", 768)
	bread := embed.Cosine(query, embed.Lexical(denseLoaves, 768))
	garden := embed.Cosine(query, embed.Lexical(tomatoes, 768))
	if bread <= garden {
		t.Errorf("a query about dense bread scores %.3f against the dense loaf note and %.3f against tomatoes; want the loaf higher", bread, garden)
	}
	if bread < 0.1 {
		t.Errorf("a query about dense bread scores only %.3f against the dense loaf note", bread)
	}
}

func TestLexicalIsDeterministicAndNormalized(t *testing.T) {
	for _, text := range []string{"sourdough", denseLoaves, tomatoes, strings.Repeat("crumb ", 1000)} {
		a, b := embed.Lexical(text, 768), embed.Lexical(text, 768)
		if !slices.Equal(a, b) {
			t.Errorf("Lexical(%.20q) differs between two calls", text)
		}
		if n := norm(a); math.Abs(n-1) > 1e-5 {
			t.Errorf("Lexical(%.20q) has length %v, want 1", text, n)
		}
	}
}

// The positions and signs a word lands on are part of every stored vector: if they change,
// vectors indexed before no longer match queries embedded after.
func TestLexicalPositionsAreStable(t *testing.T) {
	got := map[int]bool{} // position → positive
	for i, x := range embed.Lexical("sourdough", 768) {
		if x != 0 {
			got[i] = x > 0
		}
	}
	want := map[int]bool{18: false, 219: true, 381: true, 519: true, 524: true, 563: true, 603: true, 653: true, 707: true, 765: false}
	if len(got) != len(want) {
		t.Fatalf("Lexical(\"sourdough\") is non-zero at %v, want %v.\nIf Lexical changed on purpose, "+
			"change OfflineModel too (so indexes are rebuilt) and then this test", got, want)
	}
	for i, positive := range want {
		if p, ok := got[i]; !ok || p != positive {
			t.Fatalf("Lexical(\"sourdough\") is non-zero at %v, want %v.\nIf Lexical changed on purpose, "+
				"change OfflineModel too (so indexes are rebuilt) and then this test", got, want)
		}
	}
}

func TestLexicalNormalizesWords(t *testing.T) {
	for _, pair := range [][2]string{
		{"search_document: sourdough starter", "sourdough starter"},
		{"search_query: sourdough starter", "sourdough starter"},
		{"Crème Fraîche", "creme fraiche"},
		{"Tomatoes, berries and boxes", "tomato berry box"},
		{"the baker's loaf is in the oven", "bakers loaf oven"},
		{"FLOUR-water", "flour water"},
	} {
		if !slices.Equal(embed.Lexical(pair[0], 768), embed.Lexical(pair[1], 768)) {
			t.Errorf("Lexical(%q) and Lexical(%q) differ, want them the same", pair[0], pair[1])
		}
	}
}

func TestLexicalToleratesTypos(t *testing.T) {
	right := embed.Lexical("sourdough starter", 768)
	typo := embed.Cosine(right, embed.Lexical("sourdogh stater", 768))
	other := embed.Cosine(right, embed.Lexical("rain barrel", 768))
	if typo <= other || typo < 0.1 {
		t.Errorf("a misspelt query scores %.3f, an unrelated one %.3f; want the misspelt one clearly higher", typo, other)
	}
}

func TestLexicalWithoutWordsIsZero(t *testing.T) {
	for _, text := range []string{"", "   \n", "the and of it", "!!! --- ???", "search_query: "} {
		v := embed.Lexical(text, 768)
		if len(v) != 768 || norm(v) != 0 {
			t.Errorf("Lexical(%q) = vector of length %d and norm %v, want 768 zeros", text, len(v), norm(v))
		}
		if c := embed.Cosine(v, embed.Lexical("bread", 768)); c != 0 {
			t.Errorf("Cosine of Lexical(%q) with a real vector = %v, want 0", text, c)
		}
	}
}

func TestOffline(t *testing.T) {
	var e embed.Embedder = embed.NewOffline()
	if e.Model() != embed.OfflineModel || e.Dimensions() != 768 {
		t.Errorf("Model, Dimensions = %q, %d; want %q, 768", e.Model(), e.Dimensions(), embed.OfflineModel)
	}
	ctx := t.Context()
	docs, err := e.EmbedDocuments(ctx, []string{denseLoaves, tomatoes})
	if err != nil || len(docs) != 2 {
		t.Fatalf("EmbedDocuments = %d vectors, %v; want 2, nil", len(docs), err)
	}
	query, err := e.EmbedQuery(ctx, "why is my bread dense")
	if err != nil {
		t.Fatal(err)
	}
	if embed.Cosine(query, docs[0]) <= embed.Cosine(query, docs[1]) {
		t.Error("the query about bread is closer to the tomato section than to the bread one")
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.EmbedDocuments(cancelled, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("EmbedDocuments with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestCosine(t *testing.T) {
	for _, c := range []struct {
		a, b []float32
		want float32
	}{
		{[]float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{[]float32{1, 0}, []float32{-3, 0}, -1},
		{[]float32{1, 0}, []float32{0, 5}, 0},
		{[]float32{0, 0}, []float32{1, 1}, 0},
	} {
		if got := embed.Cosine(c.a, c.b); math.Abs(float64(got-c.want)) > 1e-6 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Cosine of vectors of different lengths did not panic")
		}
	}()
	embed.Cosine([]float32{1}, []float32{1, 2})
}

func norm(v []float32) float64 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	return math.Sqrt(sum)
}

// BenchmarkLexical embeds a chunk of the largest size step 3 makes (about 2000 bytes).
func BenchmarkLexical(b *testing.B) {
	chunk := strings.Repeat(denseLoaves+" ", 2000/len(denseLoaves))
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		embed.Lexical(chunk, 768)
	}
}
