/**
 * Conformance cases: deleting a CustomResourceDefinition as apiextensions-apiserver does — the DELETE marks it
 * (deletionTimestamp, the `customresourcecleanup.apiextensions.k8s.io` finalizer, Terminating True
 * InstanceDeletionPending), the CRD finalizer controller deletes its objects and waits for their finalizers
 * (InstanceDeletionInProgress), creates are refused meanwhile, and once no object is left it writes
 * InstanceDeletionCompleted and drops its finalizer. The CRD here keeps one finalizer of its own so that the state
 * after the cleanup can be read; the last case removes it and the kind stops being served.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { call, crd, CRD_PATH, createCrd, expectOk, expectStatus, GROUP, type Json, POLL } from "./crd_helpers.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes } from "../../runtime/types.ts";
import type { ConformanceCase } from "./support.ts";

const NAME = `gadgets.${GROUP}`;
const CLEANUP = "customresourcecleanup.apiextensions.k8s.io";
const KEEP = "conformance.kubeop.dev/keep";
const HOLD = "conformance.kubeop.dev/hold";
const gadgets = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`;
const gadget = (ns: string, name: string, finalizers?: string[]) => ({
  apiVersion: `${GROUP}/v1`,
  kind: "Gadget",
  metadata: { name, namespace: ns, finalizers },
  spec: { size: 1 },
});

/** The CRD's Terminating condition (type, status, reason, message). */
function terminating(crdObj: Json): Json {
  const c = (crdObj.status?.conditions ?? []).find((c: Json) => c.type === "Terminating");
  return c && { type: c.type, status: c.status, reason: c.reason, message: c.message };
}

/** Reads the CRD until `check` holds (60 s: kube's finalizer checks its objects every 5 s). */
function awaitCrd(client: Parameters<typeof call>[0], what: string, check: (crd: Json) => boolean): Promise<Json> {
  return eventually(what, async () => {
    const got = await call(client, "GET", `${CRD_PATH}/${NAME}`);
    return got.code === 200 && check(got.body) ? got.body : undefined;
  }, { ...POLL, timeoutMs: 60_000 });
}

