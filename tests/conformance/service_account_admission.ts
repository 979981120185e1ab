/**
 * Conformance cases: the ServiceAccount admission plugin's refusals (plugin/pkg/admission/serviceaccount): a pod naming
 * an account that does not exist, secrets an account with `kubernetes.io/enforce-mountable-secrets` does not list,
 * mirror pods referencing accounts or secrets — each 403 with kube's message — and what it admits.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { ensureDefaultServiceAccount, SA_PATH, ServiceAccount, withPod } from "./pod_admission.ts";
import { expectStatus } from "./status_assert.ts";
import type { ConformanceCase } from "./support.ts";

const IMAGE = "busybox:1.36";
const MIRROR = { "kubernetes.io/config.mirror": "conformance" };

/** A pod create that must be refused 403 `pods "<name>" is forbidden: <why>`. */
async function refused(
  client: KubeClient,
  ns: string,
  pod: { name: string; annotations?: Record<string, string>; spec: Record<string, unknown> },
  why: string,
  opts: { dryRun?: boolean } = {},
): Promise<void> {
  const status = await expectStatus(
    client.create(CoreTypes.Pod, {
      metadata: { name: pod.name, namespace: ns, annotations: pod.annotations },
      spec: { containers: [{ name: "c", image: IMAGE }], ...pod.spec },
    }, { namespace: ns, dryRun: opts.dryRun }),
    { code: 403, reason: "Forbidden", message: `pods "${pod.name}" is forbidden: ${why}` },
    pod.name,
  );
  assert.deepEqual(status.details, { name: pod.name, kind: "pods" });
}

/** Makes a ServiceAccount for one case, runs `fn`, deletes it. */
async function withAccount(
  client: KubeClient,
  ns: string,
  account: Record<string, unknown> & { metadata: { name: string; annotations?: Record<string, string> } },
  fn: () => Promise<void>,
): Promise<void> {
  await client.create(ServiceAccount, { ...account, metadata: { ...account.metadata, namespace: ns } }, {
    namespace: ns,
  });
  try {
    await fn();
  } finally {
    await client.delete(ServiceAccount, account.metadata.name, { namespace: ns }).catch(() => {});
  }
}

const ENFORCING = { "kubernetes.io/enforce-mountable-secrets": "true" };
const notListed = (what: string, account: string) =>
  `${what} is not allowed because service account ${account} does not reference that secret`;

