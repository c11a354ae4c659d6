package watch

import (
	"errors"
	"fmt"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
)

// What watching costs depends on the system. inotify (Linux) takes one watch a folder, from a
// per-user pool (fs.inotify.max_user_watches) and no file descriptor. kqueue (macOS, the BSDs)
// takes a descriptor for every folder and for every file in it, from the process's own
// limit, which SQLite, the listener and every client draw on too: a 30,000-note vault would
// need 30,000. ReadDirectoryChangesW (Windows) takes a handle a folder, with no low limit.
var filesTakeDescriptors = map[string]bool{"darwin": true, "freebsd": true, "openbsd": true, "netbsd": true, "dragonfly": true}[runtime.GOOS]

// descriptorReserve is what the rest of the server keeps of the descriptor limit before
// watching takes half of what is left: SQLite's files, the listener and its clients.
const descriptorReserve = 256

// watchBudget returns how many watches the Watcher may take, and what sets that number; 0
// when the system has no bound it can read.
func watchBudget() (int, string) {
	if filesTakeDescriptors {
		limit := descriptorLimit()
		if limit == 0 {
			return 0, ""
		}
		return max((limit-descriptorReserve)/2, 0),
			fmt.Sprintf("half the %d file descriptors this process may open, less %d for the rest of the server", limit, descriptorReserve)
	}
	if runtime.GOOS == "linux" {
		data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
		if limit, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return limit / 2, fmt.Sprintf("half the %d inotify watches the user's programs share (fs.inotify.max_user_watches)", limit)
		}
	}
	return 0, ""
}

// errOverBudget stops scan once the watches it took pass the budget.
var errOverBudget = errors.New("over the budget for watches")

// spend counts the watches that watching the entry at p takes: one for a folder, and, where
// files take descriptors, one for every file in a watched folder, hidden or not. It returns
// errOverBudget once they pass the budget (0: none).
func (w *Watcher) spend(p string, folder bool) error {
	switch {
	case folder:
		w.cost[p]++
	case filesTakeDescriptors:
		w.cost[path.Dir(p)]++
	default:
		return nil
	}
	w.watches++
	if w.budget > 0 && w.watches > w.budget {
		return errOverBudget
	}
	return nil
}
