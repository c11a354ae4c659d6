package transcript

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"vaultmcp/shared/testvaults"
)

// Step is one milestone of the tutorial: steps/NN-slug.
type Step struct {
	Number int
	Dir    string // absolute
	Name   string // "01-raw"
}

// Transcript is the step's transcript file.
func (s Step) Transcript() string { return filepath.Join(s.Dir, "transcript.txt") }

// Root finds the project root (the folder with go.work) from the working directory up.
func Root() (string, error) { return testvaults.ProjectRoot() }

// Steps lists the steps under root/steps in order.
func Steps(root string) ([]Step, error) {
	dirs, err := filepath.Glob(filepath.Join(root, "steps", "[0-9][0-9]-*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var steps []Step
	for _, d := range dirs {
		name := filepath.Base(d)
		var n int
		fmt.Sscanf(name, "%d", &n)
		steps = append(steps, Step{Number: n, Dir: d, Name: name})
	}
	return steps, nil
}

// FindStep returns step n.
func FindStep(root string, n int) (Step, error) {
	steps, err := Steps(root)
	if err != nil {
		return Step{}, err
	}
	for _, s := range steps {
		if s.Number == n {
			return s, nil
		}
	}
	return Step{}, fmt.Errorf("there is no step %d under %s", n, filepath.Join(root, "steps"))
}

// Build compiles a step into dir and returns the binary's path.
func Build(ctx context.Context, root string, step Step, dir string) (string, error) {
	bin := filepath.Join(dir, step.Name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./steps/"+step.Name)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./steps/%s: %v\n%s", step.Name, err, out)
	}
	return bin, nil
}

// BuildAll compiles every step of steps into dir with one go build, and returns each binary's
// path by step name.
func BuildAll(ctx context.Context, root string, steps []Step, dir string) (map[string]string, error) {
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	bins := map[string]string{}
	for _, step := range steps {
		args = append(args, "./steps/"+step.Name)
		bins[step.Name] = filepath.Join(dir, step.Name)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build the steps: %v\n%s", err, out)
	}
	for _, bin := range bins {
		if _, err := os.Stat(bin); err != nil {
			return nil, err
		}
	}
	return bins, nil
}

// Server is a step's program running on a free loopback port.
type Server struct {
	URL  string // the MCP endpoint it logged
	cmd  *exec.Cmd
	logs LogBuffer
	done chan struct{}
}

// LogBuffer keeps what a process writes to stderr, for failure messages; tests read it while
// the process still writes.
type LogBuffer struct {
	mu   sync.Mutex
	text strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

var listening = regexp.MustCompile(`url=(http://\S+)`)

// Start runs a step binary on 127.0.0.1:0 and waits until it logs the URL it listens on.
func Start(bin string, env []string, args ...string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		defer close(s.done)
		scanner := bufio.NewScanner(stderr)
		scanner.Buffer(nil, 1<<20)
		for scanner.Scan() {
			line := scanner.Text()
			s.logs.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case s.URL = <-urls:
		return s, nil
	case <-s.done:
		cmd.Wait()
		return nil, fmt.Errorf("%s exited before listening:\n%s", filepath.Base(bin), s.Logs())
	case <-time.After(60 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("%s did not log a url= line within 60s:\n%s", filepath.Base(bin), s.Logs())
	}
}

// Logs returns what the server has written to stderr so far.
func (s *Server) Logs() string { return s.logs.String() }

// Terminate sends the server SIGTERM, as kill does and as a client that started it does, and
// returns how it exited: nil for status 0. A server that has not exited within a minute is
// killed.
func (s *Server) Terminate() error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		s.cmd.Wait()
		return errors.New("the server did not exit within a minute of SIGTERM")
	}
	return s.cmd.Wait()
}

// Stop interrupts the server, as Ctrl-C would, and waits for it to exit.
func (s *Server) Stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
	}
	s.cmd.Wait()
}
