package embed

import (
	"context"
	"iter"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OfflineModel is what the offline embedder reports as its model. The version changes
// whenever Lexical changes its output, so that an index built by an older one is rebuilt.
const OfflineModel = "offline-lexical-v1"

// Offline is an Embedder that needs no server and no model: it embeds with Lexical, at
// DefaultDimensions.
//
// It matches words, not meaning. "why is my bread dense" finds a note about dense sourdough
// loaves because both say "bread" or "dense"; it does not find one that only says "heavy,
// gummy crumb", which a real embedding model would. Use it when Ollama is not available, and
// in tests, where its vectors are exact and repeatable.
type Offline struct{}

// NewOffline returns the offline embedder.
func NewOffline() *Offline { return &Offline{} }

// EmbedDocuments returns the Lexical vector of each text.
func (*Offline) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	vectors := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vectors[i] = Lexical(text, DefaultDimensions)
	}
	return vectors, nil
}

// EmbedQuery returns the Lexical vector of text: the same as for a document, since word
// matching has no notion of question and answer.
func (*Offline) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Lexical(text, DefaultDimensions), nil
}

// Model returns OfflineModel.
func (*Offline) Model() string { return OfflineModel }

// Dimensions returns DefaultDimensions, the same as nomic-embed-text's, so that either
// embedder fits the same index.
func (*Offline) Dimensions() int { return DefaultDimensions }

// gramWeight is how much a word's three-letter pieces weigh together (the length of their
// part of the vector), against 1 for the word itself.
const gramWeight = 0.5

// Lexical embeds text as a unit vector of dims numbers by feature hashing. Each word of the
// text is hashed to one of the dims positions and adds its weight there, with a sign that also
// comes from the hash; the vector is then scaled to length 1. Texts that share words share
// positions, so the cosine of two such vectors measures how much wording they share, much as
// a keyword search does. The signs make unrelated words that land on the same position cancel
// out on average instead of piling up.
//
// Words are runs of letters and digits, lowercased, with accents removed from Latin letters
// ("crème" is "creme") and apostrophes dropped ("baker's" is "bakers"). Common English words
// ("the", "is", "why") are skipped, since they say nothing about a topic, and a plural ending
// is cut ("tomatoes" is "tomato"). A word found n times weighs 1+ln(n): repeating a word makes
// a text more about it, but less and less so. Each word also adds its three-letter pieces
// ("<to", "tom", …, "to>") at a lower weight, so "bake" and "baking", or a typo, still match
// in part.
//
// A nomic task prefix at the start ("search_document: ", "search_query: ") is ignored, so a
// text gets the same vector with or without one. A text with no words gives the zero vector.
func Lexical(text string, dims int) []float32 {
	// Count each word, keeping the order of first appearance: floating-point sums depend on
	// the order of their terms, and a map's order changes from run to run.
	var order []string
	counts := map[string]int{}
	for word := range words(stripTaskPrefix(text)) {
		if counts[word] == 0 {
			order = append(order, word)
		}
		counts[word]++
	}

	vector := make([]float32, dims)
	var gram []byte
	for _, word := range order {
		weight := 1 + math.Log(float64(counts[word]))
		add(vector, hash('w', word), weight)

		gram = append(append(append(gram[:0], '<'), word...), '>')
		n := len(gram) - 2 // the three-byte pieces of "<word>" (three letters, in English)
		for i := range n {
			add(vector, hash('g', gram[i:i+3]), weight*gramWeight/math.Sqrt(float64(n)))
		}
	}
	normalize(vector)
	return vector
}

