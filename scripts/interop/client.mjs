// Connects the official MCP TypeScript client to a server, exercises it the way a real client
// does (initialize, the initialized notification, tools/list, tools/call), and prints what it
// saw as one JSON object for interop_test.go to check.
//
//   node client.mjs http://127.0.0.1:3000/mcp        # a running server, over Streamable HTTP
//   node client.mjs --stdio ./vaultmcp                # starts it with -transport stdio
//
// Over stdio the server gets this process's environment (VAULT_PATH and the rest): the SDK
// would otherwise pass only a few safe variables, and the server could not find its vault.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport =
  process.argv[2] === "--stdio"
    ? new StdioClientTransport({ command: process.argv[3], args: ["-transport", "stdio"], env: process.env })
    : new StreamableHTTPClientTransport(new URL(process.argv[2]));
// The SDK hands the negotiated version to the transport (HTTP sends it in a header); catch it
// on the way, so both transports report it the same way.
let protocolVersion;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
  protocolVersion = version;
  setProtocolVersion?.(version);
};
const client = new Client({ name: "vaultmcp-interop", version: "1.0.0" });
await client.connect(transport);

const report = {
  protocolVersion,
  server: client.getServerVersion(),
  tools: (await client.listTools()).tools.map((t) => t.name),
};
report.ping = await client.callTool({ name: "ping", arguments: {} });
report.echoMissing = await client.callTool({ name: "echo", arguments: {} });
if (report.tools.includes("get_note")) {
  report.note = await client.callTool({ name: "get_note", arguments: { path: "Projects/Ideas.md" } });
}
if (report.tools.includes("search_vault")) {
  // From step 6 the tool declares an outputSchema; the SDK checks structuredContent against it.
  report.search = await client.callTool({ name: "search_vault", arguments: { query: "why is my bread dense", limit: 1 } });
}
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  report.unknownTool = "no error";
} catch (err) {
  report.unknownTool = { code: err.code, message: err.message };
}
await client.close();
console.log(JSON.stringify(report));
