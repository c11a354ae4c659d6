//go:build !linux && !darwin

package store

// diskFull cannot tell here: an I/O error is reported as one, with full disks among its
// causes.
func diskFull(string) bool { return false }
