/**
 * The commit path's decoding of a write's body (create, update): the checks kube's decoder makes before anything
 * else, and the fields a built-in's Go type lacks, dropped and reported for `fieldValidation`; quantities are
 * rewritten as their canonical text (go_json_quantities.ts).
 * @module
 */
import { dropUnknownGoFields, strictFieldPath } from "./go_json_unknown.ts";
import { canonicalQuantity } from "./go_json_quantities.ts";
import type { ResourceRegistry } from "./registry.ts";
import type { ResourceDef } from "./resource_def.ts";
import { badRequest } from "./status_errors.ts";
import type { ResourceStrategy } from "./strategy.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { checkTypeMeta } from "./validation/type_meta.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/**
 * A copy of a request body in the stored form, with an object `metadata`; 400 when the body is not an object, names
 * another kind or version than the URL, or holds what the kind's codec cannot read (base64, MicroTime).
 */
export function decodeBody(
  registry: ResourceRegistry,
  def: ResourceDef,
  strategy: ResourceStrategy,
  body: KubeObject,
  verb: string,
): { obj: KubeObject; unknown: string[] } {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest("the request body must be a JSON object", verb);
  }
  checkTypeMeta(registry, def, body, verb);
  const codecError = strategy.decodeError?.(body);
  if (codecError) {
    throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${codecError}`, verb);
  }
  let obj = copyJson(body) as KubeObject;
  // Decoded into the Go type the body names (kube converts to the URL's kind afterwards), else the URL's: the
  // fields that type lacks are dropped.
  const [group, version] = typeof obj.apiVersion === "string" && obj.apiVersion.includes("/")
    ? obj.apiVersion.split("/", 2)
    : [def.group, typeof obj.apiVersion === "string" && obj.apiVersion ? obj.apiVersion : def.version];
  const kind = typeof obj.kind === "string" && obj.kind ? obj.kind : def.kind;
  const unknown = def.custom
    ? []
    : dropUnknownGoFields(group, version, kind, obj, { onScalar: canonicalQuantity }).map(strictFieldPath);
  if (strategy.conversion) obj = strategy.conversion.toStorage(obj);
  obj.metadata = obj.metadata && typeof obj.metadata === "object" ? obj.metadata : {};
  return { obj, unknown };
}
