//go:build linux || darwin

package store

import "syscall"

// diskFull reports whether the file system that holds dir has less than 1 MiB free for this
// user.
func diskFull(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return uint64(st.Bavail)*uint64(st.Bsize) < 1<<20
}
