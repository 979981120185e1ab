/**
 * `/openapi/v3` (index with per-group-version hashes) and `/openapi/v3/<api/v1|apis/g/v>` documents from the
 * current resource registry, cached per registry generation; `/openapi/v2` answers 404 (kubectl falls back to v3).
 * @module
 */
import { failureStatus } from "../../runtime/client/errors.ts";
import { openApiV3Document, openApiV3Index } from "./openapi.ts";
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
    }
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
