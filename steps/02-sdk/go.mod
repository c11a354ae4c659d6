module vaultmcp/steps/02-sdk

go 1.26

require (
	github.com/mark3labs/mcp-go v1.2.1
	vaultmcp/shared v0.0.0
)

require (
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.30.0 // indirect
)

// The shared packages live in this repository; the replace lets the step build on its own
// (GOWORK=off) as well as in the workspace.
replace vaultmcp/shared => ../../shared
