// Drives a server with one of the official MCP TypeScript clients, and prints what it saw as one
// JSON object for interop_test.go to check. The test says what to call, as JSON on stdin (its
// plan type); this script calls and records, and judges nothing.
//
//   node client.mjs sdk http://127.0.0.1:3000/mcp < plan.json   # a running server, over HTTP
//   node client.mjs v2-pin --stdio ./vaultmcp < plan.json       # starts it with -transport stdio
//
// The clients:
//   sdk       @modelcontextprotocol/sdk 1.32, which speaks up to 2025-11-25 (initialize)
//   v2-pin    @modelcontextprotocol/client 2.4 pinned to 2026-07-28: no fallback, it fails instead
//   v2-auto   @modelcontextprotocol/client 2.4 in auto mode: server/discover first, and the 2025
//             initialize handshake if the server does not take it
//
// Over stdio the server gets this process's environment (VAULT_PATH and the rest): the SDKs
// would otherwise pass only a few safe variables, and the server could not find its vault. Its
// stderr, the server's log, comes through on this process's stderr.
import { text } from "node:stream/consumers";

const [kind, ...where] = process.argv.slice(2);
const stdio = where[0] === "--stdio";
const target = stdio ? where[1] : where[0];
const plan = JSON.parse(await text(process.stdin));
const info = { name: "vaultmcp-interop", version: "1.0.0" };

const report = { calls: [] };
try {
  const client = await connect();
  report.server = client.getServerVersion();
  report.tools = (await client.listTools()).tools.map((t) => t.name);
  for (const c of plan.calls.filter((c) => report.tools.includes(c.tool))) {
    report.calls.push({ ...c, ...(await call(client, c)) });
  }
  report.unknownTool = await call(client, { tool: plan.unknownTool, arguments: {} });
  if (client.getServerCapabilities()?.resources) {
    report.resources = await resources(client, plan.resources);
  }
  await client.close();
} catch (err) {
  report.error = describe(err).message;
}
console.log(JSON.stringify(report));

async function connect() {
  if (kind === "sdk") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const transport = stdio ? new StdioClientTransport(command()) : new StreamableHTTPClientTransport(new URL(target));
    // SDK 1.32 has no getter for the negotiated version, but hands it to the transport (HTTP
    // sends it in a header): catch it on the way, so both transports report it.
    const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version) => {
      report.protocolVersion = version;
      setProtocolVersion?.(version);
    };
    const client = new Client(info);
    await client.connect(transport);
    return client;
  }
  const mode = { "v2-pin": { pin: "2026-07-28" }, "v2-auto": "auto" }[kind];
  if (!mode) {
    throw new Error(`unknown client ${JSON.stringify(kind)}; use sdk, v2-pin or v2-auto`);
  }
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const client = new Client(info, { versionNegotiation: { mode } });
  await client.connect(stdio ? new StdioClientTransport(command()) : new StreamableHTTPClientTransport(new URL(target)));
  report.protocolVersion = client.getNegotiatedProtocolVersion();
  return client;
}

function command() {
  return { command: target, args: ["-transport", "stdio"], env: process.env };
}

// call runs one tools/call and records its result, or the protocol error it threw. A call with
// `until` is repeated, for up to 10 s, until its text holds that: a step that indexes in the
// background may still be catching up.
async function call(client, c) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    let got;
    try {
      got = { result: await client.callTool({ name: c.tool, arguments: c.arguments }) };
    } catch (err) {
      got = { error: describe(err) };
    }
    const said = (got.result?.content ?? []).map((item) => item.text ?? "").join("\n");
    if (!c.until || said.includes(c.until) || Date.now() > deadline) {
      return got;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// resources lists the resource templates and the first page of resources, reads the URI the
// plan names and then one that names no note, completes a path where the server offers
// completions, and records what came back.
async function resources(client, want) {
  const got = {};
  got.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  const page = await client.listResources();
  got.listed = page.resources.map((r) => r.uri);
  got.nextCursor = page.nextCursor ?? "";
  try {
    got.read = (await client.readResource({ uri: want.read })).contents;
  } catch (err) {
    got.readError = describe(err);
  }
  try {
    got.missing = { contents: (await client.readResource({ uri: want.missing })).contents };
  } catch (err) {
    got.missing = { error: describe(err) };
  }
  if (client.getServerCapabilities()?.completions) {
    const ref = { type: "ref/resource", uri: got.templates[0] };
    got.completed = (await client.complete({ ref, argument: { name: "path", value: want.complete } })).completion.values;
  }
  return got;
}

// describe keeps what a Go test can read of an error: the JSON-RPC code, when it is one, and
// a message that names the error's class (SdkError, ProtocolError...) and any SDK code.
function describe(err) {
  const rpc = typeof err?.code === "number";
  const name = [err?.constructor?.name, rpc ? undefined : err?.code].filter(Boolean).join(" ");
  return { code: rpc ? err.code : undefined, message: `${name}: ${err?.message ?? err}` };
}
