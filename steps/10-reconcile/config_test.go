package main

import (
	"testing"

	"vaultmcp/shared/steptest"
)

// TestBadSettingsNameThemselves: a value the server cannot use, from a flag or from the
// environment, stops it before it creates, opens or listens on anything, with an error that
// names the flag, the variable and the value.
func TestBadSettingsNameThemselves(t *testing.T) {
	steptest.RefusesBadSettings(t, run, []steptest.Setting{
		{Flag: "transport", Env: "VAULTMCP_TRANSPORT", Bad: "carrier-pigeon"},
		{Flag: "addr", Env: "VAULTMCP_ADDR", Bad: "nowhere"},
		{Flag: "addr", Env: "VAULTMCP_ADDR", Bad: "0.0.0.0:3000"},
		{Flag: "embedder", Env: "VAULTMCP_EMBEDDER", Bad: "telepathy"},
		{Flag: "min-score", Env: "VAULTMCP_MIN_SCORE", Bad: "abc"},
		{Flag: "min-score", Env: "VAULTMCP_MIN_SCORE", Bad: "1.5"},
		{Flag: "rank", Env: "VAULTMCP_RANK", Bad: "alphabetical"},
		{Flag: "watch", Env: "VAULTMCP_WATCH", Bad: "bogus"},
		{Flag: "inbox", Env: "VAULTMCP_INBOX", Bad: "../outside"},
		{Flag: "read-only", Env: "VAULTMCP_READ_ONLY", Bad: "maybe"},
		{Flag: "allow-origin", Env: "VAULTMCP_ORIGINS", Bad: "localhost:6274"},
	})
}
