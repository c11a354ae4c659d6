// Connects the official MCP TypeScript client to a running server, exercises it the way a real
// client does (initialize, the initialized notification, tools/list, tools/call), and prints
// what it saw as one JSON object for interop_test.go to check.
//
//   node client.mjs http://127.0.0.1:3000/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]));
const client = new Client({ name: "vaultmcp-interop", version: "1.0.0" });
await client.connect(transport);

const report = {
  protocolVersion: transport.protocolVersion,
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
