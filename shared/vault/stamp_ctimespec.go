//go:build darwin || freebsd || netbsd

package vault

import (
	"io/fs"
	"syscall"
	"time"
)

// identity returns the change time and inode number of info, from the stat the system gave.
func identity(info fs.FileInfo) (ctime time.Time, file uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, 0
	}
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec)), uint64(st.Ino)
}
