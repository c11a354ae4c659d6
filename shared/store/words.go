package store

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// How text becomes the words of the keyword index.
//
// FTS5 splits text into tokens with a tokenizer. Its unicode61 tokenizer splits at every
// character that is not a letter or a digit, which suits English and German, and fails two
// kinds of text people search their notes for:
//
//   - Chinese and Japanese are written without spaces, so unicode61 makes a whole sentence one
//     token, and a query for a word in it finds nothing. The usual answer, as in Lucene's CJK
//     analyzer, is overlapping pairs of characters: 普洱茶冲泡 becomes 普洱 洱茶 茶冲 冲泡, and a
//     query for 洱茶 or 普洱茶 (普洱 洱茶) finds it.
//   - Syntax: a model searching for "%%", "![[", "^block-id" or "obsidian://open" wants the
//     punctuation matched, and unicode61 drops it.
//
// FTS5's trigram tokenizer handles both, but needs three characters (花见 and %% have two) and
// makes an index several times the size of the text. So terms splits the text itself, and the
// table's tokenizer only has to split at the spaces terms puts in. FTS5's ascii tokenizer is
// the simplest that does: it keeps every non-ASCII character, and its tokenchars make it keep
// the punctuation (terms has already lower-cased the text and removed its diacritics). Writing
// takes a fifth less time with it than with unicode61, which classifies every character again.
// Both the index and the queries go through terms, so they agree on every word.
//
// The rules:
//   - A run of letters and digits (any script but the CJK ones) is a word, lower-cased and
//     without diacritics: "Crème" is "creme". An English word is cut to its stem (see stem), so
//     "slugs" finds "slug" and "planting" finds "planted".
//   - A run of CJK characters gives its overlapping pairs, or the character if it stands alone.
//   - A run of ASCII punctuation is a word if it is two characters or more ("%%", "![[",
//     "://"), or one of the characters Markdown and code give a meaning to (such as # ^ [ ] >).
//     Commas, full stops and the like on their own are left out: they are in every note.
//   - Anything else separates words, the underscore included: "yaml_cssclasses" is two words,
//     so a query for either finds it, and the query "yaml_cssclasses" asks for them together.

// symbolChars are the ASCII punctuation characters a word may be made of; the table's
// tokenizer keeps them (its tokenchars). Quotes are not among them, so that no word needs
// escaping inside an FTS5 query's "...".
const symbolChars = "!#$%&()*+,-./:;<=>?@[\\]^`{|}~"

// markupChars are the punctuation characters that are a word on their own.
const markupChars = "!#$%&*+<=>@[\\]^`{|}~"

// wordsTable is the keyword index: one row for each section, with the section's id as its
// rowid, so that a keyword hit joins the sections table as a vector hit does. It is
// contentless (an empty content option): the text is in notes and sections already, and the
// index keeps only which words occur where. contentless_delete lets a row be deleted by its rowid alone.
const wordsTable = `
CREATE VIRTUAL TABLE words USING fts5(
	title, aliases, heading, body,
	content = '', contentless_delete = 1,
	tokenize = "ascii tokenchars '` + symbolChars + `'"
);
-- How many sections hold each word: for the weight of a word in a query.
CREATE VIRTUAL TABLE word_counts USING fts5vocab(words, row);
`

// terms splits text into the words of the keyword index, in order, as described above.
func terms(text string) []string {
	text = fold(text)
	var out []string
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		end := i + size
		switch {
		case isCJK(r):
			for end < len(text) {
				next, n := utf8.DecodeRuneInString(text[end:])
				if !isCJK(next) {
					break
				}
				end += n
			}
			out = appendPairs(out, text[i:end])
		case isWordRune(r):
			for end < len(text) {
				next, n := utf8.DecodeRuneInString(text[end:])
				if !isWordRune(next) || isCJK(next) {
					break
				}
				end += n
			}
			out = append(out, stem(text[i:end]))
		case r < unicode.MaxASCII && strings.ContainsRune(symbolChars, r):
			for end < len(text) && strings.IndexByte(symbolChars, text[end]) >= 0 {
				end++
			}
			if end-i > 1 || strings.ContainsRune(markupChars, r) {
				out = append(out, text[i:end])
			}
		}
		i = end
	}
	return out
}

// appendPairs appends the overlapping pairs of characters of a run of CJK text, or the run
// itself when it is one character.
func appendPairs(out []string, run string) []string {
	chars := []rune(run)
	if len(chars) == 1 {
		return append(out, run)
	}
	for i := 0; i+1 < len(chars); i++ {
		out = append(out, string(chars[i:i+2]))
	}
	return out
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isCJK reports whether r is Chinese, Japanese or Korean script: text written without spaces
// between its words. The long-vowel mark ー belongs to no script but is written inside
// Japanese words.
func isCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo, the first of these scripts
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}

// fold lower-cases text and removes the accents of Latin, Greek and Cyrillic letters
// ("Crème" is "creme"): the combining marks of U+0300–U+036F that NFD splits off. Other marks
// stay, such as the ones that make ク into グ.
func fold(text string) string {
	if !strings.ContainsFunc(text, mayHaveAccent) {
		return strings.ToLower(text) // nothing to decompose: the usual case, and much faster
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(accents)), norm.NFC)
	folded, _, err := transform.String(t, text)
	if err != nil {
		folded = text
	}
	return strings.ToLower(folded)
}

var accents = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0x0300, Hi: 0x036f, Stride: 1}}}

// stem reduces an English word to its Snowball stem: "planting" and "plants" are "plant",
// "duplicates" and "duplicated" are "duplic". Words with other letters than a-z are left as
// they are: Snowball's English rules would mangle them.
func stem(word string) string {
	if len(word) < 3 || strings.ContainsFunc(word, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return word
	}
	return stems.get(word)
}

// stems remembers the stems of the words met lately. Stemming a word costs a microsecond or
// so, a map lookup a tenth of that, and words repeat: a few hundred make up half of any text.
// Writing a note stems every word of it, and a keyword search every word of the sections it
// reads.
var stems = stemCache{words: map[string]string{}}

// maxStems bounds the cache: about a megabyte. When it is full it starts again, which keeps
// the words of the moment, the ones that repeat, at the cost of stemming them once more.
const maxStems = 16384

type stemCache struct {
	mu    sync.Mutex
	words map[string]string
}

func (c *stemCache) get(word string) string {
	c.mu.Lock()
	stemmed, ok := c.words[word]
	c.mu.Unlock()
	if ok {
		return stemmed
	}
	// Copies: word is often a slice of a note's whole text, and Snowball returns a word it
	// leaves alone as it is; the cache must not keep the text.
	word = strings.Clone(word)
	stemmed = strings.Clone(english.Stem(word, false))
	c.mu.Lock()
	if len(c.words) >= maxStems {
		clear(c.words)
	}
	c.words[word] = stemmed
	c.mu.Unlock()
	return stemmed
}

// mayHaveAccent reports whether r is in the blocks of accented Latin, Greek and Cyrillic
// letters and their combining marks, where NFD may split off an accent.
func mayHaveAccent(r rune) bool {
	return 0xC0 <= r && r <= 0x4FF || 0x1E00 <= r && r <= 0x1FFF
}
