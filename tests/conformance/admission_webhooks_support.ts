/**
 * Helpers of the admission conformance cases (admission_webhooks.ts, admission_policies.ts): webhook and
 * configuration builders scoped to one case's objects (namespace and object selectors), waiting until kube-apiserver's
 * informers picked a configuration up, and cleanup.
 * @module
 */
import type { KubeClient } from "../../runtime/client/client.ts";
import { eventually } from "../../testing/eventually.ts";
import { type Answer, call, type Json } from "./crd_helpers.ts";
import { POLL } from "./support.ts";

export const ADMISSION = "/apis/admissionregistration.k8s.io/v1";
export const VWC = `${ADMISSION}/validatingwebhookconfigurations`;
export const MWC = `${ADMISSION}/mutatingwebhookconfigurations`;
export const VAP = `${ADMISSION}/validatingadmissionpolicies`;
export const VAPB = `${ADMISSION}/validatingadmissionpolicybindings`;
/** The label that scopes a case's webhooks to its own objects. */
export const CASE_LABEL = "webhook.conformance.kubeop.dev/case";

export const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A ConfigMap of case `id`. */
export function configMap(name: string, id: string, data: Record<string, string> = { a: "1" }): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { [CASE_LABEL]: id } }, data };
}

/** A webhook for CREATE of ConfigMaps of case `id` in `ns` (override anything with `extra`). */
export function webhook(name: string, ns: string, id: string, clientConfig: Json, extra: Json = {}): Json {
  return {
    name,
    clientConfig,
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    objectSelector: { matchLabels: { [CASE_LABEL]: id } },
    ...extra,
  };
}

/** Creates the objects (POST to each path), runs `fn`, then deletes them (also when `fn` fails). */
export async function withObjects(
  client: KubeClient,
  objects: Array<[path: string, body: Json]>,
  fn: () => Promise<void>,
): Promise<void> {
  const made: string[] = [];
  try {
    for (const [path, body] of objects) {
      const got = await call(client, "POST", path, body);
      if (got.code >= 300) throw new Error(`create ${path}: ${got.code} ${JSON.stringify(got.body)}`);
      made.push(`${path}/${body.metadata.name}`);
    }
    await fn();
  } finally {
    for (const path of made.reverse()) await client.request("DELETE", path);
  }
}

/** Sends dry-run creates of a probe ConfigMap until `ready` accepts the answer (the configuration is in effect). */
export async function untilInEffect(
  client: KubeClient,
  ns: string,
  id: string,
  ready: (got: Answer) => boolean,
  probe: Json = configMap(`probe-${id}`, id),
): Promise<Answer> {
  return await eventually(`admission configuration of case ${id} in effect`, async () => {
    const got = await call(client, "POST", configMaps(ns), probe, "?dryRun=All");
    if (!ready(got)) throw new Error(`not yet: ${got.code} ${JSON.stringify(got.body).slice(0, 600)}`);
    return got;
  }, POLL);
}

/** A port nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
