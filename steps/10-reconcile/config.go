package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/watch"
)

// config is how the server was asked to run: one field per flag, each flag with an environment
// variable for clients that pass an environment rather than arguments.
type config struct {
	transport string
	addr      string
	vaultDir  string
	embedder  string
	model     string
	inboxDir  string
	readOnly  bool
	origins   string
	minScore  float64
	ranking   string
	watchMode string
	dbPath    string
}

// readConfig reads the flags in args, with defaults from getenv, and checks them, so that a
// mistake stops the server before it touches the vault. For -h it prints the flags to stderr
// and returns flag.ErrHelp.
func readConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&c.transport, "transport", cmp.Or(getenv("VAULTMCP_TRANSPORT"), "http"),
		"http, or stdio for a client that starts the server itself; env VAULTMCP_TRANSPORT")
	flags.StringVar(&c.addr, "addr", cmp.Or(getenv("VAULTMCP_ADDR"), "127.0.0.1:3000"),
		"address to listen on with -transport http; env VAULTMCP_ADDR")
	flags.StringVar(&c.vaultDir, "vault", getenv("VAULT_PATH"), "the Obsidian vault to serve; env VAULT_PATH")
	flags.StringVar(&c.embedder, "embedder", cmp.Or(getenv("VAULTMCP_EMBEDDER"), "auto"),
		"auto (Ollama if it answers, else offline), ollama, or offline; env VAULTMCP_EMBEDDER")
	flags.StringVar(&c.model, "model", cmp.Or(getenv("VAULTMCP_MODEL"), embed.DefaultModel),
		"the Ollama embedding model; changing it rebuilds the index; env VAULTMCP_MODEL")
	flags.StringVar(&c.inboxDir, "inbox", cmp.Or(getenv("VAULTMCP_INBOX"), inbox.DefaultFolder),
		"the vault folder where create_note puts new notes; env VAULTMCP_INBOX")
	readOnlyEnv, err := envBool(getenv, "VAULTMCP_READ_ONLY")
	if err != nil {
		return c, err
	}
	flags.BoolVar(&c.readOnly, "read-only", readOnlyEnv,
		"serve the vault without create_note, so that nothing in it is ever created; env VAULTMCP_READ_ONLY=1")
	flags.StringVar(&c.origins, "allow-origin", getenv("VAULTMCP_ORIGINS"),
		"extra web-page origins to accept, comma-separated; native clients and MCP Inspector's proxy send no Origin and need none; env VAULTMCP_ORIGINS")
	flags.Float64Var(&c.minScore, "min-score", envFloat(getenv("VAULTMCP_MIN_SCORE")),
		"the least score a search result needs; env VAULTMCP_MIN_SCORE; unset, one chosen for the embedder")
	flags.StringVar(&c.ranking, "rank", cmp.Or(getenv("VAULTMCP_RANK"), rankHybrid),
		"how search ranks notes: hybrid (words and meaning), keyword or vector; env VAULTMCP_RANK")
	flags.StringVar(&c.watchMode, "watch", cmp.Or(getenv("VAULTMCP_WATCH"), string(watch.Auto)),
		"how edits are noticed: auto (file events, or polling where the system cannot give them), events, or poll; env VAULTMCP_WATCH")
	flags.StringVar(&c.dbPath, "db", getenv("VAULTMCP_DB"), "the index database file, outside the vault; env VAULTMCP_DB; unset, one in your cache directory")
	if err := flags.Parse(args[1:]); err != nil {
		return c, err // with -h, flag.ErrHelp, once Parse has printed the flags
	}
	if c.vaultDir == "" {
		return c, errors.New("which vault? pass -vault DIR or set VAULT_PATH")
	}
	if c.transport != "http" && c.transport != "stdio" {
		return c, fmt.Errorf("unknown transport %q: use http or stdio", c.transport)
	}
	if err := checkRanking(c.ranking); err != nil {
		return c, err
	}
	if err := embed.CheckMode(c.embedder); err != nil {
		return c, err
	}
	return c, nil
}

// envBool reads a yes-or-no setting from the environment: unset is no, and a value
// strconv.ParseBool does not know is an error, since guessing either way could surprise.
func envBool(getenv func(string) string, key string) (bool, error) {
	value := getenv(key)
	if value == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("%s=%q: use 1 or 0 (or true or false)", key, value)
	}
	return b, nil
}

// envFloat reads a number from the environment; anything else counts as unset.
func envFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
