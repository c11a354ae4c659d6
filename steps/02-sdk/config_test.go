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
	})
}
