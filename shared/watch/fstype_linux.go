package watch

import "syscall"

// eventless names the vault's file system when it sends no events for changes made elsewhere
// (by another machine, or by Windows under WSL 2), and returns "" for the others.
func eventless(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	return eventlessType(int64(st.Type))
}

// eventlessType names the file systems, by the magic number statfs gives, whose changes
// inotify does not see when they are made elsewhere: network shares, FUSE mounts (sshfs,
// rclone), and 9P, which carries the Windows disk into WSL 2.
func eventlessType(magic int64) string {
	switch magic {
	case 0x6969:
		return "NFS"
	case 0x517b, 0xff534d42, 0xfe534d42:
		return "SMB"
	case 0x65735546:
		return "FUSE"
	case 0x01021997:
		return "9P (a Windows folder seen from WSL)"
	}
	return ""
}
