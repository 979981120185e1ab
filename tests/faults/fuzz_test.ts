/**
 * Fuzzing with fixed seeds (fast-check, 10 000 inputs each; FUZZ_RUNS raises it locally): the watch-frame decoders
 * (chunked transfer encoding, newline-delimited JSON), the kubeconfig loader and the CRD schema validator. Each must
 * return or fail with its own clear error — never crash with a TypeError, never hang.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ChunkedDecoder, ChunkedEncodingError } from "../../runtime/http/chunked_decoder.ts";
import { dechunkInPlace } from "../../runtime/http/http_transport.ts";
import { LineSplitter, LineTooLongError } from "../../runtime/http/json_lines.ts";
import { KubeconfigError, parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { validateAndDefault } from "../../testing/apiserver/schema.ts";

const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 10_000);
const SEED = 20261124;
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };

/** Splits `bytes` at the given (sorted, deduplicated) cut points. */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let prev = 0;
  for (const p of at) {
    parts.push(bytes.slice(prev, p));
    prev = p;
  }
  parts.push(bytes.slice(prev));
  return parts;
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
};

const enc = new TextEncoder();

Deno.test("fuzz: chunked decoding of any valid framing, split anywhere, yields the payload", () => {
  const chunk = fc.record({
    data: fc.uint8Array({ minLength: 1, maxLength: 64 }),
    upper: fc.boolean(),
    ext: fc.constantFrom("", ";a=b", " ", "\t;x"),
    bareLF: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (chunks, points) => {
      const framed = concat([
        ...chunks.flatMap((c) => {
          const size = c.data.length.toString(16);
          const eol = c.bareLF ? "\n" : "\r\n";
          return [enc.encode((c.upper ? size.toUpperCase() : size) + c.ext + eol), c.data, enc.encode(eol)];
        }),
        enc.encode("0\r\nX-Trailer: 1\r\n\r\n"),
      ]);
      const dec = new ChunkedDecoder();
      const out: Uint8Array[] = [];
      let done = false;
      for (const part of cut(framed, points)) done = dechunkInPlace(dec, part, (b) => out.push(b.slice()));
      assert.ok(done);
      assert.deepEqual(concat(out), concat(chunks.map((c) => c.data)));
    }),
    params,
  );
});

Deno.test("fuzz: chunked decoding of arbitrary bytes ends or fails with ChunkedEncodingError", () => {
  const noise = fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    fc.array(fc.constantFrom("0", "a", "F", "\r", "\n", ";", " ", "1", "ff", "x", "\r\n"), { maxLength: 60 })
      .map((a) => enc.encode(a.join(""))),
  );
  fc.assert(
    fc.property(noise, fc.array(fc.nat(), { maxLength: 4 }), (bytes, points) => {
      const dec = new ChunkedDecoder();
      let emitted = 0;
      try {
        for (const part of cut(bytes, points)) dec.push(part, (b) => emitted += b.length);
      } catch (err) {
        assert.ok(err instanceof ChunkedEncodingError, `unexpected ${err}`);
        assert.ok((err as Error).message.length > 0);
      }
      assert.ok(emitted <= bytes.length);
    }),
    params,
  );
});

Deno.test("fuzz: newline-delimited JSON lines survive any split, multi-byte characters included", () => {
  const line = fc.string({ unit: "grapheme", maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ""));
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 10 }),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 8 }),
      (lines, crlf, points) => {
        const text = lines.map((l) => l + (crlf ? "\r\n" : "\n")).join("");
        const got: string[] = [];
        const splitter = new LineSplitter((l) => got.push(l));
        for (const part of cut(enc.encode(text), points)) splitter.push(part);
        splitter.flush();
        assert.deepEqual(got, lines.filter((l) => l.length > 0));
      },
    ),
    params,
  );
});

Deno.test("fuzz: arbitrary bytes through the line splitter and JSON.parse: lines or LineTooLongError", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 5 }), (bytes, points) => {
      const splitter = new LineSplitter((l) => {
        assert.ok(!l.includes("\n"));
        try {
          JSON.parse(l); // what the watch does with a line; a malformed one is reported, not thrown
        } catch (err) {
          assert.ok(err instanceof SyntaxError);
        }
      }, { maxLineChars: 64 });
      try {
        for (const part of cut(bytes, points)) splitter.push(part);
        splitter.flush();
      } catch (err) {
        assert.ok(err instanceof LineTooLongError, `unexpected ${err}`);
        assert.match((err as Error).message, /line longer than 64 characters/);
      }
    }),
    params,
  );
});

