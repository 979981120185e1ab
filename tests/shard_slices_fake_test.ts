/**
 * Sharded Managers against the fake API server with ShardedListAndWatch on (server-side slices) and off (client-side
 * fallback): each replica's primary informer caches exactly the objects of the buckets it holds, its child informer
 * stays whole, and when a third replica joins and buckets move the primaries see objects leave their slice (the
 * relist reports them deleted) while no object is deleted on the server and the new owner reconciles them.
 */
import assert from "node:assert/strict";
import { bucketRanges, matchesShardSelector } from "../runtime/apimachinery/shard_selector.ts";
import type { Informer, InformerLike } from "../runtime/cache/cache.ts";
import { KubeClient } from "../runtime/client/client.ts";
import { Controller, done } from "../runtime/controller/controller.ts";
import { Manager } from "../runtime/manager/manager.ts";
import { heldSliceSelector } from "../runtime/shard/shard_slices.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";

const NS = "slices";
const BUCKETS = 8;
const OBJECTS = 40;

interface Replica {
  identity: string;
  manager: Manager;
  primary: InformerLike<KubeObject>;
  child: InformerLike<KubeObject>;
  deletes: string[];
  reconciled: Set<string>;
  stop: AbortController;
  running: Promise<void>;
}

function startReplica(server: { url: string }, identity: string): Replica {
  const client = new KubeClient({ config: { server: server.url } });
  const reconciled = new Set<string>();
  const controller = new Controller({
    name: "configmaps",
    for: CoreTypes.ConfigMap,
    reconcile: (ctx) => (reconciled.add(ctx.key), Promise.resolve(done())),
  }).owns(CoreTypes.Secret);
  const manager = new Manager({
    client,
    namespaces: [NS],
    sharding: {
      namespace: NS,
      identity,
      buckets: BUCKETS,
      leaseSeconds: 1,
      renewDeadlineSeconds: 0.6,
      retryPeriodSeconds: 0.2,
    },
  }).add(controller);
  const primary = manager.informers.get<KubeObject>(CoreTypes.ConfigMap);
  const child = manager.informers.get<KubeObject>(CoreTypes.Secret);
  const deletes: string[] = [];
  primary.addHandler({ deleted: (o) => void deletes.push(o.metadata.name!) });
  const stop = new AbortController();
  const running = manager.start(stop.signal).finally(() => client.close());
  return { identity, manager, primary, child, deletes, reconciled, stop, running };
}

/** The cached names equal the objects in the replica's held buckets, and the buckets are split among `replicas`. */
function slicesSettled(replicas: Replica[], objects: KubeObject[]): true {
  const notYet = (why: string): never => {
    throw new Error(why);
  };
  const held = replicas.map((r) => r.manager.shardRing!.gate.held());
  const all = held.flat().sort((a, b) => a - b);
  if (all.join() !== [...Array(BUCKETS).keys()].join()) notYet(`buckets held: ${JSON.stringify(held)}`);
  if (held.some((h) => h.length < Math.floor(BUCKETS / replicas.length))) notYet(`unbalanced: ${JSON.stringify(held)}`);
  for (const [i, r] of replicas.entries()) {
    if (r.manager.shardRing!.gate.active().length !== held[i].length) notYet(`${r.identity} still syncing`);
    const selector = heldSliceSelector(held[i].map((b) => bucketRanges(BUCKETS)[b]));
    const want = objects.filter((o) => matchesShardSelector(selector, o)).map((o) => o.metadata.name!).sort();
    const got = r.primary.store.list().map((o) => o.metadata.name!).sort();
    if (want.join() !== got.join()) notYet(`${r.identity} caches ${got.length}, its slice has ${want.length}`);
  }
  return true;
}

for (const gate of [true, false]) {
  Deno.test(`sharded primaries cache only their slice and see leavers as deletes on a move (ShardedListAndWatch=${gate})`, async () => {
    const server = await startFakeApiServer({ anonymousAdmin: true, featureGates: { ShardedListAndWatch: gate } });
    const admin = new KubeClient({ config: { server: server.url } });
    const replicas: Replica[] = [];
    try {
      await admin.create(CoreTypes.Namespace, { metadata: { name: NS } });
      const objects: KubeObject[] = [];
      for (let i = 0; i < OBJECTS; i++) {
        objects.push(
          await admin.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: `cm-${i}`, namespace: NS } }),
        );
      }
      await admin.create(CoreTypes.Secret, { metadata: { name: "child", namespace: NS } });

      replicas.push(startReplica(server, "a"), startReplica(server, "b"));
      await eventually(
        "two replicas to split the buckets and cache their slices",
        () => slicesSettled(replicas, objects),
        {
          timeoutMs: 20_000,
          intervalMs: 100,
          retryErrors: true,
        },
      );
      for (const r of replicas) {
        assert.equal((r.primary as Informer).shardMode(), gate ? "server" : "client");
        assert.equal((r.child as Informer).shardSelector(), null, "a child informer stays whole");
        assert.equal(r.child.store.list().length, 1);
      }
      await eventually("every object reconciled", () => replicas.flatMap((r) => [...r.reconciled]).length >= OBJECTS);

      replicas.push(startReplica(server, "c"));
      await eventually(
        "three replicas to split the buckets and cache their slices",
        () => slicesSettled(replicas, objects),
        {
          timeoutMs: 20_000,
          intervalMs: 100,
          retryErrors: true,
        },
      );
      assert.ok(replicas[2].reconciled.size > 0, "the added replica reconciles its slice");
      const moved = [...replicas[0].deletes, ...replicas[1].deletes];
      assert.ok(moved.length > 0, "objects moved to the new replica (the relist reports them deleted)");
      const onServer = await admin.list<KubeObject>(CoreTypes.ConfigMap, { namespace: NS });
      assert.equal(onServer.items.length, OBJECTS, "nothing was deleted on the server");
      // With 0.6 s renew deadlines a loaded machine can make any replica miss a renewal and drop a bucket for a while,
      // the new one included (seen once in a full tier run): what must hold is that every object any replica dropped
      // is cached and reconciled by its holder in the end.
      const dropped = [...new Set([...moved, ...replicas[2].deletes])];
      const held = replicas.map((r) => r.primary);
      await eventually(
        "every moved object reconciled by its new holder",
        () =>
          dropped.every((name) =>
            replicas.some((r, i) => held[i].store.get(`${NS}/${name}`) && r.reconciled.has(`${NS}/${name}`))
          ),
      );
    } finally {
      for (const r of replicas) r.stop.abort();
      await Promise.allSettled(replicas.map((r) => r.running));
      admin.close();
      await server.stop();
    }
  });
}
