/**
 * `/openapi/v3` (index with per-group-version hashes) and `/openapi/v3/<api/v1|apis/g/v>` documents from the
 * current resource registry, cached per registry generation; `/openapi/v2` (openapi_v2.ts) in JSON or gnostic
 * protobuf, negotiated as kube-openapi's handler does (the first `Accept` clause, by q, that names
 * `application/json`, `application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf` or a wildcard; none: 406 with
 * no body), with a quoted `ETag` (the upper-case hex SHA-512 of the JSON, for both encodings) and 304 for a matching
 * `If-None-Match`.
 * @module
 */
import { failureStatus } from "../../runtime/client/errors.ts";
import { createHash } from "node:crypto";
import { openApiV3Document, openApiV3Index } from "./openapi.ts";
import { openApiV2Document } from "./openapi_v2.ts";
import { encodeOpenApiV2Protobuf } from "./openapi_v2_protobuf.ts";
import type { ResourceRegistry } from "./registry.ts";

/** Serves the OpenAPI paths, or returns undefined for other paths. */
export function openApiHandler(
  registry: () => ResourceRegistry,
  aggregated: () => string[] = () => [],
): (req: Request, url: URL) => Response | undefined {
  let cachedGeneration = -1;
  let cachedRegistry: ResourceRegistry | undefined;
  let index = "";
  const documents = new Map<string, string>();
  let v2: V2Cache | undefined;
  return (req, url) => {
    if (req.method !== "GET" && req.method !== "HEAD") return undefined;
    const path = url.pathname.replace(/\/+$/, "");
    if (!path.startsWith("/openapi/")) return undefined;
    const reg = registry();
    if (reg !== cachedRegistry || reg.generation !== cachedGeneration) {
      cachedRegistry = reg;
      cachedGeneration = reg.generation;
      index = JSON.stringify(openApiV3Index(reg.all()));
      documents.clear();
      v2 = undefined;
    }
    if (path === "/openapi/v2") return serveV2(req, v2 ??= v2Cache(reg));
    const headers = { "content-type": "application/json" };
    if (path === "/openapi/v3") {
      const extra = aggregated();
      if (extra.length === 0) return new Response(index, { headers });
      const doc = JSON.parse(index) as { paths: Record<string, unknown> };
      for (const gv of extra) doc.paths[`apis/${gv}`] = { serverRelativeURL: `/openapi/v3/apis/${gv}` };
      return new Response(JSON.stringify(doc), { headers });
    }
    const m = path.match(/^\/openapi\/v3\/(api\/([^/]+)|apis\/([^/]+)\/([^/]+))$/);
    if (m) {
      const [group, version] = m[2] ? ["", m[2]] : [m[3], m[4]];
      const key = `${group}/${version}`;
      let doc = documents.get(key);
      if (doc === undefined) {
        const built = openApiV3Document(group, version, reg.all());
        doc = built ? JSON.stringify(built) : "";
        documents.set(key, doc);
      }
      if (doc) {
        return new Response(doc, {
          headers: url.searchParams.has("hash") ? { ...headers, "cache-control": "public, immutable" } : headers,
        });
      }
    }
    return new Response(
      JSON.stringify(failureStatus(404, "NotFound", "the server could not find the requested resource")),
      { status: 404, headers },
    );
  };
}

/** The v2 document of one registry generation: JSON, ETag and time built at once, protobuf on first request. */
interface V2Cache {
  json: string;
  etag: string;
  lastModified: string;
  protobuf?: Uint8Array<ArrayBuffer>;
  doc: object;
}

function v2Cache(reg: ResourceRegistry): V2Cache {
  const doc = openApiV2Document(reg.all());
  const json = JSON.stringify(doc);
  const etag = `"${createHash("sha512").update(json).digest("hex").toUpperCase()}"`;
  return { json, etag, lastModified: new Date().toUTCString(), doc };
}

const V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
/** kube-openapi's offers in order: subtype → what it answers. */
const V2_OFFERS: ReadonlyArray<[string, "json" | "protobuf"]> = [
  ["json", "json"],
  ["com.github.proto-openapi.spec.v2@v1.0+protobuf", "protobuf"],
  ["com.github.proto-openapi.spec.v2.v1.0+protobuf", "protobuf"],
];

/** Which encoding `Accept` gets, as goautoneg sorts clauses (q, then specificity) and kube-openapi matches them. */
function negotiateV2(accept: string | null): "json" | "protobuf" | undefined {
  const clauses = (accept?.trim() ? accept : "*/*").split(",").map((raw, index) => {
    const [range, ...params] = raw.split(";").map((p) => p.trim());
    const [type = "", subtype = ""] = range.toLowerCase().split("/");
    const q = params.find((p) => p.startsWith("q="));
    return { type, subtype, q: q ? Number(q.slice(2)) : 1, index };
  }).filter((c) => c.q > 0);
  const specificity = (c: { type: string; subtype: string }) => (c.type === "*" ? 0 : c.subtype === "*" ? 1 : 2);
  clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  for (const c of clauses) {
    if (c.type !== "application" && c.type !== "*") continue;
    const offer = V2_OFFERS.find(([subtype]) => c.subtype === subtype || c.subtype === "*");
    if (offer) return offer[1];
  }
  return undefined;
}

function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === "*" || t === etag);
}

function serveV2(req: Request, cache: V2Cache): Response {
  const encoding = negotiateV2(req.headers.get("accept"));
  if (!encoding) return new Response(null, { status: 406, headers: { vary: "Accept" } });
  if (ifNoneMatch(req.headers.get("if-none-match"), cache.etag)) {
    return new Response(null, { status: 304, headers: { etag: cache.etag, vary: "Accept" } });
  }
  const body = encoding === "json" ? cache.json : (cache.protobuf ??= encodeOpenApiV2Protobuf(cache.doc));
  return new Response(req.method === "HEAD" ? null : body, {
    headers: {
      "accept-ranges": "bytes",
      "content-type": encoding === "json" ? "application/json" : V2_PROTOBUF,
      etag: cache.etag,
      "last-modified": cache.lastModified,
      vary: "Accept",
    },
  });
}
