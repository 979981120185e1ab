/**
 * The status-subresource half of strategies whose status writes may not touch metadata (kube: status strategies that
 * copy the old ObjectMeta — FlowSchemas, PriorityLevelConfigurations — or its labels, annotations, finalizers and
 * owner references — APIServices): a write through /status keeps them as stored, so a label sent there is dropped.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import type { StrategyContext } from "../strategy.ts";

const KEPT = ["labels", "annotations", "finalizers", "ownerReferences"] as const;

/**
 * A `prepareForUpdate` that, on writes of the status subresource, puts back the stored labels, annotations,
 * finalizers and owner references.
 *
 * @example
 * ```ts
 * import { keepMetadataOnStatusWrite } from "./status_metadata.ts";
 * const old = { metadata: { name: "x", labels: { a: "1" } } };
 * const next = { metadata: { name: "x", labels: { a: "2" } } };
 * keepMetadataOnStatusWrite(next, old, { subresource: "status" } as never);
 * console.assert(next.metadata.labels.a === "1");
 * ```
 */
export function keepMetadataOnStatusWrite(next: KubeObject, old: KubeObject, ctx: StrategyContext): void {
  if (ctx.subresource !== "status") return;
  const from = old.metadata as Record<string, unknown>;
  const into = next.metadata as Record<string, unknown>;
  for (const key of KEPT) {
    if (from[key] === undefined) delete into[key];
    else into[key] = structuredClone(from[key]);
  }
}
