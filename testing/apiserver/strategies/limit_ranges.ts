/**
 * Core v1 LimitRanges and ResourceQuotas. ResourceQuotas start with an empty status (the quota controller and the
 * ResourceQuota admission plugin write it through /status) and are validated as kube validates them
 * (validation/resource_quota.ts). LimitRanges: one sent without a name gets a UUID for one;
 * kube's SetDefaults_LimitRangeItem fills a Container item's `default` from `max` and its
 * `defaultRequest` from `default`, then from `min` (the LimitRanger admission plugin applies them to pods), and the
 * defaulted items are validated as kube validates them (validation/limit_range.ts).
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { ResourceStrategy } from "../strategy.ts";
import { validateLimitRange } from "../validation/limit_range.ts";
import { goJson, type GoSlot } from "../go_struct_json.ts";
import {
  validateResourceQuotaSpec,
  validateResourceQuotaStatus,
  validateResourceQuotaUpdate,
} from "../validation/resource_quota.ts";

type List = Record<string, unknown>;

const LIMIT_ITEMS: GoSlot = { type: "api.core.v1.LimitRangeItem", map: false, repeated: true };

/** The strategy of core v1 limitranges. */
export const LIMIT_RANGES: ResourceStrategy = {
  allowCreateOnUpdate: true,
  // kube's limitrange PrepareForCreate: a LimitRange sent without a name (nor generateName) is named by a new UUID.
  prepareForCreate(lr: KubeObject): void {
    if (!lr.metadata.name) lr.metadata.name = crypto.randomUUID();
  },
  // spec.limits has no omitempty: an empty list is stored (protobuf) and answered as null.
  encode(lr: KubeObject): void {
    if (lr.spec && typeof lr.spec === "object" && !(Array.isArray(lr.spec.limits) && lr.spec.limits.length)) {
      lr.spec.limits = null;
    }
    // Items in Go's field order (type, max, min, default, defaultRequest, …): the defaults were added last.
    if (Array.isArray(lr.spec?.limits)) lr.spec.limits = JSON.parse(goJson(lr.spec.limits, LIMIT_ITEMS));
  },
  validate: (lr) => validateLimitRange(lr),
  validateUpdate: (next) => validateLimitRange(next),
  default(lr: KubeObject): void {
    for (const item of Array.isArray(lr.spec?.limits) ? lr.spec.limits : []) {
      if (!item || typeof item !== "object" || item.type !== "Container") continue;
      const fill = (into: List, from: unknown) => {
        for (const [k, v] of Object.entries(isList(from) ? from : {})) if (!(k in into)) into[k] = v;
      };
      const limit: List = isList(item.default) ? { ...item.default } : {};
      fill(limit, item.max);
      const request: List = isList(item.defaultRequest) ? { ...item.defaultRequest } : {};
      fill(request, limit);
      fill(request, item.min);
      if (Object.keys(limit).length > 0) item.default = limit;
      if (Object.keys(request).length > 0) item.defaultRequest = request;
    }
  },
};

function isList(v: unknown): v is List {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The strategy of core v1 resourcequotas. */
export const RESOURCE_QUOTAS: ResourceStrategy = {
  returnDeletedObject: true,
  prepareForCreate(q: KubeObject): void {
    q.status = {};
  },
  validate: (q) => validateResourceQuotaSpec(q),
  validateUpdate: (next, old, ctx) =>
    ctx.subresource === "status" ? validateResourceQuotaStatus(next) : validateResourceQuotaUpdate(next, old),
};
