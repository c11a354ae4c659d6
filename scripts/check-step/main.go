// Command check-step runs a step's transcript against a server you already started, so you
// can see that your terminal shows what the guide shows:
//
//	make step 3          # in one terminal
//	make check-step 3    # in another
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"vaultmcp/scripts/transcript"
)

func main() {
	// Ctrl-C, or a kill, stops the run where it is; run then removes the notes it wrote.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "check-step:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	endpoint := flags.String("mcp", "http://"+defaultAddr+"/mcp", "the running server's MCP endpoint")
	vault := flags.String("vault", "", "the vault the server reads (default: .run/vault, the copy of the sample vault that make step serves)")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return errors.New("usage: check-step [-mcp URL] [-vault DIR] N")
	}
	n, err := strconv.Atoi(flags.Arg(0))
	if err != nil {
		return fmt.Errorf("the step must be a number, like 3: %w", err)
	}
	root, err := transcript.Root()
	if err != nil {
		return err
	}
	step, err := transcript.FindStep(root, n)
	if err != nil {
		return err
	}
	if *vault == "" {
		*vault = filepath.Join(root, ".run", "vault")
	}
	if err := reachable(*endpoint); err != nil {
		return fmt.Errorf("no server answers at %s (%v); start it first with `%s` in another terminal", *endpoint, err, startCommand(n, *endpoint))
	}

	text, err := os.ReadFile(step.Transcript())
	if err != nil {
		return err
	}
	sections, err := transcript.Parse(bytes.NewReader(text))
	if err != nil {
		return fmt.Errorf("%s: %w", step.Transcript(), err)
	}
	failed, err := check(ctx, sections, string(text), transcript.Env{MCP: *endpoint, Vault: *vault}, stdout, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nstep %s: %d passed, %d failed\n", step.Name, len(sections)-failed, failed)
	if failed > 0 {
		return fmt.Errorf("%d of %d sections failed", failed, len(sections))
	}
	return nil
}

// defaultAddr is where make step serves when ADDR is not given.
const defaultAddr = "127.0.0.1:3000"

// firstEmbedderStep is the first step that embeds notes. Its transcripts, and every later
// one, show what the offline embedder finds, so they pass on a server started with it, and
// only the offline embedder needs no Ollama.
const firstEmbedderStep = 4

// startCommand is what a reader types to start step n where check-step looks for it.
func startCommand(n int, endpoint string) string {
	cmd := fmt.Sprintf("make step %d", n)
	if n >= firstEmbedderStep {
		cmd += " EMBEDDER=offline"
	}
	if u, err := url.Parse(endpoint); err == nil && u.Host != defaultAddr {
		cmd += " ADDR=" + u.Host
	}
	return cmd
}

// check runs the sections in order and prints ok or FAIL for each. It returns the number that
// failed, or an error when ctx ended first (Ctrl-C): then it stops at once, between two
// sections or in the middle of a command. Either way it then removes the notes the run wrote
// and had not removed yet (see tidy).
func check(ctx context.Context, sections []transcript.Section, text string, env transcript.Env, stdout, stderr io.Writer) (failed int, err error) {
	before, err := listFiles(env.Vault)
	if err != nil {
		fmt.Fprintf(stderr, "check-step: cannot list the files of %s, so a note this run writes and does not remove itself stays: %v\n", env.Vault, err)
	} else {
		defer tidy(env.Vault, before, text, stderr)
	}
	for i, s := range sections {
		if ctx.Err() != nil {
			return failed, fmt.Errorf("interrupted after %d of %d sections", i, len(sections))
		}
		f := transcript.Run(ctx, s, env)
		if ctx.Err() != nil {
			// The interrupt cut the section short, so its output says nothing. The server may
			// still be answering the request it had, and write a note after tidy has looked.
			fmt.Fprintf(stderr, "check-step: stopped in the middle of %q; should the server still finish its request, a note it writes stays in the vault until make step serves a fresh copy\n", s.Title)
			return failed, fmt.Errorf("interrupted in section %d of %d", i+1, len(sections))
		}
		if f != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s\n%s\n\n", s.Title, f.Error())
			continue
		}
		fmt.Fprintf(stdout, "ok   %s\n", s.Title)
	}
	return failed, nil
}

func reachable(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}