/** The Terminating conditions (one per reason in a row) a watch on CRD `name` from `rv` sees, until `done` says. */
async function watchTerminating(
  client: KubeClient,
  name: string,
  rv: string,
  done: (seen: Json[]) => boolean,
): Promise<Json[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error("watch deadline")), 100_000);
  const seen: Json[] = [];
  try {
    const opts = { fieldSelector: `metadata.name=${name}`, resourceVersion: rv, signal: ac.signal };
    for await (const ev of client.watch(CoreTypes.CustomResourceDefinition, opts)) {
      const condition = terminating(ev.object);
      if (condition && seen.at(-1)?.reason !== condition.reason) seen.push(condition);
      if (done(seen)) break;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return seen;
}

/** CRD deletion through the customresourcecleanup finalizer. */
export const crdDeletionCases: ConformanceCase[] = [
  {
    name: "a dry-run DELETE of a CRD answers it marked (cleanup finalizer, Terminating) and stores nothing",
    async run({ client, ns }) {
      const body = crd("Gadget", { type: "object", properties: { size: { type: "integer" } } });
      body.metadata.finalizers = [KEEP];
      await createCrd(client, body);
      expectOk("gadget held", await call(client, "POST", gadgets(ns), gadget(ns, "held", [HOLD])));
      expectOk("gadget plain", await call(client, "POST", gadgets(ns), gadget(ns, "plain")));
      const dry = await call(client, "DELETE", `${CRD_PATH}/${NAME}`, undefined, "?dryRun=All");
      assert.equal(dry.code, 200, JSON.stringify(dry.body));
      assert.deepEqual([dry.body.metadata.finalizers, terminating(dry.body)?.reason], [
        [KEEP, CLEANUP],
        "InstanceDeletionPending",
      ]);
      const stored = expectOk("CRD", await call(client, "GET", `${CRD_PATH}/${NAME}`));
      assert.deepEqual([stored.metadata.deletionTimestamp, stored.metadata.finalizers, terminating(stored)], [
        undefined,
        [KEEP],
        undefined,
      ]);
    },
  },
  {
    name:
      "deleting a CRD answers it marked: deletionTimestamp, the cleanup finalizer, Terminating InstanceDeletionPending",
    async run({ client }) {
      const before = expectOk("CRD", await call(client, "GET", `${CRD_PATH}/${NAME}`));
      const deleted = await call(client, "DELETE", `${CRD_PATH}/${NAME}`);
      assert.equal(deleted.code, 200, JSON.stringify(deleted.body));
      const meta = deleted.body.metadata;
      assert.equal(deleted.body.kind, "CustomResourceDefinition");
      assert.ok(meta.deletionTimestamp, "deletionTimestamp");
      assert.deepEqual(
        [meta.finalizers, meta.deletionGracePeriodSeconds, meta.generation],
        [[KEEP, CLEANUP], undefined, before.metadata.generation],
      );
      assert.deepEqual(terminating(deleted.body), {
        type: "Terminating",
        status: "True",
        reason: "InstanceDeletionPending",
        message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
      });
    },
  },
  {
    name: "a terminating CRD's objects are deleted; one a finalizer holds stays marked, InstanceDeletionInProgress",
    async run({ client, ns }) {
      const crdObj = await awaitCrd(
        client,
        "InstanceDeletionInProgress",
        (c) => terminating(c)?.reason === "InstanceDeletionInProgress",
      );
      assert.deepEqual(terminating(crdObj), {
        type: "Terminating",
        status: "True",
        reason: "InstanceDeletionInProgress",
        message: "CustomResource deletion is in progress",
      });
      // The finalizer's status write is kube-apiserver's (its status entry now owns the Terminating condition too).
      const entry = (crdObj.metadata.managedFields ?? []).find((e: Json) =>
        e.manager === "kube-apiserver" && e.subresource === "status"
      );
      assert.ok(entry?.fieldsV1?.["f:status"]?.["f:conditions"]?.['k:{"type":"Terminating"}'], JSON.stringify(entry));
      await eventually("plain gadget deleted", async () => {
        const got = await call(client, "GET", `${gadgets(ns)}/plain`);
        return got.code === 404 ? true : undefined;
      }, { ...POLL, timeoutMs: 60_000 });
      const held = expectOk("held gadget", await call(client, "GET", `${gadgets(ns)}/held`));
      assert.ok(held.metadata.deletionTimestamp, "held gadget marked for deletion");
      assert.deepEqual(held.metadata.finalizers, [HOLD]);
    },
  },
  {
    name: "a second DELETE of a terminating CRD answers it unchanged; its objects may still be updated",
    async run({ client, ns }) {
      const before = expectOk("CRD", await call(client, "GET", `${CRD_PATH}/${NAME}`));
      const again = await call(client, "DELETE", `${CRD_PATH}/${NAME}`);
      assert.equal(again.code, 200, JSON.stringify(again.body));
      assert.deepEqual(
        [again.body.metadata.deletionTimestamp, again.body.metadata.finalizers],
        [before.metadata.deletionTimestamp, before.metadata.finalizers],
      );
      const labelled = await call(client, "PATCH", `${gadgets(ns)}/held`, { metadata: { labels: { still: "ok" } } });
      assert.deepEqual([labelled.code, labelled.body.metadata?.labels], [200, { still: "ok" }]);
    },
  },
  {
    name: "creating a custom object while its CRD is terminating is 403",
    async run({ client, ns }) {
      const got = await call(client, "POST", gadgets(ns), gadget(ns, "late"));
      expectStatus("create while terminating", got, {
        code: 403,
        reason: "Forbidden",
        message:
          `gadgets.${GROUP} "late" is forbidden: create not allowed while custom resource definition is terminating`,
      });
      assert.deepEqual(got.body.details, { name: "late", group: GROUP, kind: "gadgets" });
    },
  },
  {
    name: "once its last object's finalizer is gone the CRD is InstanceDeletionCompleted and drops its finalizer",
    async run({ client, ns }) {
      expectOk(
        "release held gadget",
        await call(client, "PATCH", `${gadgets(ns)}/held`, { metadata: { finalizers: null } }),
      );
      const done = await awaitCrd(
        client,
        "cleanup finalizer removed",
        (c) => JSON.stringify(c.metadata.finalizers) === JSON.stringify([KEEP]),
      );
      assert.deepEqual(terminating(done), {
        type: "Terminating",
        status: "False",
        reason: "InstanceDeletionCompleted",
        message: "removed all instances",
      });
      assert.equal((await call(client, "GET", `${gadgets(ns)}/held`)).code, 404);
    },
  },
  {
    name: "when its own finalizer goes too the CRD is removed and its kind is no longer served (404)",
    async run({ client, ns }) {
      expectOk("release CRD", await call(client, "PATCH", `${CRD_PATH}/${NAME}`, { metadata: { finalizers: null } }));
      await eventually("CRD gone", async () => {
        const got = await call(client, "GET", `${CRD_PATH}/${NAME}`);
        return got.code === 404 ? true : undefined;
      }, POLL);
      // kube answers the unknown path with its plain-text 404 (not a Status).
      await eventually("kind no longer served", async () => {
        const res = await client.request("GET", gadgets(ns));
        return res.status === 404 ? true : undefined;
      }, POLL);
    },
  },
  {
    name: "an object held a minute after the deletes: Terminating InstanceDeletionCheck, then InProgress again",
    only: {
      target: "real",
      reason: "a minute of wall time; tests/fake_termination_deadlines_test.ts asserts the fake's on a VirtualClock",
    },
    async run({ client, ns }) {
      const body = crd("Sprocket", { type: "object", properties: { size: { type: "integer" } } });
      const name = body.metadata.name;
      const plural = await createCrd(client, body);
      const path = `/apis/${GROUP}/v1/namespaces/${ns}/${plural}`;
      const held = { apiVersion: `${GROUP}/v1`, kind: "Sprocket", metadata: { name: "held", finalizers: [HOLD] } };
      expectOk("sprocket held", await call(client, "POST", path, held));
      const rv = expectOk("CRD", await call(client, "GET", `${CRD_PATH}/${name}`)).metadata.resourceVersion;
      // After the minute: InstanceDeletionCheck, and the work queue's retry 5 ms later sets InProgress again.
      const watching = watchTerminating(client, name, rv, (seen) => seen.length === 4);
      expectOk("delete CRD", await call(client, "DELETE", `${CRD_PATH}/${name}`));
      const seen = await watching;
      assert.deepEqual(seen.map((c) => c.reason), [
        "InstanceDeletionPending",
        "InstanceDeletionInProgress",
        "InstanceDeletionCheck",
        "InstanceDeletionInProgress",
      ]);
      assert.deepEqual(seen[2], {
        type: "Terminating",
        status: "True",
        reason: "InstanceDeletionCheck",
        message: "could not confirm zero CustomResources remaining: context deadline exceeded",
      });
      await call(client, "PATCH", `${path}/held`, { metadata: { finalizers: null } });
      await eventually("CRD gone", async () => (await call(client, "GET", `${CRD_PATH}/${name}`)).code === 404, POLL);
    },
  },
];
