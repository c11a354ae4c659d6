package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
)

// config is how the server was asked to run: one field per flag, each flag with an environment
// variable for clients that pass an environment rather than arguments.
type config struct {
	transport string
	addr      string
	vaultDir  string
}

// readConfig reads the flags in args, with defaults from getenv, and checks every value, so
// that a mistake stops the server before it touches anything: a value that cannot be used is
// an error naming its flag and its variable. For -h it prints the flags to stderr and returns
// flag.ErrHelp.
func readConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var c config
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&c.transport, "transport", cmp.Or(getenv("VAULTMCP_TRANSPORT"), "http"),
		"http, or stdio for a client that starts the server itself; env VAULTMCP_TRANSPORT")
	flags.StringVar(&c.addr, "addr", cmp.Or(getenv("VAULTMCP_ADDR"), "127.0.0.1:3000"),
		"address to listen on with -transport http; env VAULTMCP_ADDR")
	flags.StringVar(&c.vaultDir, "vault", getenv("VAULT_PATH"), "the Obsidian vault to serve; env VAULT_PATH")
	if err := flags.Parse(args[1:]); err != nil {
		return c, err // with -h, flag.ErrHelp, once Parse has printed the flags
	}
	if c.vaultDir == "" {
		return c, errors.New("which vault? pass -vault DIR or set VAULT_PATH")
	}
	checks := []struct {
		flag, env string
		err       error
	}{
		{"transport", "VAULTMCP_TRANSPORT", oneOf("transport", c.transport, "http", "stdio")},
		{"addr", "VAULTMCP_ADDR", checkAddr(c.addr)},
	}
	for _, check := range checks {
		if check.err != nil {
			return c, badSetting(check.flag, check.env, check.err)
		}
	}
	return c, nil
}

// badSetting is the error for a value that cannot be used. It names the flag and the
// environment variable, since the value may have come from either.
func badSetting(flagName, envName string, err error) error {
	return fmt.Errorf("-%s (or %s): %w", flagName, envName, err)
}

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
