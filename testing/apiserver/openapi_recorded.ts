/**
 * Real component schemas for some core/v1 kinds, recorded from kube-apiserver v1.37 by
 * testdata/capture_openapi.ts: the fake's `/openapi/v3/api/v1` serves them instead of its permissive generic schema,
 * so `kubectl explain configmap` and schema-driven clients see the real fields (data, binaryData, immutable, ...).
 * @module
 */
import recorded from "./testdata/openapi/core_v1_schemas.json" with { type: "json" };
import type { OpenApiSchema } from "./resource_def.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** The core/v1 kinds whose real schemas (and their lists) are recorded; the rest get the generic schema. */
export const CORE_V1_RECORDED_KINDS: readonly string[] = [
  "ConfigMap",
  "Secret",
  "Namespace",
  "ServiceAccount",
  "Endpoints",
  "Event",
  "LimitRange",
  "ResourceQuota",
  "Service",
].flatMap((k) => [k, `${k}List`]);

/**
 * The recorded schemas of core/v1 (every recorded kind and what it references, by components.schemas name), or
 * undefined for another group-version.
 *
 * @example
 * ```ts
 * import { recordedSchemas } from "./openapi_recorded.ts";
 * const schemas = recordedSchemas("", "v1")!;
 * console.assert("binaryData" in (schemas["io.k8s.api.core.v1.ConfigMap"].properties ?? {}));
 * ```
 */
export function recordedSchemas(group: string, version: string): Record<string, OpenApiSchema> | undefined {
  if (group !== "" || version !== "v1") return undefined;
  return copyJson(recorded) as unknown as Record<string, OpenApiSchema>;
}
