module vaultmcp/steps/01-raw

go 1.26