/** Any JSON-ish value, biased towards the shapes a kubeconfig has. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(fc.oneof(arb, anyValue), { nil: undefined });
const kubeconfigDoc = fc.record({
  "current-context": maybe(fc.constantFrom("c", "d")),
  contexts: maybe(fc.array(
    fc.record({
      name: maybe(fc.constantFrom("c", "d")),
      context: maybe(fc.record({
        cluster: maybe(fc.constant("k")),
        user: maybe(fc.constant("u")),
        namespace: maybe(fc.constant("ns")),
      })),
    }),
    { maxLength: 2 },
  )),
  clusters: maybe(fc.array(
    fc.record({
      name: maybe(fc.constant("k")),
      cluster: maybe(fc.record({
        server: maybe(fc.constantFrom("https://127.0.0.1:6443", "http://x/", "")),
        "certificate-authority-data": maybe(fc.constantFrom("bm90IGEgY2VydA==", "!!notbase64", "")),
        "insecure-skip-tls-verify": maybe(fc.boolean()),
        "tls-server-name": maybe(fc.constant("kubernetes")),
      })),
    }),
    { maxLength: 2 },
  )),
  users: maybe(fc.array(
    fc.record({
      name: maybe(fc.constant("u")),
      user: maybe(fc.record({
        token: maybe(fc.constant("t0ken")),
        "client-key-data": maybe(fc.constantFrom("a2V5", "%%%")),
        username: maybe(fc.constant("admin")),
        password: maybe(fc.constant("pw")),
        exec: maybe(fc.record({
          command: maybe(fc.constantFrom("kubectl-auth", "./bin/auth", "")),
          args: maybe(fc.array(anyValue, { maxLength: 2 })),
          env: maybe(fc.array(anyValue, { maxLength: 2 })),
          apiVersion: maybe(fc.constant("client.authentication.k8s.io/v1")),
        })),
      })),
    }),
    { maxLength: 2 },
  )),
});

/** The loader's verdict: a config, or an error that is a KubeconfigError naming the source. */
async function loadVerdict(text: string): Promise<void> {
  try {
    const config = await parseKubeconfig(text, { source: "fuzz.yaml", baseDir: "/nonexistent" });
    assert.equal(typeof config.server, "string");
  } catch (err) {
    assert.ok(err instanceof KubeconfigError, `not a KubeconfigError: ${(err as Error)?.stack ?? err}`);
    assert.match((err as Error).message, /^kubeconfig fuzz\.yaml: /);
  }
}

Deno.test("fuzz: the kubeconfig loader returns a config or a KubeconfigError naming the file (10 000 documents and texts)", async () => {
  await fc.assert(
    // JSON is YAML, and 20× cheaper to write than YAML.stringify: the loader's YAML parse dominates the cost.
    fc.asyncProperty(kubeconfigDoc, async (doc) => await loadVerdict(JSON.stringify(doc))),
    { ...params, numRuns: Math.ceil(RUNS * 0.75) },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.array(fc.constantFrom("a: ", "- ", "\n", "  ", "{", "}", "[", "]", "&x ", "*x", "!!binary ", '"', "'", ":"))
          .map((a) => a.join("")),
      ),
      async (text) => await loadVerdict(text),
    ),
    { ...params, numRuns: Math.ceil(RUNS / 4) },
  );
});

/** A structural schema of bounded depth. */
const schemaArb = fc.letrec<Record<string, Record<string, unknown>>>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    tie("object"),
    tie("array"),
  ) as fc.Arbitrary<Record<string, unknown>>,
  leaf: fc.record({
    type: fc.constantFrom("string", "integer", "number", "boolean"),
    default: fc.option(anyValue, { nil: undefined }),
    enum: fc.option(fc.array(anyValue, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    minimum: fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
    maximum: fc.option(fc.integer({ min: -5, max: 50 }), { nil: undefined }),
    maxLength: fc.option(fc.nat(10), { nil: undefined }),
    pattern: fc.option(fc.constantFrom("^[a-z]+$", "^x", "("), { nil: undefined }),
    format: fc.option(fc.constantFrom("date-time", "int-or-string", "byte"), { nil: undefined }),
    nullable: fc.option(fc.boolean(), { nil: undefined }),
    "x-kubernetes-int-or-string": fc.option(fc.boolean(), { nil: undefined }),
  }, { requiredKeys: ["type"] }),
  object: fc.record({
    type: fc.constant("object"),
    properties: fc.option(fc.dictionary(fc.constantFrom("a", "b", "spec", "x"), tie("schema"), { maxKeys: 3 }), {
      nil: undefined,
    }),
    required: fc.option(fc.array(fc.constantFrom("a", "b", "x"), { maxLength: 2 }), { nil: undefined }),
    additionalProperties: fc.option(fc.oneof(fc.boolean(), tie("schema")), { nil: undefined }),
    "x-kubernetes-preserve-unknown-fields": fc.option(fc.boolean(), { nil: undefined }),
    default: fc.option(fc.dictionary(fc.constantFrom("a", "b"), anyValue, { maxKeys: 2 }), { nil: undefined }),
    nullable: fc.option(fc.boolean(), { nil: undefined }),
  }, { requiredKeys: ["type"] }),
  array: fc.record({
    type: fc.constant("array"),
    items: fc.option(tie("schema"), { nil: undefined }),
    maxItems: fc.option(fc.nat(3), { nil: undefined }),
    minItems: fc.option(fc.nat(2), { nil: undefined }),
  }, { requiredKeys: ["type"] }),
})).schema;

Deno.test("fuzz: the CRD schema validator returns causes with a field and a message for any object and schema", () => {
  const value = fc.jsonValue({ maxDepth: 4 });
  const objectLike = fc.dictionary(fc.constantFrom("a", "b", "spec", "x", "y"), value, { maxKeys: 4 });
  fc.assert(
    fc.property(schemaArb.map((s) => ({ ...s, type: "object" })), fc.oneof(objectLike, value), (schema, obj) => {
      const result = validateAndDefault(obj, schema);
      assert.ok(Array.isArray(result.causes) && Array.isArray(result.pruned));
      for (const cause of result.causes) {
        assert.equal(typeof cause.message, "string");
        assert.ok(cause.message!.length > 0);
        assert.equal(typeof (cause.field ?? ""), "string");
      }
      JSON.stringify(result.object); // a plain JSON value
    }),
    params,
  );
});