// hash is 64-bit FNV-1a of kind and s, with a final mix so that every bit of the result depends
// on every byte (FNV alone mixes its low bits poorly, and add uses them). It must be a fixed
// function, the same in every process: a vector stored yesterday is compared with a query
// embedded today. kind keeps a word and a three-letter piece with the same letters apart.
func hash[S string | []byte](kind byte, s S) uint64 {
	const prime = 1099511628211
	h := (14695981039346656037 ^ uint64(kind)) * prime
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * prime
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// add puts weight at the position the hash picks, with the sign its top bit picks.
func add(vector []float32, hash uint64, weight float64) {
	i := hash % uint64(len(vector))
	if hash>>63 == 1 {
		weight = -weight
	}
	vector[i] += float32(weight)
}

func normalize(vector []float32) {
	var sum float64
	for _, x := range vector {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	scale := float32(1 / math.Sqrt(sum))
	for i := range vector {
		vector[i] *= scale
	}
}

// taskPrefixes are the prefixes nomic-embed-text expects before a text, naming the task.
var taskPrefixes = []string{"search_document: ", "search_query: ", "clustering: ", "classification: "}

func stripTaskPrefix(text string) string {
	for _, p := range taskPrefixes {
		if rest, ok := strings.CutPrefix(text, p); ok {
			return rest
		}
	}
	return text
}

// words yields the words of text that carry meaning, normalized as Lexical describes.
func words(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var word []byte
		emit := func() bool {
			defer func() { word = word[:0] }()
			if utf8.RuneCount(word) < 2 || stopWords[string(word)] {
				return true
			}
			return yield(singular(string(word)))
		}
		for _, r := range text {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				r = unicode.ToLower(r)
				if plain, ok := unaccented[r]; ok {
					r = plain
				}
				word = utf8.AppendRune(word, r)
			case r == '\'' || r == '’':
				// Part of the word: "don't" is "dont", "baker's" is "bakers".
			default:
				if !emit() {
					return
				}
			}
		}
		emit()
	}
}

// singular cuts an English plural ending: "loaves" → "loave", "berries" → "berry",
// "tomatoes" → "tomato", "boxes" → "box". It is crude on purpose; the three-letter pieces
// make up for much of what it gets wrong.
func singular(w string) string {
	has := func(suffix string) bool { return strings.HasSuffix(w, suffix) }
	switch {
	case len(w) <= 3 || !has("s") || has("ss") || has("us") || has("is"):
		return w
	case has("ies"):
		return w[:len(w)-3] + "y"
	case has("sses"), has("xes"), has("ches"), has("shes"), has("oes"):
		return w[:len(w)-2]
	}
	return w[:len(w)-1]
}

// unaccented maps accented Latin small letters to the plain letter.
var unaccented = func() map[rune]rune {
	m := map[rune]rune{}
	for plain, accented := range map[rune]string{
		'a': "àáâãäåāăą", 'c': "çćĉċč", 'd': "ďđ", 'e': "èéêëēĕėęě", 'g': "ĝğġģ", 'h': "ĥħ",
		'i': "ìíîïĩīĭįı", 'j': "ĵ", 'k': "ķ", 'l': "ĺļľŀł", 'n': "ñńņň", 'o': "òóôõöøōŏő",
		'r': "ŕŗř", 's': "śŝşšș", 't': "ţťŧț", 'u': "ùúûüũūŭůűų", 'w': "ŵ", 'y': "ýÿŷ", 'z': "źżž",
	} {
		for _, r := range accented {
			m[r] = plain
		}
	}
	return m
}()

// stopWords are common English words, apostrophes removed, that say nothing about a topic.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		about above after again against all also am an and any are as at be because been before
		being below between both but by can cant could did didnt do does doesnt doing dont down
		during each even ever few for from further get gets got had has hasnt have having he her
		here hers herself him himself his how however if im in into is isnt it its itself ive just
		let me more most much must my myself no nor not now of off on once only or other our ours
		ourselves out over own same she should so some such than that thats the their theirs them
		themselves then there these they this those through to too under until up upon us very
		was wasnt we were what whats when where which while who whom whose why will with without
		wont would you youre your yours yourself yourselves`) {
		m[w] = true
	}
	return m
}()
