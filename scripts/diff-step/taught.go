package main

// taughtIn names the shared declarations that an earlier step already runs but that a later
// step's chapter explains: make diff prints each with the step named here, and not with the
// first step that reaches it. Shared code is one copy for every step, so the index's
// compaction, say, runs from step 5 on, yet it is step 10's concept. TestTaughtIn keeps every
// entry naming a declaration that its step reaches, later than the first step that does.
var taughtIn = map[string]int{
	// Search filters (chapter 6): Search takes Options from step 5, but only step 6 sets a
	// folder or a tag.
	"shared/store.Store.allowedSections": 6,

	// The index over months (chapter 10): compaction, the log's size, and write errors in words.
	"shared/store.MinLiveShare":            10,
	"shared/store.minDead":                 10,
	"shared/store.Store.Slots":             10,
	"shared/store.countDead":               10,
	"shared/store.wasteful":                10,
	"shared/store.Store.compactIfWasteful": 10,
	"shared/store.Store.Compact":           10,
	"shared/store.signChanges.removed":     10,
	"shared/store.maxLog":                  10,
	"shared/store.Store.trimLog":           10,
	"shared/store.writeFailure":            10,
	"shared/store.writeFailure.Error":      10,
	"shared/store.writeFailure.Unwrap":     10,
	"shared/store.Store.writeError":        10,
	"shared/store.diskFull":                10,
	// Links kept in the index, so that a restart finds the graph there (chapter 10).
	"shared/store.linksTables": 10,
}
