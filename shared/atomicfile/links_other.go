//go:build !windows

package atomicfile

import (
	"errors"
	"syscall"
)

// noHardLinks reports whether err says the file system cannot make hard links: Linux answers
// EPERM for FAT and exFAT, others ENOTSUP or ENOSYS. A link cannot fail with EPERM for other
// reasons here, since the file linked to is one this process has just made.
func noHardLinks(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EPERM)
}
