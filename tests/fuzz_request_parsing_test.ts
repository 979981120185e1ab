// Fuzzing (fast-check, fixed seeds) of the request parsing of the fake API server and the farm server, called
// in-process (no sockets, so ≥ 10 000 inputs each stay fast): body decoding, selectors, URL/route parsing and whole
// requests through each router. Every input must end in a value or a Kubernetes Status (4xx for parsing, never a
// 500 InternalError from a router) — no crash, no hang.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ApiError } from "../runtime/client/errors.ts";
import { RealClock } from "../runtime/clock.ts";
import { decodeBody, requireObject } from "../testing/apiserver/http_body.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "../testing/apiserver/selectors.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { readBody as readFarmBody } from "../apiservice/http.ts";
import { parseResourcePath } from "../apiservice/authz.ts";
import { requestVerb } from "../runtime/apimachinery/verbs.ts";
import { accessAttributes } from "../apiservice/gate.ts";
import { createFarmRouter } from "../apiservice/router.ts";
import { LlamaStore } from "../apiservice/llama_store.ts";
import {
  parseFieldSelector as farmFieldSelector,
  parseLabelSelector as farmLabelSelector,
} from "../apiservice/selectors.ts";

const RUNS = 10_000;
const SEED = 20261124;

/** A clear error: an ApiError carrying a 4xx Status (or the fake's SelectorError, which its callers answer 400). */
function assertClearError(err: unknown, what: string): void {
  if (err instanceof SelectorError && err.message) return;
  if (!(err instanceof ApiError)) throw new Error(`${what}: threw ${String(err)} instead of a Status`);
  assert.ok(err.code >= 400 && err.code < 500, `${what}: ${err.code} ${err.message}`);
  assert.ok(err.message.length > 0);
}

const CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/vnd.kubernetes.protobuf",
  "text/plain",
  "",
  "*/*",
];

/** Brackets nested `n` deep: balanced arrays, objects, or never closed. */
const nested = (depth: fc.Arbitrary<number>) =>
  fc.tuple(depth, fc.constantFrom("array", "object", "open")).map(([n, shape]) =>
    shape === "array"
      ? "[".repeat(n) + "]".repeat(n)
      : shape === "object"
      ? '{"a":'.repeat(n) + "1" + "}".repeat(n)
      : "[".repeat(n)
  );

/** Bodies: JSON values, shallow nests, broken JSON, YAML-ish text, any text. */
const bodyText = fc.oneof(
  fc.json({ depthSize: "medium" }),
  nested(fc.nat({ max: 200 })),
  fc.string({ unit: fc.constantFrom("{", "}", "[", "]", '"', "\\", ":", ",", "-", " ", "\n", "a", "1", "%", "'") }),
  fc.string({ unit: "grapheme" }),
);
const JSON_TYPES = CONTENT_TYPES.filter((t) => t.includes("json"));
/** A body with its content type: near the depth limit (1 000) with JSON types — YAML parses deep flow collections
 * slowly, and its depth check is the same scanner — or anything with any type, or raw bytes. */
const typedBody = fc.oneof(
  fc.tuple(nested(fc.integer({ min: 990, max: 1010 })), fc.constantFrom(...JSON_TYPES)),
  fc.tuple(bodyText, fc.constantFrom(...CONTENT_TYPES)),
  fc.tuple(bodyText, fc.constantFrom(...CONTENT_TYPES)),
  fc.tuple(bodyText, fc.constantFrom(...CONTENT_TYPES)),
);
const bodyBytes = fc.oneof(
  typedBody.map(([text, type]) => [new TextEncoder().encode(text), type] as const),
  fc.tuple(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(...CONTENT_TYPES)),
);

