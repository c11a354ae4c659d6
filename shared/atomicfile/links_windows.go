package atomicfile

import (
	"errors"
	"syscall"
)

// errorInvalidFunction is what FAT and exFAT answer to a request for a hard link.
const errorInvalidFunction = syscall.Errno(1) // ERROR_INVALID_FUNCTION

// noHardLinks reports whether err says the file system cannot make hard links.
func noHardLinks(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, errorInvalidFunction)
}
