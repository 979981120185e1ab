/**
 * Conformance case: resource quantities of built-in objects as kube-apiserver's decoder leaves them —
 * resource.Quantity parses the JSON (text or a number) and writes its canonical text, except where its parser kept
 * the text as already canonical (`"010"`, `"+2"` stay); a core v1 ResourceList's values are rounded up to milli units
 * first (`100u` → `1m`). What a client reads back is what `kubectl get -o yaml` shows.
 * @module
 */
import assert from "node:assert/strict";
import { sendBody } from "./support.ts";
import type { ConformanceCase } from "./support.ts";

export const storedQuantityCases: ConformanceCase[] = [
  {
    name: 'quantities are stored as kube\'s decoder writes them: 0.5 → 500m, 2048Mi → 2Gi, 1 → "1", 010 kept',
    async run({ noRetry, ns }) {
      const pod = await sendBody(
        noRetry,
        "POST",
        `/api/v1/namespaces/${ns}/pods`,
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "quantities" },
          spec: {
            containers: [{
              name: "c",
              image: "busybox",
              resources: { requests: { cpu: "0.5", memory: "2048Mi" }, limits: { cpu: 1, memory: "4096Mi" } },
            }],
            volumes: [{ name: "scratch", emptyDir: { sizeLimit: "100u" } }],
          },
        },
        "application/json",
        { dryRun: "All" },
      );
      assert.equal(pod.code, 201, JSON.stringify(pod.json));
      assert.deepEqual(pod.json.spec.containers[0].resources, {
        requests: { cpu: "500m", memory: "2Gi" },
        limits: { cpu: "1", memory: "4Gi" },
      });
      // A quantity outside a ResourceList is not rounded to milli units (the quota's requests.memory below is).
      const scratch = pod.json.spec.volumes.find((v: { name: string }) => v.name === "scratch");
      assert.equal(scratch.emptyDir.sizeLimit, "100u");
      const quota = await sendBody(
        noRetry,
        "POST",
        `/api/v1/namespaces/${ns}/resourcequotas`,
        {
          apiVersion: "v1",
          kind: "ResourceQuota",
          metadata: { name: "quantities" },
          spec: {
            hard: {
              "requests.cpu": "1.5",
              "requests.memory": "100u",
              pods: "010",
              "limits.cpu": "+2",
              secrets: "1000",
              configmaps: "2000m",
              "limits.memory": "1024Ki",
              "requests.storage": "1.5Gi",
              persistentvolumeclaims: "00",
              "limits.ephemeral-storage": "12e2",
              "count/deployments.apps": "700000000",
              "requests.example.com/x": "1.5e3",
              "limits.example.com/y": "0.001k",
            },
          },
        },
        "application/json",
        { dryRun: "All" },
      );
      assert.equal(quota.code, 201, JSON.stringify(quota.json));
      assert.deepEqual(quota.json.spec.hard, {
        "requests.cpu": "1500m",
        "requests.memory": "1m",
        pods: "010",
        "limits.cpu": "+2",
        secrets: "1k",
        configmaps: "2",
        "limits.memory": "1Mi",
        "requests.storage": "1536Mi",
        persistentvolumeclaims: "0",
        "limits.ephemeral-storage": "1200",
        "count/deployments.apps": "700M",
        "requests.example.com/x": "1500",
        "limits.example.com/y": "1",
      });
    },
  },
];
