/**
 * ConfigMaps and Secrets: `immutable: true` freezes data, binaryData and the flag itself; a Secret's type defaults to
 * Opaque and may not change, and its write-only `stringData` folds into base64 `data` on every write.
 * @module
 */
import type { StatusCause } from "../../runtime/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { jsonEqual } from "../object_rules.ts";
import type { ResourceStrategy } from "../strategy.ts";

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Causes for changing an object whose `immutable` is true. */
function immutableCauses(next: KubeObject, old: KubeObject): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  const forbidden = (field: string) =>
    causes.push({
      reason: "FieldValueForbidden",
      message: "Forbidden: field is immutable when `immutable` is set",
      field,
    });
  if (!jsonEqual(old.data, next.data) || !jsonEqual(old.binaryData, next.binaryData)) forbidden("data");
  if (next.immutable !== true) forbidden("immutable");
  return causes;
}

/** The strategy of core v1 configmaps. */
export const CONFIGMAPS: ResourceStrategy = {
  validateUpdate: immutableCauses,
};

/** The strategy of core v1 secrets. */
export const SECRETS: ResourceStrategy = {
  default(obj: KubeObject): void {
    obj.type ??= "Opaque";
    if (obj.stringData && typeof obj.stringData === "object") {
      obj.data = { ...obj.data };
      for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = base64(String(v));
      delete obj.stringData;
    }
  },
  validateUpdate(next: KubeObject, old: KubeObject): StatusCause[] {
    const causes = immutableCauses(next, old);
    if ((next.type ?? "Opaque") !== (old.type ?? "Opaque")) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(next.type)}: field is immutable`,
        field: "type",
      });
    }
    return causes;
  },
};
