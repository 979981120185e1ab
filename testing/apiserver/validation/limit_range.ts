/**
 * LimitRange validation as kube-apiserver v1.37 applies it (pkg/apis/core/validation ValidateLimitRange), on the
 * defaulted object (a Container item's `default` from `max`, `defaultRequest` from `default` then `min`): each item's
 * type is Pod, Container, PersistentVolumeClaim or a qualified name, once; its resource names are ones a container
 * may ask for (Pod and Container items) or any resource name; a Pod item has no defaults; a PersistentVolumeClaim
 * item bounds storage; per resource, min ≤ defaultRequest ≤ default ≤ max, a ratio of at least 1 and at most
 * max/min, and for resources that cannot be overcommitted a default equal to the default request. kube walks each
 * item's resources as a Go map, in no fixed order; here sorted.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { qualifiedNameErrors } from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { compareQuantities, formatQuantity, milliValue, type Quantity, quantity } from "../resource_quantity.ts";
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldRequired } from "./field_errors.ts";
import { containerResourceNameErrors, isOvercommitAllowed, resourceNameErrors } from "./resource_names.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const TYPES = ["Pod", "Container", "PersistentVolumeClaim"];
const BOUNDS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"] as const;

/** validateLimitRangeTypeName: a qualified name, one of the standard types unless it has a domain. */
function typeCauses(type: string, path: string): StatusCause[] {
  const qualified = qualifiedNameErrors(type).map((msg) => fieldInvalid(path, type, msg));
  if (qualified.length > 0) return qualified;
  if (!type.includes("/") && !TYPES.includes(type)) {
    return [fieldInvalid(path, type, "must be a standard limit type or fully qualified")];
  }
  return [];
}

const text = (q: Quantity) => formatQuantity(q);

/** The comparisons of one resource's bounds in an item (ValidateLimitRange's per-key checks, in its order). */
function boundCauses(key: string, at: string, q: Partial<Record<(typeof BOUNDS)[number], Quantity>>): StatusCause[] {
  const causes: StatusCause[] = [];
  const { min, max, default: def, defaultRequest: req, maxLimitRequestRatio: ratio } = q;
  const gt = (a: Quantity, b: Quantity) => compareQuantities(a, b) > 0;
  const field = (bound: string) => `${at}.${bound}[${key}]`;
  if (min && max && gt(min, max)) {
    causes.push(fieldInvalid(field("min"), text(min), `min value ${text(min)} is greater than max value ${text(max)}`));
  }
  if (req && min && gt(min, req)) {
    causes.push(
      fieldInvalid(
        field("defaultRequest"),
        text(req),
        `min value ${text(min)} is greater than default request value ${text(req)}`,
      ),
    );
  }
  if (req && max && gt(req, max)) {
    causes.push(
      fieldInvalid(
        field("defaultRequest"),
        text(req),
        `default request value ${text(req)} is greater than max value ${text(max)}`,
      ),
    );
  }
  if (req && def && gt(req, def)) {
    causes.push(
      fieldInvalid(
        field("defaultRequest"),
        text(req),
        `default request value ${text(req)} is greater than default limit value ${text(def)}`,
      ),
    );
  }
  if (def && min && gt(min, def)) {
    causes.push(
      fieldInvalid(field("default"), text(min), `min value ${text(min)} is greater than default value ${text(def)}`),
    );
  }
  if (def && max && gt(def, max)) {
    causes.push(
      fieldInvalid(field("default"), text(max), `default value ${text(def)} is greater than max value ${text(max)}`),
    );
  }
  if (ratio && compareQuantities(ratio, { num: 1n, den: 1n, format: "DecimalSI" }) < 0) {
    causes.push(fieldInvalid(field("maxLimitRequestRatio"), text(ratio), `ratio ${text(ratio)} is less than 1`));
  }
  if (ratio && min && max) {
    const limit = Number(milliValue(max)) / Number(milliValue(min));
    if (Number(milliValue(ratio)) / 1000 > limit) {
      causes.push(
        fieldInvalid(
          field("maxLimitRequestRatio"),
          text(ratio),
          `ratio ${text(ratio)} is greater than max/min = ${limit.toFixed(6)}`,
        ),
      );
    }
  }
  if (!isOvercommitAllowed(key) && def && req && compareQuantities(def, req) !== 0) {
    causes.push(
      fieldInvalid(
        field("defaultRequest"),
        text(req),
        `default value ${text(def)} must equal to defaultRequest value ${text(req)} in ${key}`,
      ),
    );
  }
  return causes;
}

/**
 * Causes for a LimitRange's spec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateLimitRange } from "./limit_range.ts";
 * const lr = { metadata: {}, spec: { limits: [{ type: "Container", min: { cpu: "2" }, max: { cpu: "1" } }] } };
 * assert.equal(validateLimitRange(lr)[0].message, 'Invalid value: "2": min value 2 is greater than max value 1');
 * ```
 */
export function validateLimitRange(lr: KubeObject): StatusCause[] {
  const limits: Json[] = Array.isArray(lr.spec?.limits) ? lr.spec.limits : [];
  const causes: StatusCause[] = [];
  const types = new Set<string>();
  limits.forEach((item, i) => {
    const at = `spec.limits[${i}]`;
    const type = String(item?.type ?? "");
    causes.push(...typeCauses(type, `${at}.type`));
    if (types.has(type)) causes.push(fieldDuplicate(`${at}.type`, type));
    types.add(type);
    const names = (type === "Pod" || type === "Container") ? containerResourceNameErrors : resourceNameErrors;
    const byKey = new Map<string, Partial<Record<(typeof BOUNDS)[number], Quantity>>>();
    const collect = (bound: (typeof BOUNDS)[number]) => {
      for (const [key, value] of Object.entries((item?.[bound] ?? {}) as Json)) {
        causes.push(...names(key, `${at}.${bound}[${key}]`));
        const q = quantity(value);
        const entry = byKey.get(key) ?? {};
        if (q) entry[bound] = q;
        byKey.set(key, entry);
      }
    };
    collect("max");
    collect("min");
    if (type === "Pod") {
      if (Object.keys(item?.default ?? {}).length > 0) {
        causes.push(fieldForbidden(`${at}.default`, "may not be specified when `type` is 'Pod'"));
      }
      if (Object.keys(item?.defaultRequest ?? {}).length > 0) {
        causes.push(fieldForbidden(`${at}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
      }
    } else {
      collect("default");
      collect("defaultRequest");
    }
    if (type === "PersistentVolumeClaim" && item?.min?.storage == null && item?.max?.storage == null) {
      causes.push(
        fieldRequired(`${at}.limits`, "either minimum or maximum storage value is required, but neither was provided"),
      );
    }
    collect("maxLimitRequestRatio");
    for (const key of [...byKey.keys()].sort()) causes.push(...boundCauses(key, at, byKey.get(key)!));
  });
  return causes;
}
