//go:build !linux && !darwin

package watch

// eventless: on this system the watcher cannot tell a network file system, so it trusts
// events; -watch poll is there for a vault on one.
func eventless(string) string { return "" }
