/**
 * The URL path of a resource, a collection or a subresource.
 * @module
 */
import type { ResourceType } from "../types.ts";

/** Builds `/api/v1/namespaces/ns/pods/name/status`. */
export function resourcePath(
  rt: ResourceType,
  opts: { namespace?: string; name?: string; subresource?: string } = {},
): string {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const ns = rt.namespaced && opts.namespace ? `/namespaces/${encodeURIComponent(opts.namespace)}` : "";
  const name = opts.name !== undefined ? `/${encodeURIComponent(opts.name)}` : "";
  const sub = opts.subresource && opts.name !== undefined ? `/${opts.subresource}` : "";
  return `${base}${ns}/${rt.plural}${name}${sub}`;
}
