/**
 * Kubernetes' CEL URL library (k8s.io/apiserver pkg/cel/library/urls.go) on @bufbuild/cel: `url(s)`, `isURL(s)` and on
 * a URL `getScheme()`, `getHost()`, `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()`. Like Go's
 * url.ParseRequestURI, a URL must be absolute or an absolute path. A URL is held as a one-entry map
 * (`{"@url": "..."}`).
 * @module
 */
import { type CelFunc, celFunc, celMethod, CelScalar, type CelValue, isCelMap, mapType } from "@bufbuild/cel";

/** Raises a CEL evaluation error (@bufbuild/cel turns a thrown Error into one). */
function fail(message: string): never {
  throw new Error(message);
}

const KEY = "@url";

interface Parts {
  scheme: string;
  host: string;
  hostname: string;
  port: string;
  path: string;
  query: string;
}

/** Splits a URL as url.ParseRequestURI does (enough for the library's getters); undefined when it would fail. */
export function parseUrl(text: string): Parts | undefined {
  if ([...text].some((c) => c.charCodeAt(0) <= 0x20)) return undefined; // spaces and control characters
  const m = text.match(/^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?$/);
  if (!m) return undefined;
  const [, scheme = "", authority, path = "", query = ""] = m;
  if (!scheme && !path.startsWith("/")) return undefined;
  const host = (authority ?? "").replace(/^.*@/, "");
  const hm = host.match(/^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/);
  if (!hm) return undefined;
  return { scheme, host, hostname: hm[1].replace(/^\[|\]$/g, ""), port: hm[2] ?? "", path, query };
}

function parts(v: CelValue): Parts | undefined {
  if (!isCelMap(v)) return undefined;
  const text = v.get(KEY);
  return typeof text === "string" ? parseUrl(text) : undefined;
}

function getter(name: string, pick: (p: Parts) => string): CelFunc {
  return celMethod(name, CelScalar.DYN, [], CelScalar.STRING, function () {
    const p = parts(this);
    return p ? pick(p) : fail("no such overload");
  });
}

/** The fake's URL functions (see the module). */
export const URL_FUNCS: CelFunc[] = [
  celFunc("url", [CelScalar.STRING], CelScalar.DYN, (s) => {
    if (!parseUrl(s)) {
      return fail(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    }
    return new Map([[KEY, s]]) as never;
  }),
  celFunc("isURL", [CelScalar.STRING], CelScalar.BOOL, (s) => parseUrl(s) !== undefined),
  getter("getScheme", (p) => p.scheme),
  getter("getHost", (p) => p.host),
  getter("getHostname", (p) => p.hostname),
  getter("getPort", (p) => p.port),
  getter("getEscapedPath", (p) => p.path),
  celMethod("getQuery", CelScalar.DYN, [], mapType(CelScalar.STRING, CelScalar.DYN), function () {
    const p = parts(this);
    if (!p) return fail("no such overload");
    const out = new Map<string, string[]>();
    for (const [k, v] of new URLSearchParams(p.query)) out.set(k, [...(out.get(k) ?? []), v]);
    return out as never;
  }),
];
