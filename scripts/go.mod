module vaultmcp/scripts

go 1.26
