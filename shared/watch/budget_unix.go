//go:build unix

package watch

import "syscall"

// descriptorLimit is the process's soft limit on open files (RLIMIT_NOFILE), which Go raises
// to the hard limit when it starts; 0 if it cannot be read.
func descriptorLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<31 {
		return 0
	}
	return int(rl.Cur)
}
