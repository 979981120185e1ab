/**
 * A create without a name or generateName: kube's ValidateObjectMeta reports `metadata.name: Required value: name or
 * generateName is required` with everything else the kind's validation finds (a CRD without a group, ...), on the
 * object as rest.BeforeCreate leaves it (system fields, PrepareForCreate, defaults).
 * @module
 */
import type { ApiError } from "../../../runtime/client/errors.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { rfc3339 } from "../object_rules.ts";
import type { ResourceDef } from "../resource_def.ts";
import { invalid } from "../status_errors.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldRequired } from "./field_errors.ts";

/**
 * The 422 of a nameless create of `obj` (left unchanged: a copy is prepared and validated).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VirtualClock } from "../../../runtime/clock.ts";
 * import { resourceDefFor } from "../resource_def.ts";
 * import { namelessCreate } from "./nameless_create.ts";
 * const def = resourceDefFor("", "Widget");
 * const ctx = { def, verb: "create" as const, warnings: [], clock: new VirtualClock() } as never;
 * const err = namelessCreate(def, { metadata: {} }, {}, ctx, new VirtualClock());
 * assert.equal(err.status.message, 'Widget "" is invalid: metadata.name: Required value: name or generateName is required');
 * ```
 */
export function namelessCreate(
  def: ResourceDef,
  obj: KubeObject,
  strategy: ResourceStrategy,
  ctx: StrategyContext,
  clock: Clock,
): ApiError {
  const probe = structuredClone(obj);
  probe.metadata = { ...probe.metadata, name: "", uid: crypto.randomUUID(), creationTimestamp: rfc3339(clock.now()) };
  strategy.prepareForCreate?.(probe, ctx);
  strategy.default?.(probe, ctx);
  return invalid(def, "", [
    fieldRequired("metadata.name", "name or generateName is required"),
    ...(strategy.validate?.(probe, ctx) ?? []),
  ]);
}
