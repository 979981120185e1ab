/**
 * Sliced informers against the fake API server over real HTTP: with ShardedListAndWatch on the server filters (the
 * list echoes `shardInfo`), with it off the informer receives everything and filters itself; a selector change
 * restarts the list+watch, reports synced only once the new slice is listed, and — like any relist — reports the
 * objects that left the slice as `deleted` and the ones that joined as `added`.
 */
import assert from "node:assert/strict";
import {
  matchesShardSelector,
  SHARD_SPACE_END,
  type ShardRange,
  type ShardSelector,
} from "../runtime/apimachinery/shard_selector.ts";
import { Informer } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";

import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";

const HALF = "0x8000000000000000";
const LOWER: ShardRange = { start: "0x0000000000000000", end: HALF };
const UPPER: ShardRange = { start: HALF, end: SHARD_SPACE_END };
const sel = (range: ShardRange): ShardSelector => ({ field: "object.metadata.uid", ranges: [range] });
const NS = "slices";

type Series = Map<string, number>;
/** Records gauge and counter values by resource. */
function recordingMetrics() {
  const serverSide: Series = new Map();
  const bytes: Series = new Map();
  return {
    serverSide,
    bytes,
    metrics: {
      shardServerSide: { set: (l: { resource: string }, v: number) => void serverSide.set(l.resource, v) },
      watchBytes: {
        inc: (l: { resource: string }, v: number) => void bytes.set(l.resource, (bytes.get(l.resource) ?? 0) + v),
      },
    },
  };
}

interface Logged {
  message: string;
  props?: Record<string, unknown>;
}

async function withSlicedInformer(
  gate: boolean,
  fn: (env: {
    client: KubeClient;
    informer: Informer<KubeObject>;
    made: KubeObject[];
    create: (name: string) => Promise<KubeObject>;
    metrics: ReturnType<typeof recordingMetrics>;
    logs: Logged[];
    events: string[];
  }) => Promise<void>,
  opts: { metadataOnly?: boolean } = {},
): Promise<void> {
  const server = await startFakeApiServer({ anonymousAdmin: true, featureGates: { ShardedListAndWatch: gate } });
  const client = new KubeClient({ config: { server: server.url } });
  const ctrl = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await client.create(CoreTypes.Namespace, { metadata: { name: NS } });
    const create = (name: string) =>
      client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name, namespace: NS } }, { namespace: NS });
    // Enough objects that both halves hold some (uids are random; the loop makes that certain).
    const made: KubeObject[] = [];
    for (let i = 0; i < 64; i++) {
      made.push(await create(`cm-${i}`));
      const lower = made.filter((o) => matchesShardSelector(sel(LOWER), o)).length;
      if (made.length >= 8 && lower >= 2 && made.length - lower >= 2) break;
    }
    const metrics = recordingMetrics();
    const logs: Logged[] = [];
    const logger = {
      debug() {},
      info: (message: string, props?: Record<string, unknown>) => void logs.push({ message, props }),
      warn() {},
    };
    const informer = new Informer<KubeObject>({
      client,
      resource: CoreTypes.ConfigMap,
      namespace: NS,
      metadataOnly: opts.metadataOnly,
      metrics: metrics.metrics,
      logger,
    });
    const events: string[] = [];
    informer.addHandler({
      added: (o) => void events.push(`added ${o.metadata.name}`),
      modified: (_, o) => void events.push(`modified ${o.metadata.name}`),
      deleted: (o) => void events.push(`deleted ${o.metadata.name}`),
    });
    informer.relist(sel(LOWER));
    running = informer.start(ctrl.signal);
    await informer.waitForSync(AbortSignal.timeout(10_000));
    await fn({ client, informer, made, create, metrics, logs, events });
  } finally {
    ctrl.abort();
    await running;
    client.close();
    await server.stop();
  }
}

const names = (objs: KubeObject[]) => objs.map((o) => o.metadata.name!).sort();
const inSlice = (objs: KubeObject[], range: ShardRange) =>
  names(objs.filter((o) => matchesShardSelector(sel(range), o)));

/** Creates objects until one lands in `range` (the sentinel a test waits for); returns all created. */
async function createUntilIn(create: (n: string) => Promise<KubeObject>, range: ShardRange, prefix: string) {
  const out: KubeObject[] = [];
  for (let i = 0; i < 64; i++) {
    const o = await create(`${prefix}-${i}`);
    out.push(o);
    if (matchesShardSelector(sel(range), o) && out.length > 1) return out;
  }
  throw new Error("no uid in range in 64 objects");
}

