/**
 * Conformance cases: sharded list and watch (KEP-5866, feature gate `ShardedListAndWatch`, alpha in v1.36/v1.37).
 * Both targets run with the gate on; `ctx.shardingOff()` reaches a second API server over the same storage with the
 * gate off (the real tier: a second kube-apiserver on the same etcd; the fake: a second fake server).
 *
 * What kube-apiserver v1.37.2 does (k8s.io/apiserver registry/generic/registry/store.go, storage/selection_predicate.go,
 * storage/cacher): the parameter is parsed only with the gate on and when non-empty; a selector that does not parse is
 * a plain Go error, answered 500 with no reason and the message `invalid shard selector: <parser message>`; a sharded
 * list echoes the parsed ranges, in request order, in `metadata.shardInfo.selector` and never sets
 * `remainingItemCount`; watches (WatchList too) filter by the same hash, and WatchList's initial-events-end bookmark
 * carries no echo. uid and namespace never change, so an object never moves in or out of a slice.
 * @module
 */
import assert from "node:assert/strict";
import {
  bucketRanges,
  formatShardSelector,
  matchesShardSelector,
  SHARD_SPACE_END,
  type ShardRange,
  type ShardSelector,
} from "../../runtime/apimachinery/shard_selector.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import { isAlreadyExists } from "../../runtime/client/errors.ts";
import type { WatchOptions } from "../../runtime/client/client_options.ts";
import { CoreTypes, type KubeObject, type WatchEvent } from "../../runtime/types.ts";
import { type ConformanceCase, POLL, rawStatus, Widget, WIDGET_CRD } from "./support.ts";
import { eventually } from "../../testing/eventually.ts";

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const HALF = "0x8000000000000000";
const LOWER: ShardRange = { start: "0x0000000000000000", end: HALF };
const UPPER: ShardRange = { start: HALF, end: SHARD_SPACE_END };
const uidSel = (...ranges: ShardRange[]): ShardSelector => ({ field: "object.metadata.uid", ranges });

/** A raw LIST asserting 200. */
// deno-lint-ignore no-explicit-any
async function rawList(client: KubeClient, path: string, query: Record<string, string | number>): Promise<any> {
  const res = await client.request("GET", path, { query });
  const body = JSON.parse(new TextDecoder().decode(res.body));
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

const namesOf = (list: { items: KubeObject[] }) => list.items.map((o) => o.metadata.name!).sort();

/**
 * Creates labelled ConfigMaps `<prefix>-<i>` until at least `min` fall in each half of the uid hash space (uids are
 * random: the loop makes the case independent of luck). Returns them in creation order.
 */
async function createSpread(client: KubeClient, ns: string, prefix: string, min = 2): Promise<KubeObject[]> {
  const made: KubeObject[] = [];
  const count = (r: ShardRange) => made.filter((o) => matchesShardSelector(uidSel(r), o)).length;
  for (let i = 0; i < 64 && (made.length < 6 || count(LOWER) < min || count(UPPER) < min); i++) {
    made.push(
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: `${prefix}-${i}`, namespace: ns, labels: { shardcase: prefix } },
      }, { namespace: ns }),
    );
  }
  assert.ok(count(LOWER) >= min && count(UPPER) >= min, "uids did not spread over both halves in 64 objects");
  return made;
}

/** Creates ConfigMaps until one falls in `range`; returns it. */
async function createIn(client: KubeClient, ns: string, prefix: string, range: ShardRange): Promise<KubeObject> {
  for (let i = 0; i < 64; i++) {
    const o = await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: `${prefix}-${i}`, namespace: ns, labels: { shardcase: prefix } },
    }, { namespace: ns });
    if (matchesShardSelector(uidSel(range), o)) return o;
  }
  assert.fail(`no uid in ${range.start}..${range.end} in 64 objects`);
}

const expected = (objs: KubeObject[], sel: ShardSelector) =>
  objs.filter((o) => matchesShardSelector(sel, o)).map((o) => o.metadata.name!).sort();

/** Reads a watch until `done` says so (20 s deadline). */
async function watchUntil(
  client: KubeClient,
  opts: WatchOptions,
  done: (events: WatchEvent[]) => boolean,
): Promise<WatchEvent[]> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error("watch deadline")), 20_000);
  const events: WatchEvent[] = [];
  try {
    await client.watchStream(CoreTypes.ConfigMap, { ...opts, signal: ac.signal }, (ev) => {
      events.push(ev);
      if (done(events)) ac.abort(new Error("done"));
    });
  } catch (err) {
    if (!done(events)) throw err;
  } finally {
    clearTimeout(timer);
  }
  assert.ok(done(events), `watch ended early: ${events.map((e) => e.type).join(", ")}`);
  return events;
}

