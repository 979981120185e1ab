/**
 * The codec's check of a request body's apiVersion and kind against the URL's resource (kube-apiserver decodes
 * into the URL's kind: another kind or version is a 400 BadRequest with the decoder's message). Missing fields take
 * the URL's; custom resources are not checked here.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceRegistry } from "../registry.ts";
import type { ResourceDef } from "../resource_def.ts";
import { badRequest } from "../status_errors.ts";

/** The Go package of a built-in group's internal types, as conversion errors name it (`core.ConfigMap`). */
function internalPackage(group: string): string {
  return group === "" || group === "events.k8s.io" ? "core" : group.split(".")[0];
}

/**
 * Throws 400 when `body` names a kind or apiVersion other than `def`'s, with kube's decoder message:
 * `Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown
 * conversion`, or `... no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"`.
 */
export function checkTypeMeta(registry: ResourceRegistry, def: ResourceDef, body: KubeObject, verb: string): void {
  if (def.custom) return;
  const served = def.group ? `${def.group}/${def.version}` : def.version;
  const apiVersion = typeof body.apiVersion === "string" && body.apiVersion ? body.apiVersion : served;
  const kind = typeof body.kind === "string" && body.kind ? body.kind : def.kind;
  if (apiVersion === served && kind === def.kind) return;
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const known = registry.all().some((d) => !d.custom && d.group === group && d.version === version && d.kind === kind);
  const why = known
    ? `converting (${version}.${kind}) to (${internalPackage(def.group)}.${def.kind}): unknown conversion`
    : `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`;
  throw badRequest(`${kind} in version "${version}" cannot be handled as a ${def.kind}: ${why}`, verb);
}