Deno.test("fuzz: the fake's body decoding answers a value or a 4xx Status", () => {
  fc.assert(
    fc.property(bodyBytes, ([bytes, type]) => {
      try {
        requireObject(decodeBody(bytes, type, "create"), "create");
      } catch (err) {
        assertClearError(err, `decode ${type}`);
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

/** Selector-like strings built from the characters selectors use. */
const selector = fc.oneof(
  fc.string({ unit: fc.constantFrom("a", "b", "=", "!", ",", " ", "(", ")", "in", "notin", "/", ".", "-", "\\", "%") }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
);

Deno.test("fuzz: label and field selectors of both servers parse or answer a 4xx Status", () => {
  fc.assert(
    fc.property(selector, (text) => {
      for (
        const [what, parse] of [
          ["fake labelSelector", () => parseLabelSelector(text)],
          ["fake fieldSelector", () => parseFieldSelector(text, "metadata.namespace")],
          ["farm labelSelector", () => farmLabelSelector(text)],
          ["farm fieldSelector", () => farmFieldSelector(text)],
        ] as const
      ) {
        try {
          const matches = parse() as (o: unknown) => boolean;
          matches({ metadata: { name: "n", namespace: "ns", labels: { a: "b" } } });
        } catch (err) {
          assertClearError(err, what);
        }
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

const SEGMENTS = [
  "api",
  "apis",
  "v1",
  "namespaces",
  "default",
  "configmaps",
  "pods",
  "status",
  "log",
  "scale",
  "farm.example.com",
  "v1alpha",
  "llamas",
  "farmpods",
  "dolly",
  "apps",
  "deployments",
  "openapi",
  "v3",
  "%ZZ",
  "%",
  "%00",
  "%2F",
  "..",
  "",
];
const segment = fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ maxLength: 8 }).map((p) => p.replace(/[?#/]/g, "")));
/** Resource paths of both servers with odd parts, and arbitrary segment soup. */
const path = fc.oneof(
  fc.tuple(
    fc.constantFrom("/api/v1", "/apis/apps/v1", "/apis/farm.example.com/v1alpha", "/apis/coordination.k8s.io/v1"),
    fc.option(segment.map((ns) => `/namespaces/${ns}`), { nil: "" }),
    fc.constantFrom("configmaps", "pods", "deployments", "leases", "llamas", "farmpods", "namespaces", "secrets"),
    fc.array(segment, { maxLength: 3 }),
  ).map(([prefix, ns, resource, rest]) => [`${prefix}${ns}/${resource}`, ...rest].join("/")),
  fc.array(segment, { maxLength: 7 }).map((parts) => "/" + parts.join("/")),
);
const query = fc.array(
  fc.tuple(
    fc.constantFrom(
      "watch",
      "labelSelector",
      "fieldSelector",
      "resourceVersion",
      "resourceVersionMatch",
      "limit",
      "continue",
      "timeoutSeconds",
      "dryRun",
      "fieldManager",
      "propagationPolicy",
      "allowWatchBookmarks",
      "sendInitialEvents",
    ),
    fc.oneof(
      fc.constantFrom("true", "1", "0", "-1", "abc", "All", "9999999999999999999"),
      fc.string({ maxLength: 12 }),
    ),
  ),
  { maxLength: 4 },
).map((pairs) => pairs.length ? "?" + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&") : "");
const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
const request = fc.record({ method, path, query, typed: typedBody })
  .map(({ method, path, query, typed: [body, type] }) => {
    const hasBody = method !== "GET" && method !== "HEAD";
    return new Request(`http://fuzz.invalid${path}${query}`, {
      method,
      body: hasBody ? body : undefined,
      headers: hasBody ? { "content-type": type } : {},
    });
  });

/** The status of a response, its body (a watch stream, perhaps) cancelled. */
async function settle(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

Deno.test("fuzz: the fake's router answers every request with a non-500 status", async () => {
  const server = await startFakeApiServer();
  try {
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        const what = `${req.method} ${new URL(req.url).pathname}${new URL(req.url).search}`;
        const res = await server.handle(req.clone());
        const status = await settle(res);
        // 504 (a resourceVersion from the future) and 503 are kube's own answers; 500 is a bug.
        assert.notEqual(status, 500, what);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  } finally {
    await server.stop();
  }
});

Deno.test("fuzz: the farm's URL parsing, verbs, SubjectAccessReview attributes and body reading", async () => {
  fc.assert(
    fc.property(path, query, method, (p, q, m) => {
      const parsed = parseResourcePath(p);
      if (parsed) requestVerb(m, Boolean(parsed.name), new URLSearchParams(q));
      accessAttributes(new Request(`https://farm.invalid${p}${q}`, { method: m }));
    }),
    { seed: SEED, numRuns: RUNS },
  );
  await fc.assert(
    fc.asyncProperty(typedBody, async ([body, type]) => {
      try {
        await readFarmBody(
          new Request("https://farm.invalid/", { method: "POST", body, headers: { "content-type": type } }),
        );
      } catch (err) {
        assertClearError(err, `farm body ${type}`);
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );
});

Deno.test("fuzz: the farm's router answers every request with a non-500 status", async () => {
  const clock = new RealClock();
  const router = createFarmRouter({ store: await LlamaStore.open({ clock }), clock, ready: () => undefined });
  await fc.assert(
    fc.asyncProperty(request, async (req) => {
      const url = new URL(req.url);
      const res = await router(new Request(`https://farm.invalid${url.pathname}${url.search}`, req));
      const status = await settle(res);
      // farmpods answer 503 by design when no Pod cache is configured; 500 is a bug.
      assert.notEqual(status, 500, `${req.method} ${url.pathname}${url.search}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
});
