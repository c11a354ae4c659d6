package transcript

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Env is what a transcript's commands can refer to: $MCP, the server's endpoint, and
// $VAULT_COPY, the folder the server reads.
type Env struct {
	MCP   string
	Vault string
}

// VaultVar names the variable through which a transcript's commands reach the folder the
// server reads, as in printf … > "$VAULT_COPY/Garden/Kohlrabi.md". Not VAULT: the Makefile
// reads that one, and a reader who exported VAULT to paste those commands would have
// make step serve that folder as it is, instead of a fresh copy of the sample vault.
const VaultVar = "VAULT_COPY"

// Failure is a section that did not print what the transcript expects.
type Failure struct {
	Section  Section
	Command  Command
	Problem  string // where the output differs
	Actual   string
	Env      Env
	ExitCode int
}

// Error prints the failure with the exact commands that reproduce it.
func (f Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "section %q (line %d): %s\n", f.Section.Title, f.Section.Line, f.Problem)
	b.WriteString("reproduce with:\n")
	fmt.Fprintf(&b, "  export MCP=%s\n", f.Env.MCP)
	if f.Env.Vault != "" {
		fmt.Fprintf(&b, "  export %s=%s\n", VaultVar, f.Env.Vault)
	}
	for _, line := range strings.Split(f.Command.Shell, "\n") {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	fmt.Fprintf(&b, "expected:\n%s\ngot:\n%s", indent(f.Command.Expected), indent(f.Actual))
	return b.String()
}

func indent(s string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// CommandTimeout bounds one command, so a server that hangs fails its section instead of the
// whole run.
const CommandTimeout = 30 * time.Second

// Run runs every command of a section in order and stops at the first that does not print
// what is expected. It returns nil when the section passes.
func Run(ctx context.Context, s Section, env Env) *Failure {
	for _, c := range s.Commands {
		out, exit := execute(ctx, c.Shell, env)
		problem := Match(c.Expected, out)
		// Poll, never sleep a fixed time: the change shows as soon as the server has made
		// it, and a slow machine gets the whole bound before the section fails.
		for deadline := time.Now().Add(c.Retry); problem != "" && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			out, exit = execute(ctx, c.Shell, env)
			problem = Match(c.Expected, out)
		}
		if problem != "" {
			if exit != 0 {
				problem += fmt.Sprintf(" (the command exited with status %d)", exit)
			}
			return &Failure{Section: s, Command: c, Problem: problem, Actual: out, Env: env, ExitCode: exit}
		}
	}
	return nil
}

// execute runs one command through sh, exactly as a reader would paste it into a terminal.
func execute(ctx context.Context, shell string, env Env) (output string, exitCode int) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", shell)
	cmd.Env = append(os.Environ(), "MCP="+env.MCP, VaultVar+"="+env.Vault)
	// When ctx ends, sh is killed, but a curl it started may live on and hold the output
	// open: stop waiting for it soon after.
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		exitCode = -1
		if exit, ok := err.(*exec.ExitError); ok {
			exitCode = exit.ExitCode()
		}
	}
	return string(out), exitCode
}
