import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { ApiError } from "../runtime/client/errors.ts";
import type { Llama } from "./llama.ts";
import { type LlamaChange, type LlamaState, LlamaStore, StorageConflictError } from "./llama_store.ts";

const llama = (name: string, weight = 1): Llama => ({
  apiVersion: "farm.example.com/v1alpha",
  kind: "Llama",
  metadata: { name, namespace: "default" },
  spec: { weight, height: 1 },
});

Deno.test("store seeds dolly and stamps RV, uid, creationTimestamp from the clock", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = await LlamaStore.open({ clock });
  const dolly = store.get("default", "dolly");
  assert.equal(dolly.metadata.creationTimestamp, "2026-01-01T00:00:00Z");
  assert.equal(dolly.metadata.resourceVersion, store.resourceVersion);
  assert.ok(dolly.metadata.uid);
});

Deno.test("every change gets the next RV; history replays after a given RV; older than history → 410", async () => {
  const store = await LlamaStore.open({ clock: new VirtualClock(), historySize: 2, seed: false });
  const start = Number(store.resourceVersion);
  const a = await store.create(llama("a"));
  assert.equal(Number(a.metadata.resourceVersion), start + 1);
  await store.update("default", "a", (cur) => ({ ...cur, spec: { weight: 2, height: 1 } }));
  await store.delete("default", "a");
  assert.equal(Number(store.resourceVersion), start + 3);
  const seen: LlamaChange[] = [];
  const sub = store.subscribe(start + 1, (c) => seen.push(c));
  assert.deepEqual(sub.replay.map((c) => c.type), ["MODIFIED", "DELETED"]);
  await store.create(llama("b"));
  assert.deepEqual(seen.map((c) => [c.type, c.object.metadata.name]), [["ADDED", "b"]]);
  sub.unsubscribe();
  assert.throws(() => store.subscribe(start, () => {}), (e) => e instanceof ApiError && e.code === 410);
});

Deno.test("update keeps uid and creationTimestamp, bumps generation only on spec change, 409 on stale RV", async () => {
  const store = await LlamaStore.open({ clock: new VirtualClock(), seed: false });
  const a = await store.create(llama("a"));
  const relabeled = await store.update(
    "default",
    "a",
    (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { x: "y" } } }),
  );
  assert.equal(relabeled.metadata.generation, 1);
  assert.equal(relabeled.metadata.uid, a.metadata.uid);
  const heavier = await store.update("default", "a", (cur) => ({ ...cur, spec: { weight: 5, height: 1 } }));
  assert.equal(heavier.metadata.generation, 2);
  await assert.rejects(
    store.update("default", "a", () => ({ ...a, spec: { weight: 9, height: 1 } })),
    (e) => e instanceof ApiError && e.reason === "Conflict",
  );
  await assert.rejects(store.create(llama("a")), (e) => e instanceof ApiError && e.reason === "AlreadyExists");
  await assert.rejects(store.delete("default", "zz"), (e) => e instanceof ApiError && e.code === 404);
});

Deno.test("a storage conflict reloads the persisted state and re-runs the change", async () => {
  let saved: LlamaState | undefined;
  let conflictOnce = false;
  const persistence = {
    load: () => Promise.resolve(saved && structuredClone(saved)),
    save: (s: LlamaState) => {
      if (conflictOnce) {
        conflictOnce = false;
        // Someone else added "other" meanwhile.
        saved = { resourceVersion: saved!.resourceVersion + 1, llamas: [...saved!.llamas, llama("other")] };
        saved.llamas.at(-1)!.metadata.resourceVersion = String(saved.resourceVersion);
        return Promise.reject(new StorageConflictError("changed"));
      }
      saved = structuredClone(s);
      return Promise.resolve();
    },
  };
  const store = await LlamaStore.open({ clock: new VirtualClock(), persistence });
  const events: string[] = [];
  store.subscribe(Number(store.resourceVersion), (c) => events.push(`${c.type} ${c.object.metadata.name}`));
  conflictOnce = true;
  await store.create(llama("mine"));
  assert.deepEqual(saved!.llamas.map((l) => l.metadata.name).sort(), ["dolly", "mine", "other"]);
  assert.deepEqual(events, ["ADDED other", "ADDED mine"]);
  assert.equal(store.resourceVersion, String(saved!.resourceVersion));
});
