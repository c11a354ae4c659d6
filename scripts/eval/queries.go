package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vaultmcp/shared/testvaults"
	"vaultmcp/shared/vault"
)

// Categories are the kinds of query a set holds, in the order the report lists them.
// "none" holds the queries that nothing in their vault answers: they are scored apart, by how
// often search returns the empty list they deserve. A set may add categories of its own in
// its "categories" field; they are listed after these, before "none".
var Categories = []string{"keyword", "paraphrase", "title", "identifier", "question", "non-english", "none"}

// Grades of an answer: how well a note answers its query.
const (
	PartlyRelevant = 1
	Relevant       = 2
)

// Set is a labelled query set, as queries.json holds it.
type Set struct {
	About []string `json:"about"`
	// Categories are the set's own categories, beyond the ones every set may use
	// (Categories): declared, so that a misspelt category is still caught.
	Categories []string         `json:"categories,omitempty"`
	Vaults     map[string]Vault `json:"vaults"`
	Queries    []Query          `json:"queries"`

	File string `json:"-"` // where it was read from
}

// Name is the set's file name, which the report calls it by.
func (s *Set) Name() string { return filepath.Base(s.File) }

// CategoryOrder is the categories the report lists for this set, in order: the common ones,
// the set's own, then "none".
func (s *Set) CategoryOrder() []string {
	order := slices.Clone(Categories[:len(Categories)-1])
	order = append(order, s.Categories...)
	return append(order, "none")
}

// Vault is a vault the queries search.
type Vault struct {
	Dir    string `json:"dir"`    // relative to the repository root, '/'-separated
	Source string `json:"source"` // where to fetch it, for a vault that is not in the repository
}

// Query is one labelled query.
type Query struct {
	Vault    string         `json:"vault"`
	Category string         `json:"category"`
	Tune     *bool          `json:"tune"` // false: held out from tuning; required, so it is never false by omission
	Query    string         `json:"query"`
	Answers  map[string]int `json:"answers"` // vault-relative path → grade
}

// HeldOut reports whether the query belongs to the part kept aside from tuning.
func (q Query) HeldOut() bool { return !*q.Tune }

// LoadSet reads and checks the query set in file. Each mistake is reported with the query it
// is in; the paths of the answers are checked against the vaults by CheckAnswers.
func LoadSet(file string) (*Set, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	set := Set{File: file}
	if err := dec.Decode(&set); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var problems []error
	for _, c := range set.Categories {
		if slices.Contains(Categories, c) || c == "" || strings.ToLower(c) != c || strings.ContainsAny(c, " \t|") {
			problems = append(problems, fmt.Errorf("%s: category %q: a set's own category is a new lowercase word without spaces", file, c))
		}
	}
	seen := map[[2]string]bool{}
	for i, q := range set.Queries {
		where := fmt.Sprintf("%s: query %d (%q in %s)", file, i+1, q.Query, q.Vault)
		bad := func(format string, args ...any) {
			problems = append(problems, fmt.Errorf(where+": "+format, args...))
		}
		if _, ok := set.Vaults[q.Vault]; !ok {
			bad("unknown vault; the vaults are %s", strings.Join(slices.Sorted(maps.Keys(set.Vaults)), ", "))
		}
		if !slices.Contains(set.CategoryOrder(), q.Category) {
			bad(`unknown category %q; use one of %s, or name it in the set's "categories"`, q.Category, strings.Join(set.CategoryOrder(), ", "))
		}
		if q.Tune == nil {
			bad(`no "tune": say true for the tuning part, false for the held-out part`)
		}
		if strings.TrimSpace(q.Query) == "" {
			bad("the query is empty")
		}
		key := [2]string{q.Vault, q.Query}
		if seen[key] {
			bad("the same query is in the set twice")
		}
		seen[key] = true
		for path, grade := range q.Answers {
			if grade != Relevant && grade != PartlyRelevant {
				bad("%q has grade %d; use 2 (relevant) or 1 (partly relevant)", path, grade)
			}
		}
		// A query the vault answers only in part (every answer graded 1) is kept: its right
		// results are those notes, not an empty list. It scores by nDCG alone; its Hit@1, MRR
		// and R@10, which count relevant notes, are 0 whatever search returns, for every leg.
		switch {
		case q.Category == "none" && len(q.Answers) > 0:
			bad(`a query of category "none" has no answers: its right answer is the empty list`)
		case q.Category != "none" && len(q.Answers) == 0:
			bad(`no answers; a query that nothing answers belongs to category "none"`)
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return &set, nil
}

// VaultDir returns the vault's folder, or an error that says how to fetch a vault that is
// missing.
func (s *Set) VaultDir(root, name string) (string, error) {
	v := s.Vaults[name]
	dir := filepath.Join(root, filepath.FromSlash(v.Dir))
	if err := testvaults.Present(dir); err != nil { // an empty folder, as a failed fetch once left, is no vault
		if v.Source == "" {
			return "", err
		}
		return "", fmt.Errorf("vault %s is not at %s; `make vaults` fetches it (%s)", name, dir, v.Source)
	}
	return dir, nil
}

// VaultNames lists the vaults: the repository's own first, then those fetched into
// ../shared/vaults (the ones with a source), each group by name.
func (s *Set) VaultNames() []string {
	var own, fetched []string
	for _, name := range slices.Sorted(maps.Keys(s.Vaults)) {
		if s.Vaults[name].Source == "" {
			own = append(own, name)
		} else {
			fetched = append(fetched, name)
		}
	}
	return append(own, fetched...)
}

// CheckAnswers checks that every answer of the queries over vault name is a note the server
// indexes: a Markdown file in the vault, outside the folders it skips.
func (s *Set) CheckAnswers(root, name string) error {
	dir, err := s.VaultDir(root, name)
	if err != nil {
		return err
	}
	notes, err := vault.Open(dir)
	if err != nil {
		return err
	}
	defer notes.Close()
	paths, err := notes.Notes()
	if err != nil {
		return err
	}
	var problems []error
	for _, q := range s.Queries {
		if q.Vault != name {
			continue
		}
		for path := range q.Answers {
			if !slices.Contains(paths, path) {
				problems = append(problems, fmt.Errorf("query %q: %q is not a note of vault %s", q.Query, path, name))
			}
		}
	}
	return errors.Join(problems...)
}
