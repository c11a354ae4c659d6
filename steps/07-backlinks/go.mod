module vaultmcp/steps/07-backlinks

go 1.26

require (
	github.com/mark3labs/mcp-go v1.2.1
	github.com/ollama/ollama v0.17.4
	vaultmcp/shared v0.0.0
)

require (
	github.com/asg017/sqlite-vec-go-bindings v0.1.6 // indirect
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.1 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/ncruces/go-sqlite3 v0.21.3 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/tetratelabs/wazero v1.8.2 // indirect
	github.com/wk8/go-ordered-map/v2 v2.1.8 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/crypto v0.43.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.30.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

// The shared packages live in this repository; the replace lets the step build on its own
// (GOWORK=off) as well as in the workspace.
replace vaultmcp/shared => ../../shared
