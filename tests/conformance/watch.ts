/**
 * Conformance cases: Watch: resumption, selectors, bookmarks, errors and the legacy paths.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../../runtime/types.ts";
import { nestedString } from "../../runtime/unstructured.ts";
import { boundedWatch, type ConformanceCase, rawStatus, readEvents } from "./support.ts";

const TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1";
const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** The current resourceVersion as a consistent (quorum) list answers it. */
async function currentRv(client: KubeClient, ns: string): Promise<string> {
  return (await client.list(CoreTypes.ConfigMap, { namespace: ns, limit: 1 })).metadata.resourceVersion!;
}

function cm(ns: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) {
  return { metadata: { name, namespace: ns, labels }, data };
}

/** Watch: resumption, selectors, bookmarks, errors and the legacy paths. */
export const watchCases: ConformanceCase[] = [
  {
    name: "watch from a resourceVersion resumes exactly after it, in order",
    async run({ client, ns }) {
      const a = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        { metadata: { name: "wa", namespace: ns, labels: { w: "1" } } },
        {
          namespace: ns,
        },
      );
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "wb", namespace: ns, labels: { w: "1" } },
      }, {
        namespace: ns,
      });
      await client.patch(CoreTypes.ConfigMap, "wa", { data: { x: "y" } }, { namespace: ns, type: "merge" });
      await client.delete(CoreTypes.ConfigMap, "wb", { namespace: ns });
      const events = await readEvents(client, CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: a.metadata.resourceVersion!,
        labelSelector: "w=1",
      }, 3);
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), [
        "ADDED wb",
        "MODIFIED wa",
        "DELETED wb",
      ]);
    },
  },
  {
    name: "a namespaced watch resumed from a resourceVersion replays only its own namespace's changes",
    async run({ client, ns }) {
      const other = `${ns}-iso`;
      const created = await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: other } });
      try {
        const from = created.metadata.resourceVersion!;
        await client.create<KubeObject>(CoreTypes.ConfigMap, cm(other, "iso-x", { iso: "1" }), { namespace: other });
        await client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, "iso-a", { iso: "1" }), { namespace: ns });
        await client.create<KubeObject>(CoreTypes.ConfigMap, cm(other, "iso-y", { iso: "1" }), { namespace: other });
        await client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, "iso-b", { iso: "1" }), { namespace: ns });
        const events = await readEvents(client, CoreTypes.ConfigMap, {
          namespace: ns,
          resourceVersion: from,
          labelSelector: "iso=1",
        }, 2);
        assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`), [
          `ADDED ${ns}/iso-a`,
          `ADDED ${ns}/iso-b`,
        ]);
      } finally {
        await client.delete(CoreTypes.Namespace, other);
      }
    },
  },
  {
    name: "a watch from a resourceVersion older than the watch cache gets 200 and an ERROR event: 410 Expired",
    only: {
      target: "fake",
      reason: "a real server answers 410 only once etcd has compacted that revision (kube-apiserver compacts every " +
        "5 min): v1.33 answered from its watch cache, v1.37 replays the history etcd still holds; a short test " +
        "cannot force a compaction",
    },
    async run({ client, ns }) {
      const { status, events } = await boundedWatch(client, cmPath(ns), {
        watch: true,
        resourceVersion: "1",
        timeoutSeconds: 5,
      });
      assert.equal(status, 200, "the error comes in the stream, not as the HTTP status");
      assert.equal(events.length, 1, JSON.stringify(events));
      assert.equal(events[0].type, "ERROR");
      const st = events[0].object;
      assert.equal(st.kind, "Status");
      assert.equal(st.status, "Failure");
      assert.equal(st.code, 410);
      assert.equal(st.reason, "Expired");
      assert.match(st.message, /^too old resource version: 1 \(\d+\)$/);
    },
  },
  {
    name: "an object relabelled out of the selector arrives as DELETED with its last matching state",
    async run({ client, ns }) {
      const before = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        cm(ns, "relabel-out", { sel: "in" }, { v: "1" }),
        { namespace: ns },
      );
      const after = await client.patch(CoreTypes.ConfigMap, "relabel-out", {
        metadata: { labels: { sel: "out" } },
        data: { v: "2" },
      }, { namespace: ns, type: "merge" });
      const [ev] = await readEvents(client, CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: before.metadata.resourceVersion!,
        labelSelector: "sel=in",
      }, 1);
      assert.equal(ev.type, "DELETED");
      assert.equal(ev.object.metadata.labels?.sel, "in", "the old labels");
      assert.equal(nestedString(ev.object, "data", "v"), "1", "the old data");
      assert.equal(ev.object.metadata.resourceVersion, after.metadata.resourceVersion, "the change's resourceVersion");
    },
  },
  {
    name: "an object relabelled into the selector arrives as ADDED with its new state",
    async run({ client, ns }) {
      const before = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        cm(ns, "relabel-in", { sel2: "out" }, { v: "1" }),
        { namespace: ns },
      );
      const after = await client.patch(CoreTypes.ConfigMap, "relabel-in", {
        metadata: { labels: { sel2: "in" } },
        data: { v: "2" },
      }, { namespace: ns, type: "merge" });
      const [ev] = await readEvents(client, CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: before.metadata.resourceVersion!,
        labelSelector: "sel2=in",
      }, 1);
      assert.equal(ev.type, "ADDED");
      assert.equal(nestedString(ev.object, "data", "v"), "2");
      assert.equal(ev.object.metadata.resourceVersion, after.metadata.resourceVersion);
    },
  },
  {
    name: "with allowWatchBookmarks a BOOKMARK comes before timeoutSeconds ends the watch",
    async run({ client, ns }) {
      const from = await currentRv(client, ns);
      let write: Promise<KubeObject> | undefined;
      const events: WatchEvent[] = [];
      // The cacher only sends a bookmark newer than what the watch has seen: a change after it opened provides one.
      await client.watchStream(CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: from,
        labelSelector: "bookmark=none",
        allowWatchBookmarks: true,
        timeoutSeconds: 4,
        onOpen: () => {
          write = client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, "bm-unrelated"), { namespace: ns });
        },
      }, (ev) => void events.push(ev));
      const unrelated = await write!;
      assert.ok(events.length >= 1, "a bookmark before the timeout");
      for (const ev of events) {
        assert.equal(ev.type, "BOOKMARK");
        assert.equal(ev.object.kind, "ConfigMap");
        assert.equal(ev.object.apiVersion, "v1");
        assert.ok(
          Number(ev.object.metadata.resourceVersion) >= Number(unrelated.metadata.resourceVersion),
          `bookmark at ${ev.object.metadata.resourceVersion} covers ${unrelated.metadata.resourceVersion}`,
        );
      }
    },
  },
  {
    name: "a watch from a future resourceVersion is accepted and sends only the changes after it",
    async run({ client, ns }) {
      const future = Number(await currentRv(client, ns)) + 3;
      const watching = readEvents(client, CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: String(future),
        labelSelector: "future=1",
      }, 1);
      let first: KubeObject | undefined;
      for (let i = 0; i < 20 && !first; i++) {
        const c = await client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, `future-${i}`, { future: "1" }), {
          namespace: ns,
        });
        if (Number(c.metadata.resourceVersion) > future) first = c;
      }
      assert.ok(first, "a write past the requested resourceVersion");
      const [ev] = await watching;
      assert.equal(`${ev.type} ${ev.object.metadata.name}`, `ADDED ${first.metadata.name}`);
    },
  },
  {
    name: "the deprecated /api/v1/watch/ paths serve a collection watch and a single-object watch",
    async run({ client, ns }) {
      for (const name of ["legacy-a", "legacy-b"]) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, name, { legacy: "1" }), { namespace: ns });
      }
      const all = await boundedWatch(client, `/api/v1/watch/namespaces/${ns}/configmaps`, {
        labelSelector: "legacy=1",
        resourceVersion: "0",
        timeoutSeconds: 1,
      });
      assert.equal(all.status, 200);
      assert.deepEqual(all.events.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), [
        "ADDED legacy-a",
        "ADDED legacy-b",
      ]);
      const one = await boundedWatch(client, `/api/v1/watch/namespaces/${ns}/configmaps/legacy-b`, {
        resourceVersion: "0",
        timeoutSeconds: 1,
      });
      assert.equal(one.status, 200);
      assert.deepEqual(one.events.map((e) => `${e.type} ${e.object.metadata.name}`), ["ADDED legacy-b"]);
    },
  },
  {
    name: "the deprecated /apis/<group>/<version>/watch/ path serves a custom resource watch",
    async run({ client, ns }) {
      const { status, events } = await boundedWatch(
        client,
        `/apis/conformance.kubeop.dev/v1/watch/namespaces/${ns}/widgets`,
        { resourceVersion: "0", timeoutSeconds: 1 },
      );
      assert.equal(status, 200);
      assert.ok(events.length >= 1);
      assert.ok(events.every((e) => e.type === "ADDED" && e.object.kind === "Widget"), JSON.stringify(events));
      assert.ok(events.some((e) => e.object.metadata.name === "w1"));
    },
  },
  {
    name: "watch: resourceVersionMatch without sendInitialEvents is 422 Invalid on ListOptions",
    async run({ client, ns }) {
      const st = await rawStatus(client, "GET", cmPath(ns), {
        watch: true,
        resourceVersion: "1",
        resourceVersionMatch: "NotOlderThan",
      }, 422);
      const detail = "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided";
      assert.equal(st.reason, "Invalid");
      assert.equal(st.message, `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: ${detail}`);
      assert.equal(st.details.group, "meta.k8s.io");
      assert.equal(st.details.kind, "ListOptions");
      assert.deepEqual(st.details.causes, [{
        reason: "FieldValueForbidden",
        message: `Forbidden: ${detail}`,
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: "watch: sendInitialEvents without resourceVersionMatch=NotOlderThan is 422 Invalid",
    async run({ client, ns }) {
      const st = await rawStatus(client, "GET", cmPath(ns), {
        watch: true,
        sendInitialEvents: true,
        allowWatchBookmarks: true,
      }, 422);
      assert.equal(st.reason, "Invalid");
      // Servers without the WatchList feature (v1.33) add a second cause for sendInitialEvents itself.
      assert.ok(
        st.details.causes.some((c: { reason: string; message: string; field: string }) =>
          c.field === "resourceVersionMatch" && c.reason === "FieldValueForbidden" &&
          c.message === "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
        ),
        JSON.stringify(st),
      );
    },
  },
  {
    name: "watch: a timeoutSeconds that is not an integer is 400 BadRequest with strconv's message",
    async run({ client, ns }) {
      const st = await rawStatus(client, "GET", cmPath(ns), { watch: true, timeoutSeconds: "soon" }, 400);
      assert.equal(st.reason, "BadRequest");
      assert.equal(st.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
    },
  },
  {
    name: "Table watch events carry the object's resourceVersion in the Table's metadata",
    async run({ client, ns }) {
      const from = await currentRv(client, ns);
      const created = await client.create<KubeObject>(CoreTypes.ConfigMap, cm(ns, "table-w", { tw: "1" }), {
        namespace: ns,
      });
      const { status, events } = await boundedWatch(client, cmPath(ns), {
        watch: true,
        resourceVersion: from,
        labelSelector: "tw=1",
        timeoutSeconds: 1,
      }, TABLE);
      assert.equal(status, 200);
      assert.equal(events.length, 1, JSON.stringify(events));
      const table = events[0].object;
      assert.equal(events[0].type, "ADDED");
      assert.equal(table.kind, "Table");
      assert.equal(table.apiVersion, "meta.k8s.io/v1");
      assert.equal(table.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.equal(table.rows.length, 1);
      assert.equal(table.rows[0].object.metadata.name, "table-w");
    },
  },
];
