package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/deadline"
	"vaultmcp/shared/embed"
	"vaultmcp/shared/guard"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
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
	// dimensions cuts Ollama's vectors to their first numbers; 0 keeps them whole.
	dimensions int
	ollama     *api.Client // from OLLAMA_HOST
	dbPath     string
	search     searchConfig
	watchMode  watch.Mode
	inboxDir   string
	readOnly   bool
	origins    []string
	// toolTimeout bounds one tool call; a call still running then is answered with an error.
	toolTimeout time.Duration
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
	var minScore, watchMode, origins, toolTimeout, dimensions string
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
	flags.StringVar(&dimensions, "dimensions", getenv("VAULTMCP_DIMENSIONS"),
		"keep only the first N numbers of each of Ollama's vectors, such as 512 or 256 for nomic-embed-text, for a smaller index; changing it rebuilds the index; env VAULTMCP_DIMENSIONS; unset, all of them")
	flags.StringVar(&c.dbPath, "db", getenv("VAULTMCP_DB"), "the index database file, outside the vault; env VAULTMCP_DB; unset, one in your cache directory")
	flags.StringVar(&minScore, "min-score", getenv("VAULTMCP_MIN_SCORE"),
		"the least score a search result needs, above 0 and at most 1; env VAULTMCP_MIN_SCORE; unset, measured on the index")
	flags.StringVar(&c.search.ranking, "rank", cmp.Or(getenv("VAULTMCP_RANK"), rankHybrid),
		"how search ranks notes: hybrid (words and meaning), keyword or vector; env VAULTMCP_RANK")
	flags.StringVar(&watchMode, "watch", cmp.Or(getenv("VAULTMCP_WATCH"), string(watch.Auto)),
		"how edits are noticed: auto (file events, or polling where the system cannot give them), events, or poll; env VAULTMCP_WATCH")
	flags.StringVar(&c.inboxDir, "inbox", cmp.Or(getenv("VAULTMCP_INBOX"), inbox.DefaultFolder),
		"the vault folder where create_note puts new notes; env VAULTMCP_INBOX")
	readOnly := getenv("VAULTMCP_READ_ONLY")
	flags.BoolFunc("read-only", "serve the vault without create_note and append_to_note, so that nothing in it is ever created or changed; env VAULTMCP_READ_ONLY=1",
		func(value string) error {
			readOnly = value // "true" for -read-only alone
			if _, err := yesOrNo(value); err != nil {
				return fmt.Errorf("%w, for the flag as for VAULTMCP_READ_ONLY", err)
			}
			return nil
		})
	flags.StringVar(&origins, "allow-origin", getenv("VAULTMCP_ORIGINS"),
		"extra web-page origins to accept, comma-separated; native clients and MCP Inspector's proxy send no Origin and need none; env VAULTMCP_ORIGINS")
	flags.StringVar(&toolTimeout, "tool-timeout", getenv("VAULTMCP_TOOL_TIMEOUT"),
		"the longest one tool call may take, such as 90s or 2m, before the model is told it failed; env VAULTMCP_TOOL_TIMEOUT; unset, "+deadline.Default.String())
	if err := flags.Parse(args[1:]); err != nil {
		return c, err // with -h, flag.ErrHelp, once Parse has printed the flags
	}
	if c.vaultDir == "" {
		return c, errors.New("which vault? pass -vault DIR or set VAULT_PATH")
	}
	c.origins = splitList(origins)
	var scoreErr error
	c.search.minScore, scoreErr = parseScore(minScore)
	var readOnlyErr, timeoutErr, dimensionsErr error
	c.dimensions, dimensionsErr = parseDimensions(dimensions, c.embedder)
	c.readOnly, readOnlyErr = yesOrNo(readOnly)
	c.toolTimeout, timeoutErr = parseToolTimeout(toolTimeout)
	checks := []struct {
		flag, env string
		err       error
	}{
		{"transport", "VAULTMCP_TRANSPORT", oneOf("transport", c.transport, "http", "stdio")},
		{"addr", "VAULTMCP_ADDR", guard.CheckListenAddr(c.addr)},
		{"embedder", "VAULTMCP_EMBEDDER", embed.CheckMode(c.embedder)},
		{"dimensions", "VAULTMCP_DIMENSIONS", dimensionsErr},
		{"min-score", "VAULTMCP_MIN_SCORE", scoreErr},
		{"rank", "VAULTMCP_RANK", checkRanking(c.search.ranking)},
		{"watch", "VAULTMCP_WATCH", errorOf(watch.ParseMode(watchMode))},
		{"read-only", "VAULTMCP_READ_ONLY", readOnlyErr},
		{"inbox", "VAULTMCP_INBOX", errorOf(vault.CleanPath(c.inboxDir))},
		{"allow-origin", "VAULTMCP_ORIGINS", checkOrigins(c.origins)},
		{"tool-timeout", "VAULTMCP_TOOL_TIMEOUT", timeoutErr},
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

// yesOrNo reads a yes or a no, as strconv.ParseBool does: empty is no, and anything else it
// does not know is an error, since guessing either way could surprise.
func yesOrNo(value string) (bool, error) {
	if value == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("%q is neither yes nor no: use 1 or 0 (or true or false)", value)
	}
	return b, nil
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

// parseToolTimeout reads how long one tool call may take: unset is deadline.Default. It must
// end before guard.WriteTimeout, or the answer that says the call took too long could no
// longer be written.
func parseToolTimeout(value string) (time.Duration, error) {
	if value == "" {
		return deadline.Default, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 || d >= guard.WriteTimeout {
		return 0, fmt.Errorf("%q is not a time limit a tool call can have: use a duration above 0 and below %v, such as 90s or 2m", value, guard.WriteTimeout)
	}
	return d, nil
}

// parseDimensions reads -dimensions: how many of the numbers of each of Ollama's vectors to
// keep. Fewer numbers make the index smaller (each is a byte a section, and a bit of its
// sign) at a cost in quality that depends on the model: nomic-embed-text is trained so that
// its first 512 or 256 numbers still make a good vector, and Nomic reports its benchmark score
// falling from 62.28 at 768 to 61.96 at 512 and 61.04 at 256. The offline embedder's vectors
// are word hashes, not a model's, and cannot be cut: with -embedder offline the setting could
// never take effect, and is refused. With auto it takes effect whenever Ollama answers; a start
// that falls back to offline says that it ignores it (see embed.ChooseModel).
func parseDimensions(value, embedder string) (int, error) {
	if value == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(value)
	switch {
	case err != nil || n < 1:
		return 0, fmt.Errorf("%q is not a number of dimensions: use a whole number such as 512 or 256, or leave it unset for all of them", value)
	case embedder == "offline":
		return 0, errors.New("only Ollama's vectors can be cut, and the embedder is offline: drop it, or use -embedder auto or ollama")
	}
	return n, nil
}

// splitList reads a comma-separated flag.
func splitList(s string) []string {
	var items []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

// checkOrigins checks that each origin is written as a browser sends one.
func checkOrigins(origins []string) error {
	for _, origin := range origins {
		if err := guard.CheckOrigin(origin); err != nil {
			return err
		}
	}
	return nil
}
