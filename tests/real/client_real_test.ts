// KubeClient against a REAL kube-apiserver (scripts/k8s-bin.sh): pages, patches, apply conflicts, dry run,
// preconditions, typed errors, authentication failures.
import assert from "node:assert/strict";
import { KubeClient } from "../../runtime/client/client.ts";
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInvalid,
  isNotFound,
} from "../../runtime/client/errors.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";
import { configMap, createNamespace, withRealCluster } from "./support_real.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: KubeClient verbs against kube-apiserver",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await withRealCluster({ binDir: binDir!, namespaces: [] }, async ({ cluster, client }) => {
      await t.step(
        "KubeClient verbs: pages, patches, apply conflicts, dry run, preconditions, typed errors",
        async () => {
          const ns = "client-verbs";
          await createNamespace(client, ns);
          for (let i = 0; i < 23; i++) await client.create(CoreTypes.ConfigMap, configMap(ns, `page-${i}`, String(i)));
          const firstPage = await client.list(CoreTypes.ConfigMap, { namespace: ns, limit: 5 });
          assert.equal(firstPage.items.length, 5);
          assert.ok(firstPage.metadata?.continue, "the real server paginates");
          const all = await client.listAll(CoreTypes.ConfigMap, { namespace: ns, limit: 5 });
          assert.equal(all.items.filter((o) => o.metadata.name!.startsWith("page-")).length, 23);
          assert.equal(new Set(all.items.map((o) => o.metadata.name)).size, all.items.length, "no duplicates");
          assert.match(all.metadata?.resourceVersion ?? "", /^\d+$/);
          const meta = await client.list(CoreTypes.ConfigMap, { namespace: ns, metadataOnly: true, limit: 1 });
          assert.equal(meta.kind, "PartialObjectMetadataList");

          type Cm = KubeObject & { data?: Record<string, string> };
          const merged = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", { data: { extra: "m" } }, {
            namespace: ns,
            type: "merge",
          });
          assert.deepEqual(merged.data, { value: "0", extra: "m" });
          const strategic = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", { data: { s: "1" } }, {
            namespace: ns,
            type: "strategic",
          });
          assert.equal(strategic.data?.s, "1");
          const json = await client.patch<Cm>(CoreTypes.ConfigMap, "page-0", [{ op: "remove", path: "/data/extra" }], {
            namespace: ns,
            type: "json",
          });
          assert.deepEqual(json.data, { value: "0", s: "1" });

          const applied = {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "ssa", namespace: ns },
            data: { k: "a" },
          };
          const ssa = await client.patch<Cm>(CoreTypes.ConfigMap, "ssa", applied, { namespace: ns, type: "apply" });
          assert.equal(ssa.data?.k, "a");
          const other = new KubeClient({
            config: await loadKubeconfigFile(cluster.kubeconfigPath),
            fieldManager: "other",
          });
          try {
            const conflict = await other.patch(CoreTypes.ConfigMap, "ssa", { ...applied, data: { k: "b" } }, {
              namespace: ns,
              type: "apply",
            }).catch((e) => e);
            assert.ok(isConflict(conflict), `apply conflict: ${conflict}`);
            assert.equal((conflict as ApiError).call.name, "ssa");
            const forced = await other.patch<Cm>(CoreTypes.ConfigMap, "ssa", { ...applied, data: { k: "b" } }, {
              namespace: ns,
              type: "apply",
              force: true,
            });
            assert.equal(forced.data?.k, "b");
          } finally {
            other.close();
          }

          await client.create(CoreTypes.ConfigMap, configMap(ns, "dry", "1"), { dryRun: true });
          assert.ok(isNotFound(await client.get(CoreTypes.ConfigMap, "dry", { namespace: ns }).catch((e) => e)));
          assert.ok(
            isAlreadyExists(await client.create(CoreTypes.ConfigMap, configMap(ns, "page-1", "x")).catch((e) => e)),
          );
          const stale = { ...all.items.find((o) => o.metadata.name === "page-0")!, data: { value: "stale" } };
          assert.ok(isConflict(await client.update(CoreTypes.ConfigMap, stale).catch((e) => e)), "stale RV → 409");
          const wrongUid = await client.delete(CoreTypes.ConfigMap, "page-2", {
            namespace: ns,
            preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
          }).catch((e) => e);
          assert.ok(isConflict(wrongUid), `uid precondition → 409: ${wrongUid}`);
          const invalid = await client.create(CoreTypes.ConfigMap, configMap(ns, "Not_A_Name", "x")).catch((e) => e);
          assert.ok(isInvalid(invalid), `invalid name → 422: ${invalid}`);
          const anonymous = new KubeClient({
            config: { server: cluster.url, caPEM: await Deno.readTextFile(`${cluster.dir}/ca.crt`), token: "wrong" },
          });
          try {
            const denied = await anonymous.get(CoreTypes.ConfigMap, "page-3", { namespace: ns }).catch((e) => e);
            assert.ok(denied instanceof ApiError && (denied.code === 401 || isForbidden(denied)), `${denied}`);
          } finally {
            anonymous.close();
          }
        },
      );
    });
  },
});