/** An invalid selector's 500 on list and on watch, with kube's message. */
async function expectInvalidSelector(client: KubeClient, ns: string, selector: string, message: string) {
  const queries: Array<Record<string, string | number>> = [
    { shardSelector: selector },
    { shardSelector: selector, watch: "true", timeoutSeconds: 1 },
  ];
  for (const query of queries) {
    const st = await rawStatus(client, "GET", cmPath(ns), query, 500);
    assert.equal(st.message, `invalid shard selector: ${message}`, `${JSON.stringify(query)}`);
    assert.equal(st.reason, undefined, "a plain Go error: no reason");
  }
}

/** Sharded list and watch (KEP-5866). */
export const shardedListWatchCases: ConformanceCase[] = [
  {
    // Found by the real-tier shard run: sharded primaries that are custom resources reported client-side slices.
    name: "sharded list of a custom resource: filtered by the same hash, but the list carries no shardInfo echo",
    async run({ client, ns }) {
      await client.create<KubeObject>(CoreTypes.CustomResourceDefinition, structuredClone(WIDGET_CRD) as KubeObject)
        .catch((err) => {
          if (!isAlreadyExists(err)) throw err;
        });
      const made: KubeObject[] = [];
      const count = (r: ShardRange) => made.filter((o) => matchesShardSelector(uidSel(r), o)).length;
      for (let i = 0; i < 64 && (made.length < 6 || count(LOWER) < 2 || count(UPPER) < 2); i++) {
        made.push(
          await eventually("widgets served", () =>
            client.create<KubeObject>(Widget, {
              apiVersion: `${Widget.group}/${Widget.version}`,
              kind: Widget.kind,
              metadata: { name: `shard-cr-${i}`, namespace: ns, labels: { shardcase: "shard-cr" } },
              spec: { size: 1 },
            }, { namespace: ns }), POLL),
        );
      }
      for (const sel of [uidSel(LOWER), uidSel(UPPER)]) {
        const list = await rawList(client, `/apis/${Widget.group}/${Widget.version}/namespaces/${ns}/widgets`, {
          labelSelector: "shardcase=shard-cr",
          shardSelector: formatShardSelector(sel),
        });
        assert.deepEqual(namesOf(list), expected(made, sel));
        assert.equal(list.metadata.shardInfo, undefined, "kube-apiserver v1.37.2 echoes shardInfo for built-ins only");
      }
    },
  },
  {
    name: "sharded list: shardRange over object.metadata.uid returns exactly the objects whose FNV-1a 64 is in range",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-a");
      for (const sel of [uidSel(LOWER), uidSel(UPPER)]) {
        const list = await rawList(client, cmPath(ns), {
          labelSelector: "shardcase=shard-a",
          shardSelector: formatShardSelector(sel),
        });
        assert.deepEqual(namesOf(list), expected(made, sel));
      }
    },
  },
  {
    name: "sharded list: ranges joined with || select their union; adjacent halves partition the collection",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-b");
      const quarters = bucketRanges(4);
      const sel = uidSel(quarters[2], quarters[0]);
      const raw = `shardRange(object.metadata.uid, '${quarters[2].start}', '${quarters[2].end}') || ` +
        `shardRange(object.metadata.uid, '${quarters[0].start}', '${quarters[0].end}')`;
      const union = await rawList(client, cmPath(ns), { labelSelector: "shardcase=shard-b", shardSelector: raw });
      assert.deepEqual(namesOf(union), expected(made, sel));
      const whole = `shardRange(object.metadata.uid, '${LOWER.start}', '${LOWER.end}') || ` +
        `shardRange(object.metadata.uid, '${UPPER.start}', '${UPPER.end}')`;
      const all = await rawList(client, cmPath(ns), { labelSelector: "shardcase=shard-b", shardSelector: whole });
      assert.deepEqual(namesOf(all), made.map((o) => o.metadata.name!).sort());
    },
  },
  {
    name:
      "sharded list: metadata.shardInfo.selector echoes the ranges as parsed, in request order; unsharded lists carry none",
    async run({ client, ns }) {
      const q = bucketRanges(4);
      const sent =
        `(shardRange( object.metadata.uid ,"${q[3].start}",'${q[3].end}')) ||shardRange(object.metadata.uid,` +
        `'${q[0].start}', '${q[1].end}')`;
      const list = await rawList(client, cmPath(ns), { shardSelector: sent });
      assert.deepEqual(list.metadata.shardInfo, {
        selector: `shardRange(object.metadata.uid, '${q[3].start}', '${q[3].end}') || ` +
          `shardRange(object.metadata.uid, '${q[0].start}', '${q[1].end}')`,
      });
      const plain = await rawList(client, cmPath(ns), {});
      assert.equal(plain.metadata.shardInfo, undefined);
      // An empty parameter is no selector at all (the registry checks `!= ""` before parsing).
      const empty = await rawList(client, cmPath(ns), { shardSelector: "" });
      assert.equal(empty.metadata.shardInfo, undefined);
    },
  },
  {
    name:
      "sharded list as PartialObjectMetadataList or Table: filtered, but the echo is dropped (only RV/continue/count kept)",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-h");
      const sel = uidSel(LOWER);
      const query = { labelSelector: "shardcase=shard-h", shardSelector: formatShardSelector(sel) };
      for (
        const accept of [
          "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
          "application/json;as=Table;g=meta.k8s.io;v=v1",
        ]
      ) {
        const res = await client.request("GET", cmPath(ns), { query, accept });
        const body = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.metadata.shardInfo, undefined, accept);
        assert.ok(body.metadata.resourceVersion, accept);
        // deno-lint-ignore no-explicit-any
        const rows: any[] = body.kind === "Table" ? body.rows.map((r: any) => r.object) : body.items;
        assert.deepEqual(rows.map((o) => o.metadata.name).sort(), expected(made, sel), accept);
      }
    },
  },
  {
    name: "sharded list: limit + continue page through the slice; every page echoes the selector, none counts the rest",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-c", 3);
      const sel = uidSel(UPPER);
      const shardSelector = formatShardSelector(sel);
      const seen: string[] = [];
      let cont = "";
      let pages = 0;
      do {
        const page = await rawList(client, cmPath(ns), {
          labelSelector: "shardcase=shard-c",
          shardSelector,
          limit: 1,
          ...(cont ? { continue: cont } : {}),
        });
        pages++;
        assert.deepEqual(page.metadata.shardInfo, { selector: shardSelector });
        assert.equal(page.metadata.remainingItemCount, undefined);
        seen.push(...namesOf(page));
        cont = page.metadata.continue ?? "";
      } while (cont && pages < 100);
      assert.deepEqual(seen.sort(), expected(made, sel));
    },
  },
  {
    name: "sharded list: shardRange over object.metadata.namespace selects whole namespaces by their name's hash",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-d", 1);
      const nsSel: ShardSelector = { field: "object.metadata.namespace", ranges: [LOWER] };
      const inLower = matchesShardSelector(nsSel, { metadata: { namespace: ns } });
      const list = await rawList(client, "/api/v1/configmaps", {
        labelSelector: "shardcase=shard-d",
        shardSelector: formatShardSelector(nsSel),
      });
      assert.deepEqual(namesOf(list), inLower ? made.map((o) => o.metadata.name!).sort() : []);
    },
  },
  {
    name: "sharded watch: only the slice's ADDED, MODIFIED and DELETED events are sent",
    async run({ client, ns }) {
      const start = await client.list(CoreTypes.ConfigMap, { namespace: ns, limit: 1 });
      const rv = start.metadata.resourceVersion!;
      const made = await createSpread(client, ns, "shard-e");
      const inside = made.filter((o) => matchesShardSelector(uidSel(LOWER), o));
      const outside = made.filter((o) => !matchesShardSelector(uidSel(LOWER), o));
      for (const o of [outside[0], inside[0]]) {
        await client.patch(CoreTypes.ConfigMap, o.metadata.name!, { data: { touched: "yes" } }, {
          namespace: ns,
          type: "merge",
        });
      }
      for (const o of [outside[1], inside[1]]) {
        await client.delete(CoreTypes.ConfigMap, o.metadata.name!, { namespace: ns });
      }
      // The sentinel: the last change, inside the slice.
      const sentinel = await createIn(client, ns, "shard-e-last", LOWER);
      const events = await watchUntil(client, {
        namespace: ns,
        resourceVersion: rv,
        labelSelector: "shardcase in (shard-e,shard-e-last)",
        shardSelector: formatShardSelector(uidSel(LOWER)),
      }, (evs) => evs.some((e) => (e.object as KubeObject).metadata.name === sentinel.metadata.name));
      for (const { type, object } of events) {
        const o = object as KubeObject;
        assert.ok(matchesShardSelector(uidSel(LOWER), o), `${type} ${o.metadata.name} is outside the slice`);
      }
      const summary = events.map((e) => `${e.type} ${(e.object as KubeObject).metadata.name}`);
      for (const o of inside) assert.ok(summary.includes(`ADDED ${o.metadata.name}`), summary.join(", "));
      assert.ok(summary.includes(`MODIFIED ${inside[0].metadata.name}`), summary.join(", "));
      assert.ok(summary.includes(`DELETED ${inside[1].metadata.name}`), summary.join(", "));
    },
  },
  {
    name: "sharded WatchList: the initial events are the slice, then the initial-events-end bookmark",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-f");
      const sel = uidSel(UPPER);
      const events = await watchUntil(client, {
        namespace: ns,
        labelSelector: "shardcase=shard-f",
        shardSelector: formatShardSelector(sel),
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      }, (evs) => evs.some((e) => e.type === "BOOKMARK"));
      const bookmark = events.find((e) => e.type === "BOOKMARK")!.object as KubeObject;
      assert.equal(bookmark.metadata.annotations?.["k8s.io/initial-events-end"], "true");
      const added = events.filter((e) => e.type === "ADDED").map((e) => (e.object as KubeObject).metadata.name).sort();
      assert.deepEqual(added, expected(made, sel));
    },
  },
  {
    name: "sharded deletecollection: deletes only the slice (DeleteCollection lists through the same predicate)",
    async run({ client, ns }) {
      const made = await createSpread(client, ns, "shard-i");
      const res = await client.request("DELETE", cmPath(ns), {
        query: { labelSelector: "shardcase=shard-i", shardSelector: formatShardSelector(uidSel(LOWER)) },
      });
      assert.equal(res.status, 200, new TextDecoder().decode(res.body));
      const left = await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "shardcase=shard-i" });
      assert.deepEqual(namesOf(left), expected(made, uidSel(UPPER)));
    },
  },
  {
    name: "shard selector: an unsupported field path is 500 `invalid shard selector: unsupported field path …`",
    async run({ client, ns }) {
      await expectInvalidSelector(
        client,
        ns,
        `shardRange(object.metadata.name, '${LOWER.start}', '${LOWER.end}')`,
        'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
      );
    },
  },
  {
    name: "shard selector: malformed ranges, functions and blank selectors are 500 with the parser's message",
    async run({ client, ns }) {
      const cases: Array<[string, string]> = [
        [
          "shardRange(object.metadata.uid, '0x1', '0x8000000000000000')",
          'hexStart must be a 0x-prefixed 16-digit hex value, got "0x1" (did you mean "0x0000000000000001"?)',
        ],
        [
          "shardRange(object.metadata.uid, '0000000000000000', '0x8000000000000000')",
          `hexStart must have '0x' prefix, got "0000000000000000"`,
        ],
        [
          "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
          "shard range start 0x8000000000000000 must be less than end 0x0000000000000000",
        ],
        [
          "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')",
          `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`,
        ],
        ["shardRange(object.metadata.uid, '0x0000000000000000')", "shardRange() requires exactly 3 arguments, got 2"],
        [
          "hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
          'unsupported function "hashRange"; only shardRange() and || are allowed',
        ],
        [
          `shardRange(object.metadata.uid, '${LOWER.start}', '${LOWER.end}') || ` +
          `shardRange(object.metadata.namespace, '${UPPER.start}', '${UPPER.end}')`,
          'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
        ],
        ["   ", "empty shard selector is not allowed; omit the parameter for unfiltered lists"],
      ];
      for (const [selector, message] of cases) await expectInvalidSelector(client, ns, selector, message);
    },
  },
  {
    name: "gate off: shardSelector is ignored — full lists without shardInfo, unfiltered watches, no parse errors",
    async run({ ns, shardingOff }) {
      assert.ok(shardingOff, "the target offers no server with ShardedListAndWatch off");
      const off = await shardingOff();
      await off.create(CoreTypes.Namespace, { metadata: { name: ns } }).catch((err) => {
        if (!isAlreadyExists(err)) throw err; // the real tier shares etcd with the gated server
      });
      const made = await createSpread(off, ns, "shard-g");
      const all = made.map((o) => o.metadata.name!).sort();
      const list = await rawList(off, cmPath(ns), {
        labelSelector: "shardcase=shard-g",
        shardSelector: formatShardSelector(uidSel(LOWER)),
      });
      assert.deepEqual(namesOf(list), all);
      assert.equal(list.metadata.shardInfo, undefined);
      const bad = await rawList(off, cmPath(ns), { labelSelector: "shardcase=shard-g", shardSelector: "nonsense(" });
      assert.deepEqual(namesOf(bad), all);
      const events = await watchUntil(off, {
        namespace: ns,
        labelSelector: "shardcase=shard-g",
        shardSelector: formatShardSelector(uidSel(LOWER)),
        sendInitialEvents: true,
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: true,
      }, (evs) => evs.some((e) => e.type === "BOOKMARK"));
      const added = events.filter((e) => e.type === "ADDED").map((e) => (e.object as KubeObject).metadata.name).sort();
      assert.deepEqual(added, all);
    },
  },
];