/** ServiceAccount admission: refusals and what passes. */
export const serviceAccountAdmissionCases: ConformanceCase[] = [
  {
    name: "ServiceAccount: a pod naming an account that does not exist is refused 403 (also on a dry run)",
    async run({ client, ns }) {
      const why = `error looking up service account ${ns}/no-such-account: serviceaccount "no-such-account" not found`;
      await refused(client, ns, { name: "sa-missing", spec: { serviceAccountName: "no-such-account" } }, why);
      await refused(client, ns, { name: "sa-missing-dry", spec: { serviceAccountName: "no-such-account" } }, why, {
        dryRun: true,
      });
    },
  },
  {
    name: "ServiceAccount: the deprecated spec.serviceAccount names the account looked up",
    async run({ client, ns }) {
      await refused(
        client,
        ns,
        { name: "sa-deprecated", spec: { serviceAccount: "no-such-old" } },
        `error looking up service account ${ns}/no-such-old: serviceaccount "no-such-old" not found`,
      );
    },
  },
  {
    name: "ServiceAccount: a pod naming an existing account runs as it, with the token volume",
    async run({ client, ns }) {
      await withAccount(client, ns, { metadata: { name: "sa-exists" } }, async () => {
        await withPod(client, ns, "sa-exists-pod", { serviceAccountName: "sa-exists" }, (pod) => {
          assert.deepEqual([pod.spec.serviceAccountName, pod.spec.serviceAccount], ["sa-exists", "sa-exists"]);
          assert.match(pod.spec.volumes?.[0]?.name ?? "", /^kube-api-access-/);
          assert.equal(pod.spec.containers[0].volumeMounts?.[0]?.mountPath, SA_PATH);
        });
      });
    },
  },
  {
    name: "ServiceAccount: a pod without serviceAccountName runs as the namespace's default account",
    async run({ client, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      await withPod(client, ns, "sa-default-pod", {}, (pod) => {
        assert.deepEqual([pod.spec.serviceAccountName, pod.spec.serviceAccount], ["default", "default"]);
      });
    },
  },
  {
    name: "ServiceAccount: updating a pod whose account was deleted since is admitted (only creates are checked)",
    async run({ client, ns }) {
      await withAccount(client, ns, { metadata: { name: "sa-gone" } }, async () => {
        await withPod(client, ns, "sa-gone-pod", { serviceAccountName: "sa-gone" }, async () => {
          await client.delete(ServiceAccount, "sa-gone", { namespace: ns }).catch(() => {});
          const patched = await client.patch<KubeObject>(
            CoreTypes.Pod,
            "sa-gone-pod",
            { metadata: { labels: { touched: "yes" } } },
            { namespace: ns, type: "merge" },
          );
          assert.deepEqual([patched.metadata.labels?.touched, patched.spec.serviceAccountName], ["yes", "sa-gone"]);
        });
      });
    },
  },
  {
    name: "ServiceAccount: enforce-mountable-secrets refuses secret volumes, env and envFrom the account does not list",
    async run({ client, ns }) {
      const account = { metadata: { name: "sa-enforce", annotations: ENFORCING }, secrets: [{ name: "listed" }] };
      await withAccount(client, ns, account, async () => {
        const base = { serviceAccountName: "sa-enforce", automountServiceAccountToken: false };
        await refused(client, ns, {
          name: "sa-enf-vol",
          spec: { ...base, volumes: [{ name: "v", secret: { secretName: "other" } }] },
        }, notListed(`volume with secret.secretName="other"`, "sa-enforce"));
        const envRef = { name: "E", valueFrom: { secretKeyRef: { name: "other", key: "k" } } };
        await refused(client, ns, {
          name: "sa-enf-env",
          spec: { ...base, containers: [{ name: "c", image: IMAGE, env: [envRef] }] },
        }, notListed(`container c with envVar E referencing secret.secretName="other"`, "sa-enforce"));
        await refused(client, ns, {
          name: "sa-enf-init",
          spec: { ...base, initContainers: [{ name: "i", image: IMAGE, envFrom: [{ secretRef: { name: "other" } }] }] },
        }, notListed(`init container i with envFrom referencing secret.secretName="other"`, "sa-enforce"));
        await withPod(client, ns, "sa-enf-ok", {
          ...base,
          volumes: [{ name: "v", secret: { secretName: "listed" } }],
        }, (pod) => assert.equal(pod.spec.volumes[0].secret.secretName, "listed"));
      });
    },
  },
  {
    name: "ServiceAccount: enforce-mountable-secrets refuses imagePullSecrets the account does not list",
    async run({ client, ns }) {
      const account = { metadata: { name: "sa-enf-pull", annotations: ENFORCING }, imagePullSecrets: [{ name: "rc" }] };
      await withAccount(client, ns, account, async () => {
        await refused(
          client,
          ns,
          { name: "sa-enf-pull-pod", spec: { serviceAccountName: "sa-enf-pull", imagePullSecrets: [{ name: "x" }] } },
          `imagePullSecrets[0].name="x" is not allowed because service account sa-enf-pull does not reference that imagePullSecret`,
        );
      });
    },
  },
  {
    name: "ServiceAccount: a mirror pod may reference no account and no secret; one without, on a node, is left alone",
    async run({ client, ns }) {
      await refused(
        client,
        ns,
        { name: "sa-mirror-sa", annotations: MIRROR, spec: { serviceAccountName: "default" } },
        "a mirror pod may not reference service accounts",
      );
      await refused(client, ns, {
        name: "sa-mirror-secret",
        annotations: MIRROR,
        spec: { volumes: [{ name: "v", secret: { secretName: "s" } }] },
      }, "a mirror pod may not reference secrets");
      await expectStatus(
        client.create(CoreTypes.Pod, {
          metadata: { name: "sa-mirror", namespace: ns, annotations: MIRROR },
          spec: { containers: [{ name: "c", image: IMAGE }] },
        }, { namespace: ns }),
        {
          code: 422,
          reason: "Invalid",
          message: `Pod "sa-mirror" is invalid: metadata.annotations[kubernetes.io/config.mirror]: Invalid value: ` +
            `"conformance": must set spec.nodeName if mirror pod annotation is set`,
        },
        "mirror pod without a node",
      );
      const created = await client.create<KubeObject>(CoreTypes.Pod, {
        metadata: { name: "sa-mirror", namespace: ns, annotations: MIRROR },
        spec: { nodeName: "conformance-absent-node", containers: [{ name: "c", image: IMAGE }] },
      }, { namespace: ns });
      try {
        assert.deepEqual(
          [created.spec.serviceAccountName, created.spec.serviceAccount, created.spec.volumes],
          [undefined, undefined, undefined],
        );
      } finally {
        await client.delete(CoreTypes.Pod, "sa-mirror", { namespace: ns, gracePeriodSeconds: 0 }).catch(() => {});
      }
    },
  },
];
