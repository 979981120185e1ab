/**
 * Netperf's validating webhook: a rule the CRD schema cannot say — `spec.serverNode` and `spec.clientNode` must
 * name Nodes that exist. The controller still handles a missing Node (Degraded NodeNotFound, rechecked: a Node can
 * leave after admission), so the webhook only gives `kubectl apply` the answer at once; failurePolicy is therefore
 * Ignore, and an operator that is down does not block Netperfs. On UPDATE only a changed node name is checked, so a
 * Netperf whose Node left can still be edited (or have its finalizers removed).
 * @module
 */

import type { KubeClient } from "../../runtime/client/client.ts";
import { isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes } from "../../runtime/types.ts";
import { type AdmissionInput, denied, type ValidationVerdict } from "../../runtime/webhook/admission.ts";
import { Webhook } from "../../runtime/webhook/webhook.ts";
import { type Netperf, NetperfType } from "./schema.ts";

/** What the handler needs: a client that may `get` Nodes (netperf's RBAC has it). */
export interface NetperfWebhookDeps {
  /** Reads Nodes (uncached: the operator does not watch Nodes). */
  client: Pick<KubeClient, "get">;
}

/**
 * Refuses a Netperf naming a Node that does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookRoutes } from "../../runtime/webhook/webhook.ts";
 * import { FakeCluster, reviewThroughRoute } from "../../testing/mod.ts";
 * import { netperfWebhook } from "./webhook.ts";
 * import { type Netperf, netperfCrds, NetperfType } from "./schema.ts";
 * const cluster = new FakeCluster({ crds: netperfCrds() }); // no Node named node-x
 * const [route] = webhookRoutes([netperfWebhook({ client: cluster.client })]); // its validate is validateNetperfNodes
 * const object: Netperf = {
 *   apiVersion: "app.example.com/v1alpha1",
 *   kind: "Netperf",
 *   metadata: { name: "np", namespace: "default" },
 *   spec: { serverNode: "node-x" },
 * };
 * const verdict = await reviewThroughRoute(route, NetperfType, { operation: "CREATE", object });
 * assert.equal(verdict.allowed, false);
 * assert.equal(verdict.status?.message, 'spec.serverNode: Node "node-x" not found');
 * ```
 */
export async function validateNetperfNodes(
  deps: NetperfWebhookDeps,
  input: AdmissionInput<Netperf>,
): Promise<ValidationVerdict | undefined> {
  const np = input.object;
  if (!np) return undefined;
  const problems: string[] = [];
  for (const field of ["serverNode", "clientNode"] as const) {
    const name = np.spec?.[field];
    if (!name || name === input.oldObject?.spec?.[field]) continue;
    try {
      await deps.client.get(CoreTypes.Node, name, { signal: input.signal });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`checking spec.${field}: reading Node ${name}: ${(err as Error).message}`);
      problems.push(`spec.${field}: Node "${name}" not found`);
    }
  }
  return problems.length ? denied(problems.join("; "), { code: 422, reason: "Invalid" }) : undefined;
}

/** Netperf's webhooks, registered next to its controller (`kubeop run --controllers netperf`). */
export function netperfWebhook(deps: NetperfWebhookDeps): Webhook<Netperf> {
  return new Webhook<Netperf>(NetperfType).validate((input) => validateNetperfNodes(deps, input), {
    failurePolicy: "Ignore",
  });
}
