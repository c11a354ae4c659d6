//go:build !unix

package watch

// descriptorLimit: Windows has no low per-process limit on handles that watching could reach.
func descriptorLimit() int { return 0 }
