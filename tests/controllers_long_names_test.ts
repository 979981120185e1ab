/**
 * Every parent name the CRDs accept works: each seed operator converges on the fake API server with 63- and
 * 253-character names. Derived names (At's and Netperf's pods, their labels, Machine's `machine=<name>` selector)
 * stay as before when they fit and are cut and hashed (runtime/apimachinery/names.ts) when they do not; the fake
 * validates object names and label values as kube-apiserver does, so an invalid derived name would be refused.
 */

import assert from "node:assert/strict";
import { podNameOf } from "../controllers/at/controller.ts";
import { type At, AtType } from "../controllers/at/schema.ts";
import { type Machine, MachineType, type Switch, SwitchType } from "../controllers/machine/schema.ts";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { clientPodName, serverPodName } from "../controllers/netperf/controller.ts";
import { type Netperf, NetperfType } from "../controllers/netperf/schema.ts";
import { labelValueErrors, labelValueFor } from "../runtime/apimachinery/names.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { CoreTypes } from "../runtime/types.ts";
import { getOrUndefined, startEnv, waitFor } from "./controllers_env.ts";

const ns = { namespace: "default" };
const OUTPUT = "bytes  bytes   bytes    secs.    10^6bits/sec\n\n 87380  16384  16384    10.00    941.50\n";
/** A valid object name of `length` characters (DNS subdomain: segments joined by dots). */
const nameOf = (length: number, letter: string) => `${letter.repeat(length - 3)}.z9`;

for (const length of [63, 253]) {
  Deno.test(`At: a ${length}-character name runs its pod and reaches DONE`, async () => {
    const env = await startEnv({ controllers: ["at"], clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
    try {
      const name = nameOf(length, "a");
      await env.client.create(AtType, {
        metadata: { name },
        spec: { schedule: "2020-11-16T10:12:00Z", command: "date" },
      }, ns);
      const at = await waitFor("RUNNING", async () => {
        const a = await env.client.get<At>(AtType, name, ns);
        return a.status?.phase === "RUNNING" && a;
      });
      const podName = podNameOf(at);
      assert.equal(at.status?.podName, podName);
      if (length === 63) assert.equal(podName, `${name}-pod`);
      const pod = await env.client.get(CoreTypes.Pod, podName, ns);
      assert.equal(pod.metadata.labels?.app, labelValueFor(name));
      await env.client.patch(CoreTypes.Pod, podName, { status: { phase: "Succeeded" } }, {
        ...ns,
        type: "merge",
        subresource: "status",
      });
      await waitFor("DONE", async () => (await env.client.get<At>(AtType, name, ns)).status?.phase === "DONE");
    } finally {
      await env.close();
    }
  });

  Deno.test(`Netperf: a ${length}-character name runs both pods, reaches Done and deletes them`, async () => {
    const env = await startEnv({ controllers: ["netperf"] });
    try {
      const name = nameOf(length, "n");
      await env.client.create(NetperfType, { metadata: { name }, spec: { duration: 5 } }, ns);
      const np = await env.client.get<Netperf>(NetperfType, name, ns);
      const server = await waitFor("server pod", () => getOrUndefined(env.client, CoreTypes.Pod, serverPodName(np)));
      assert.deepEqual(labelValueErrors(server.metadata.labels!["app.kubernetes.io/instance"]), []);
      const status = (pod: string, s: Record<string, unknown>) =>
        env.client.patch(CoreTypes.Pod, pod, { status: s }, { ...ns, type: "merge", subresource: "status" });
      await status(serverPodName(np), { phase: "Running", podIP: "10.244.0.7" });
      await waitFor("client pod", () => getOrUndefined(env.client, CoreTypes.Pod, clientPodName(np)));
      await status(clientPodName(np), {
        phase: "Succeeded",
        containerStatuses: [{ name: "netperf", state: { terminated: { exitCode: 0, message: OUTPUT } } }],
      });
      const done = await waitFor("Done", async () => {
        const n = await env.client.get<Netperf>(NetperfType, name, ns);
        return n.status?.status === "Done" && n;
      });
      assert.equal(done.status?.speedBitsPerSec, 941_500_000);
      await waitFor("pods deleted", async () => (await env.client.list(CoreTypes.Pod, ns)).items.length === 0);
    } finally {
      await env.close();
    }
  });

  Deno.test(`Machine: a ${length}-character name keeps its Switches, labelled with a valid machine value`, async () => {
    const env = await startEnv({ controllers: ["machine"], clock: new VirtualClock(Date.UTC(2026, 0, 1)) });
    try {
      const name = nameOf(length, "m");
      await env.client.create(MachineType, { metadata: { name }, spec: { switches: 2 } }, ns);
      await waitFor(
        "positions dd",
        async () => (await env.client.get<Machine>(MachineType, name, ns)).status?.positions === "dd",
      );
      const switches = (await env.client.list<Switch>(SwitchType, ns)).items;
      assert.equal(switches.length, 2);
      for (const sw of switches) assert.deepEqual(sw.metadata.labels, { machine: labelValueFor(name) });
      if (length === 63) assert.equal(labelValueFor(name), name, "unchanged when it fits");
      await env.client.patch(MachineType, name, { spec: { switches: 1 } }, { ...ns, type: "merge" });
      await waitFor("one switch", async () => (await env.client.list(SwitchType, ns)).items.length === 1);
    } finally {
      await env.close();
    }
  });

  Deno.test(`MultiSecret: a ${length}-character name and secretName reach every namespace`, async () => {
    const env = await startEnv({ controllers: ["multisecret"] });
    try {
      const name = nameOf(length, "s");
      const secretName = nameOf(length, "x");
      await env.client.create(MultiSecretType, { metadata: { name }, spec: { data: { k: "djE=" } } }, ns);
      const namespaces = (await env.client.list(CoreTypes.Namespace)).items.map((n) => n.metadata.name!);
      await waitFor("children", async () => {
        const s = (await env.client.get<MultiSecret>(MultiSecretType, name, ns)).status;
        return s?.created === namespaces.length;
      });
      await env.client.patch(MultiSecretType, name, { spec: { secretName } }, { ...ns, type: "merge" });
      await waitFor("renamed children", async () => {
        const secrets = (await env.client.list(CoreTypes.Secret)).items.filter((s) =>
          s.metadata.name === secretName || s.metadata.name === name
        );
        return secrets.length === namespaces.length && secrets.every((s) => s.metadata.name === secretName);
      });
    } finally {
      await env.close();
    }
  });
}