for (const gate of [true, false]) {
  const mode = gate ? "server" : "client";
  Deno.test(`sliced informer, gate ${gate ? "on" : "off"}: caches only its slice (${mode}-side) and reports the mode`, async () => {
    await withSlicedInformer(gate, async ({ informer, made, create, metrics, logs }) => {
      assert.deepEqual(names(informer.store.list()), inSlice(made, LOWER));
      assert.equal(informer.shardMode(), mode);
      assert.equal(metrics.serverSide.get("configmaps"), gate ? 1 : 0);
      const line = logs.filter((l) => l.message.includes("shard slice"));
      assert.equal(line.length, 1, JSON.stringify(logs));
      assert.ok(line[0].message.includes(gate ? "server-side" : "client-side"));
      // Later events: only the slice's reach the cache (the last one created is inside: the cache has caught up).
      const later = await createUntilIn(create, LOWER, "later");
      const last = later[later.length - 1].metadata.name!;
      await eventually("the last object is cached", () => informer.store.get(`${NS}/${last}`));
      assert.deepEqual(names(informer.store.list()), inSlice([...made, ...later], LOWER));
      assert.ok(informer.receivedBytes() > 0, "watch bytes counted");
      assert.equal(metrics.bytes.get("configmaps"), informer.receivedBytes());
    });
  });
}

for (const gate of [true, false]) {
  Deno.test(`sliced informer, gate ${gate ? "on" : "off"}: a selector change relists the new slice; leavers are deleted, joiners added`, async () => {
    await withSlicedInformer(gate, async ({ client, informer, made, events }) => {
      const lower = inSlice(made, LOWER);
      const upper = inSlice(made, UPPER);
      assert.deepEqual(events.filter((e) => e.startsWith("added")).map((e) => e.slice(6)).sort(), lower);
      events.length = 0;
      informer.relist(sel(UPPER));
      assert.equal(informer.hasSynced(), false, "not synced until the new slice is listed");
      assert.equal(informer.everSynced(), true, "readiness is kept through a handover");
      assert.equal(informer.health().synced, true);
      assert.equal(informer.shardMode(), "pending");
      await informer.waitForSync(AbortSignal.timeout(10_000));
      assert.deepEqual(names(informer.store.list()), upper);
      assert.equal(informer.shardMode(), gate ? "server" : "client");
      assert.deepEqual(events.filter((e) => e.startsWith("deleted")).map((e) => e.slice(8)).sort(), lower);
      assert.deepEqual(events.filter((e) => e.startsWith("added")).map((e) => e.slice(6)).sort(), upper);
      // A real delete inside the slice is still a delete.
      const victim = upper[0];
      await client.delete(CoreTypes.ConfigMap, victim, { namespace: NS });
      await eventually("the delete is seen", () => events.includes(`deleted ${victim}`));
      // Back to the whole collection: nothing leaves, the lower half arrives as added.
      events.length = 0;
      informer.relist(null);
      assert.equal(informer.shardMode(), "off");
      await informer.waitForSync(AbortSignal.timeout(10_000));
      assert.deepEqual(names(informer.store.list()), names(made).filter((n) => n !== victim));
      assert.deepEqual(events.filter((e) => !e.startsWith("added")), []);
    });
  });
}

Deno.test("sliced informer: with the gate on, the slice's list costs fewer bytes than the whole collection's", async () => {
  await withSlicedInformer(true, async ({ client, informer }) => {
    const whole = new Informer<KubeObject>({ client, resource: CoreTypes.ConfigMap, namespace: NS, watchList: false });
    const ctrl = new AbortController();
    const running = whole.start(ctrl.signal);
    try {
      await whole.waitForSync(AbortSignal.timeout(10_000));
      assert.ok(whole.store.size > informer.store.size);
      assert.ok(
        informer.receivedBytes() < whole.receivedBytes(),
        `sliced ${informer.receivedBytes()} B, whole ${whole.receivedBytes()} B`,
      );
    } finally {
      ctrl.abort();
      await running;
    }
  });
});

for (const gate of [true, false]) {
  Deno.test(`sliced metadata-only informer, gate ${gate ? "on" : "off"}: the mode is probed past PartialObjectMetadataList's missing echo`, async () => {
    await withSlicedInformer(gate, ({ informer, made }) => {
      assert.deepEqual(names(informer.store.list()), inSlice(made, LOWER));
      assert.equal(informer.store.list()[0]?.kind, "PartialObjectMetadata");
      assert.equal(informer.shardMode(), gate ? "server" : "client");
      return Promise.resolve();
    }, { metadataOnly: true });
  });
}

Deno.test("sliced informer: an unchanged selector does not restart the watch", async () => {
  await withSlicedInformer(true, ({ informer }) => {
    informer.relist({ field: "object.metadata.uid", ranges: [{ ...LOWER }] });
    assert.equal(informer.hasSynced(), true);
    assert.equal(informer.shardMode(), "server");
    return Promise.resolve();
  });
});
