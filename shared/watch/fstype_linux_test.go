package watch

import "testing"

func TestEventlessType(t *testing.T) {
	for magic, want := range map[int64]string{
		0x6969: "NFS", 0xff534d42: "SMB", 0x65735546: "FUSE", 0x01021997: "9P (a Windows folder seen from WSL)",
		0xef53: "", 0x01021994: "", 0x9123683e: "", // ext4, tmpfs, btrfs: events
	} {
		if got := eventlessType(magic); got != want {
			t.Errorf("eventlessType(%#x) = %q, want %q", magic, got, want)
		}
	}
	if got := eventless(t.TempDir()); got != "" {
		t.Logf("the test's temporary folder is on %s: the watch tests poll here", got)
	}
}
