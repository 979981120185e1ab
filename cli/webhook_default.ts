/**
 * Whether `kubeop run` serves its webhooks when `--webhook-bind-address` is not given. kube-apiserver can reach a
 * webhook only through the Service in front of the operator's pods, so serving by default makes sense only in a pod;
 * from a workstation (a kubeconfig) the self-managed CA would need the `kubeop-system` namespace and Secret rights,
 * and a tool must not fail its first command. An explicit `--webhook-bind-address` always wins (`0`: off).
 * @module
 */
import { podNamespace } from "./pod_namespace.ts";

/** The address webhooks listen on when in a pod and no flag says otherwise (controller-runtime's). */
export const IN_CLUSTER_WEBHOOK_BIND_ADDRESS = ":9443";

/** What `kubeop run` does about webhooks. */
export type WebhookServing =
  | { serve: true; bindAddress: string }
  | { serve: false; reason: string };

/**
 * Decides from the flag (undefined: not given) and whether the process runs in a pod.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { webhookServing } from "./webhook_default.ts";
 * assert.deepEqual(webhookServing(undefined, true), { serve: true, bindAddress: ":9443" });
 * assert.equal(webhookServing(undefined, false).serve, false);
 * assert.deepEqual(webhookServing("127.0.0.1:9443", false), { serve: true, bindAddress: "127.0.0.1:9443" });
 * ```
 */
export function webhookServing(flag: string | undefined, inCluster: boolean): WebhookServing {
  if (flag === "0") return { serve: false, reason: "--webhook-bind-address=0" };
  if (flag !== undefined) return { serve: true, bindAddress: flag };
  if (inCluster) return { serve: true, bindAddress: IN_CLUSTER_WEBHOOK_BIND_ADDRESS };
  return {
    serve: false,
    reason: "not running in a pod (kube-apiserver calls webhooks through their Service); " +
      "pass --webhook-bind-address=:9443 to serve them anyway",
  };
}

/**
 * True in a pod: `KUBERNETES_SERVICE_HOST` is set (the kubelet sets it in every container) or the service account's
 * namespace file is mounted. `env` is for tests.
 */
export async function runningInCluster(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
  namespace: () => Promise<string | undefined> = podNamespace,
): Promise<boolean> {
  let host: string | undefined;
  try {
    host = env("KUBERNETES_SERVICE_HOST");
  } catch { /* no permission to read it: decide by the mounted namespace */ }
  return Boolean(host) || (await namespace()) !== undefined;
}
