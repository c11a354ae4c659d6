package watch

import "syscall"

// eventless names the vault's file system when it sends no events for changes made elsewhere
// (by another machine), and returns "" for the others.
func eventless(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	var name []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		name = append(name, byte(c))
	}
	switch string(name) {
	case "nfs", "smbfs", "afpfs", "webdav", "macfuse", "osxfuse":
		return string(name)
	}
	return ""
}
