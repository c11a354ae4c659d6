package main

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
)

// noteCompleter completes a note's path as the person types it. A client that lets the
// person fill in the note template (note:///{+path}) sends completion/complete with what is
// typed so far, and offers the notes this returns, best first: the notes whose path, name or
// alias holds it, as links find notes by name and alias. The index knows every note's name,
// once it has caught up with the disk; until then the notes on disk are the list (fromDisk).
type noteCompleter struct {
	db       *store.Store
	notes    *vault.Vault
	coverage *coverage // how far the index has caught up
}

// CompleteResourceArgument answers completion/complete for a resource template's argument.
// Only the note template's path has anything to complete; for anything else the answer is
// no values, as mcp-go's own default gives.
func (c *noteCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	none := &mcp.Completion{Values: []string{}}
	if uri != vault.URITemplate || arg.Name != "path" || len(arg.Value) > vault.MaxPathLen {
		return none, nil
	}
	if phase, _, _ := c.coverage.get(); phase == phaseComparing || phase == phaseIndexing {
		return c.fromDisk(arg.Value)
	}
	paths, total, err := c.db.CompleteNotes(ctx, arg.Value, store.MaxCompletions)
	if err != nil || len(paths) == 0 {
		return none, err
	}
	return &mcp.Completion{Values: paths, Total: total, HasMore: total > len(paths)}, nil
}

// fromDisk completes from the vault's list of notes, for while the index catches up: on a
// first start it is empty, and the notes it lacks are on disk all the same. It ranks as
// store.CompleteNotes does, without aliases, which only the index has read: a path that starts
// with what is typed, then a name that does, then a name's word or a folder's name that does,
// then the rest; among equals, shorter paths first, then by bytes.
func (c *noteCompleter) fromDisk(typed string) (*mcp.Completion, error) {
	paths, err := c.notes.Notes()
	if err != nil {
		return nil, err
	}
	typed = strings.ToLower(typed)
	type match struct {
		path string
		rank int
	}
	var found []match
	for _, p := range paths {
		lower := strings.ToLower(p)
		if !strings.Contains(lower, typed) {
			continue
		}
		name := strings.TrimSuffix(path.Base(lower), path.Ext(lower))
		rank := 3
		switch {
		case strings.HasPrefix(lower, typed):
			rank = 0
		case strings.HasPrefix(name, typed):
			rank = 1
		case strings.Contains(name, " "+typed) || strings.Contains(lower, "/"+typed):
			rank = 2
		}
		found = append(found, match{p, rank})
	}
	slices.SortFunc(found, func(a, b match) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(len(a.path), len(b.path)), strings.Compare(a.path, b.path))
	})
	values := []string{}
	for _, m := range found[:min(len(found), store.MaxCompletions)] {
		values = append(values, m.path)
	}
	return &mcp.Completion{Values: values, Total: len(found), HasMore: len(found) > len(values)}, nil
}
