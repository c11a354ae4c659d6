package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/store"
	"vaultmcp/shared/watch"
)

// config is how the server was asked to run: one field per flag, each flag with an environment
// variable for clients that pass an environment rather than arguments.
type config struct {
	transport string
	addr      string
	vaultDir  string
	embedder  string
	ollama    *api.Client // from OLLAMA_HOST
	dbPath    string
	search    searchConfig
	watchMode watch.Mode
}

// searchConfig is how search was asked to rank and cut its results.
type searchConfig struct {
	minScore float64 // 0: the floor measured on the index (see floor)
	ranking  string
}

// readConfig reads the flags in args, with defaults from getenv, and checks every value, so
// that a mistake stops the server before it touches anything: a value that cannot be used is
// an error naming its flag and its variable. For -h it prints the flags to stderr and returns
// flag.ErrHelp.
func readConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	var minScore, watchMode string
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&c.transport, "transport", cmp.Or(getenv("VAULTMCP_TRANSPORT"), "http"),
		"http, or stdio for a client that starts the server itself; env VAULTMCP_TRANSPORT")
	flags.StringVar(&c.addr, "addr", cmp.Or(getenv("VAULTMCP_ADDR"), "127.0.0.1:3000"),
		"address to listen on with -transport http; env VAULTMCP_ADDR")
	flags.StringVar(&c.vaultDir, "vault", getenv("VAULT_PATH"), "the Obsidian vault to serve; env VAULT_PATH")
	flags.StringVar(&c.embedder, "embedder", cmp.Or(getenv("VAULTMCP_EMBEDDER"), "auto"),
		"auto (Ollama if it answers, else offline), ollama, or offline; env VAULTMCP_EMBEDDER")
	flags.StringVar(&c.dbPath, "db", getenv("VAULTMCP_DB"), "the index database file, outside the vault; env VAULTMCP_DB; unset, one in your cache directory")
	flags.StringVar(&minScore, "min-score", getenv("VAULTMCP_MIN_SCORE"),
		"the least score a search result needs, above 0 and at most 1; env VAULTMCP_MIN_SCORE; unset, measured on the index")
	flags.StringVar(&c.search.ranking, "rank", cmp.Or(getenv("VAULTMCP_RANK"), rankHybrid),
		"how search ranks notes: hybrid (words and meaning), keyword or vector; env VAULTMCP_RANK")
	flags.StringVar(&watchMode, "watch", cmp.Or(getenv("VAULTMCP_WATCH"), string(watch.Auto)),
		"how edits are noticed: auto (file events, or polling where the system cannot give them), events, or poll; env VAULTMCP_WATCH")
	if err := flags.Parse(args[1:]); err != nil {
		return c, err // with -h, flag.ErrHelp, once Parse has printed the flags
	}
	if c.vaultDir == "" {
		return c, errors.New("which vault? pass -vault DIR or set VAULT_PATH")
	}
	var scoreErr error
	c.search.minScore, scoreErr = parseScore(minScore)
	checks := []struct {
		flag, env string
		err       error
	}{
		{"transport", "VAULTMCP_TRANSPORT", oneOf("transport", c.transport, "http", "stdio")},
		{"addr", "VAULTMCP_ADDR", checkAddr(c.addr)},
		{"embedder", "VAULTMCP_EMBEDDER", embed.CheckMode(c.embedder)},
		{"min-score", "VAULTMCP_MIN_SCORE", scoreErr},
		{"rank", "VAULTMCP_RANK", checkRanking(c.search.ranking)},
		{"watch", "VAULTMCP_WATCH", errorOf(watch.ParseMode(watchMode))},
	}
	for _, check := range checks {
		if check.err != nil {
			return c, badSetting(check.flag, check.env, check.err)
		}
	}
	c.watchMode = watch.Mode(watchMode)
	var err error
	if c.dbPath == "" {
		if c.dbPath, err = store.DefaultPath(c.vaultDir); err != nil {
			return c, err
		}
	}
	if err := store.CheckOutside(c.vaultDir, c.dbPath); err != nil {
		return c, badSetting("db", "VAULTMCP_DB", err)
	}
	// The Ollama library reads OLLAMA_HOST itself, with Ollama's own rules for what it may
	// hold; reading it through getenv would mean copying those rules.
	if c.ollama, err = api.ClientFromEnvironment(); err != nil {
		return c, fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	return c, nil
}

// badSetting is the error for a value that cannot be used. It names the flag and the
// environment variable, since the value may have come from either.
func badSetting(flagName, envName string, err error) error {
	return fmt.Errorf("-%s (or %s): %w", flagName, envName, err)
}

// errorOf keeps the error of a function that also returns a value.
func errorOf[T any](_ T, err error) error { return err }

// oneOf checks that value is one of the choices.
func oneOf(what, value string, choices ...string) error {
	for _, choice := range choices {
		if value == choice {
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q: use %s", what, value, strings.Join(choices, " or "))
}

// checkAddr checks that addr is a host and a port.
func checkAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q is not host:port: use one such as 127.0.0.1:3000", addr)
	}
	return nil
}

// parseScore reads a score floor: unset is 0, the embedder's own; anything else must be a
// score a result can reach.
func parseScore(value string) (float64, error) {
	if value == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(f) || f <= 0 || f > 1 {
		return 0, fmt.Errorf("%q is not a score: use a number above 0 and at most 1, such as 0.5", value)
	}
	return f, nil
}
