import assert from "node:assert/strict";
import { seededRandom } from "./random.ts";
import { ApiError, failureStatus } from "./errors.ts";
import type { KubeObject } from "./types.ts";
import {
  backoffMs,
  idleDeadlineMs,
  INITIAL_EVENTS_END,
  initialState,
  step,
  type StepEnv,
  type WatchEffect,
  type WatchInput,
  type WatchState,
} from "./watch.ts";

function env(nowMs = 0, random = 0): StepEnv & { t: number } {
  const e = { t: nowMs, now: () => e.t, random: () => random };
  return e;
}

function obj(name: string, rv: string): KubeObject {
  return { metadata: { name, namespace: "ns", resourceVersion: rv, uid: `uid-${name}` } };
}

function run(state: WatchState, inputs: WatchInput[], e: StepEnv): { state: WatchState; effects: WatchEffect[] } {
  const effects: WatchEffect[] = [];
  for (const input of inputs) {
    const r = step(state, input, e);
    state = r.state;
    effects.push(...r.effects);
  }
  return { state, effects };
}

function types(effects: WatchEffect[]): string[] {
  return effects.map((e) => e.type);
}

function watching(rv = "10"): { state: WatchState; e: ReturnType<typeof env> } {
  const e = env();
  const { state } = run(initialState({ watchList: false }), [
    { type: "start" },
    { type: "listed", items: [obj("a", "10")], rv },
    { type: "opened" },
  ], e);
  return { state, e };
}

const gone = new ApiError(failureStatus(410, "Expired", "too old resource version"), { verb: "watch" });

Deno.test("step: list then watch from the list's RV with bookmarks and a timeout in [300, 600]", () => {
  const e = env(0, 0.999);
  let r = step(initialState({ watchList: false }), { type: "start" }, e);
  assert.deepEqual(r.effects, [{ type: "list", cause: "initial" }]);
  r = step(r.state, { type: "listed", items: [obj("a", "3")], rv: "7" }, e);
  assert.equal(r.state.kind, "Watching");
  assert.deepEqual(types(r.effects), ["replace", "watch"]);
  const watch = r.effects[1] as Extract<WatchEffect, { type: "watch" }>;
  assert.equal(watch.resourceVersion, "7");
  assert.equal(watch.sendInitialEvents, false);
  assert.ok(watch.timeoutSeconds >= 300 && watch.timeoutSeconds <= 600);
  assert.equal(step(initialState({ watchList: false }), { type: "start" }, env(0, 0)).effects.length, 1);
});

Deno.test("step: BOOKMARK advances the RV only and arms the idle deadline", () => {
  const { state, e } = watching();
  e.t = 40_000;
  const r = step(
    state,
    { type: "event", event: { type: "BOOKMARK", object: { metadata: { resourceVersion: "55" } } } },
    e,
  );
  assert.equal(r.state.kind, "Watching");
  assert.equal(r.state.mem.rv, "55");
  assert.deepEqual(r.effects, [{ type: "armIdle", ms: 100_000 }]); // 2.5 × 40 s gap
  assert.ok(!r.effects.some((x) => x.type === "apply"));
});

Deno.test("step: idle deadline is 2.5× the largest bookmark gap with a 90 s floor", () => {
  assert.equal(idleDeadlineMs(1_000), 90_000);
  assert.equal(idleDeadlineMs(60_000), 150_000);
});

Deno.test("step: events are applied and move the RV; a re-watch resumes from it", () => {
  const { state, e } = watching();
  const r = run(state, [
    { type: "event", event: { type: "ADDED", object: obj("b", "11") } },
    { type: "event", event: { type: "DELETED", object: obj("a", "12") } },
    { type: "streamEnded" },
  ], e);
  assert.deepEqual(types(r.effects), ["apply", "apply", "restart", "sleep"]);
  assert.equal(r.state.kind, "Backoff");
  const after = step(r.state, { type: "backoffDone" }, e);
  const w = after.effects[0] as Extract<WatchEffect, { type: "watch" }>;
  assert.equal(w.type, "watch");
  assert.equal(w.resourceVersion, "12");
});

Deno.test("step: 410 as HTTP status → relist; relisted items replace the store", () => {
  const { state, e } = watching();
  let r = step(state, { type: "streamFailed", error: gone }, e);
  assert.equal(r.state.kind, "Listing");
  assert.deepEqual(types(r.effects), ["relist", "list"]);
  r = step(r.state, { type: "listed", items: [obj("c", "30")], rv: "30" }, e);
  assert.deepEqual(types(r.effects), ["replace", "watch"]);
});

Deno.test("step: 504 'Too large resource version' (a server that lost its state) → relist", () => {
  const { state, e } = watching("900");
  const tooLarge = new ApiError(
    failureStatus(504, "Timeout", "Too large resource version: 900, current: 7", {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    }),
    { verb: "watch" },
  );
  const r = step(state, { type: "streamFailed", error: tooLarge }, e);
  assert.equal(r.state.kind, "Listing");
  assert.deepEqual(types(r.effects), ["relist", "list"]);
});

Deno.test("step: 410 in-stream ERROR → close stream, relist", () => {
  const { state, e } = watching();
  const r = step(state, {
    type: "event",
    event: { type: "ERROR", object: failureStatus(410, "Expired", "too old") },
  }, e);
  assert.equal(r.state.kind, "Listing");
  assert.deepEqual(types(r.effects), ["closeStream", "relist", "list"]);
});

Deno.test("step: other in-stream ERROR → close stream and back off, then re-watch from the last RV", () => {
  const { state, e } = watching("20");
  const r = step(
    state,
    { type: "event", event: { type: "ERROR", object: failureStatus(500, "InternalError", "x") } },
    e,
  );
  assert.equal(r.state.kind, "Backoff");
  assert.deepEqual(types(r.effects), ["closeStream", "restart", "sleep"]);
  const w = step(r.state, { type: "backoffDone" }, e).effects[0];
  assert.deepEqual(w.type === "watch" && w.resourceVersion, "20");
});

Deno.test("step: backoff doubles from 800 ms, jitters, caps at 30 s, and resets after 2 min healthy", () => {
  assert.equal(backoffMs(1, 0), 800);
  assert.equal(backoffMs(2, 0), 1_600);
  assert.equal(backoffMs(3, 0.5), 4_800);
  assert.equal(backoffMs(20, 0.9), 30_000);
  const { state, e } = watching();
  let s = state;
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = run(s, [{ type: "streamFailed", error: new Error("reset") }], e);
    delays.push((r.effects.find((x) => x.type === "sleep") as { ms: number }).ms);
    s = run(r.state, [{ type: "backoffDone" }, { type: "opened" }], e).state;
  }
  assert.deepEqual(delays, [800, 1_600, 3_200, 6_400]);
  e.t += 120_000; // the last stream stayed healthy for two minutes
  const r = step(s, { type: "streamFailed", error: new Error("reset") }, e);
  assert.equal((r.effects.find((x) => x.type === "sleep") as { ms: number }).ms, 800);
});

Deno.test("step: idle deadline → close the stream, back off, re-watch", () => {
  const { state, e } = watching();
  const r = step(state, { type: "idle" }, e);
  assert.equal(r.state.kind, "Backoff");
  assert.deepEqual(types(r.effects), ["closeStream", "restart", "sleep"]);
  assert.equal((r.effects[1] as { reason: string }).reason, "idle-deadline");
});

Deno.test("step: 401 refreshes credentials before retrying", () => {
  const { state, e } = watching();
  const err401 = new ApiError(failureStatus(401, "Unauthorized", "expired token"), { verb: "watch" });
  const r = step(state, { type: "streamFailed", error: err401 }, e);
  assert.ok(types(r.effects).includes("refreshCredentials"));
  const l = step(initialState({ watchList: false }), { type: "start" }, e);
  const lf = step(l.state, { type: "listFailed", error: err401 }, e);
  assert.ok(types(lf.effects).includes("refreshCredentials"));
  assert.equal(lf.state.kind, "Backoff");
  assert.deepEqual(step(lf.state, { type: "backoffDone" }, e).effects, [{ type: "list", cause: "initial" }]);
});

Deno.test("step: WatchList collects initial events until the end bookmark, then replaces", () => {
  const e = env();
  let r = step(initialState(), { type: "start" }, e);
  assert.equal(r.state.kind, "InitialEvents");
  const w = r.effects[0] as Extract<WatchEffect, { type: "watch" }>;
  assert.equal(w.sendInitialEvents, true);
  assert.equal(w.resourceVersion, undefined);
  r = run(r.state, [
    { type: "opened" },
    { type: "event", event: { type: "ADDED", object: obj("a", "1") } },
    { type: "event", event: { type: "ADDED", object: obj("b", "2") } },
  ], e);
  assert.deepEqual(r.effects, []);
  r = step(r.state, {
    type: "event",
    event: {
      type: "BOOKMARK",
      object: { metadata: { resourceVersion: "9", annotations: { [INITIAL_EVENTS_END]: "true" } } },
    },
  }, e);
  assert.equal(r.state.kind, "Watching");
  assert.equal(r.state.mem.synced, true);
  const replace = r.effects[0] as Extract<WatchEffect, { type: "replace" }>;
  assert.equal(replace.type, "replace");
  assert.deepEqual(replace.items.map((o) => o.metadata.name), ["a", "b"]);
  assert.equal(replace.rv, "9");
});

Deno.test("step: WatchList refused with a 4xx falls back to list, and stays off", () => {
  const e = env();
  let r = step(initialState(), { type: "start" }, e);
  const refused = new ApiError(failureStatus(400, "BadRequest", "sendInitialEvents unsupported"), { verb: "watch" });
  r = step(r.state, { type: "streamFailed", error: refused }, e);
  assert.equal(r.state.kind, "Listing");
  assert.equal(r.state.mem.watchList, "off");
  assert.deepEqual(types(r.effects), ["relist", "list"]);
  // After a later 410, relists use list directly.
  r = run(r.state, [{ type: "listed", items: [], rv: "5" }, { type: "streamFailed", error: gone }], e);
  assert.deepEqual(types(r.effects).slice(-2), ["relist", "list"]);
});

Deno.test("step: malformed frames, unknown types and objects without metadata are skipped; the loop goes on", () => {
  const { state, e } = watching();
  const r = run(state, [
    { type: "event", event: { type: "WHATEVER", object: obj("x", "1") } as never },
    { type: "event", event: { type: "ADDED", object: { kind: "Pod" } } },
    { type: "event", event: { type: "MODIFIED", object: { metadata: {} } } },
    { type: "event", event: null as never },
    { type: "event", event: { type: "ADDED", object: obj("ok", "13") } },
  ], e);
  assert.deepEqual(types(r.effects), ["skip", "skip", "skip", "skip", "apply"]);
  assert.equal(r.state.kind, "Watching");
  assert.equal(r.state.mem.rv, "13");
});

Deno.test("step: no state is terminal — 5 000 random outcomes always lead to a next list, watch or sleep", () => {
  const rand = seededRandom(42);
  const e = env();
  let state = initialState();
  const pending = step(state, { type: "start" }, e);
  state = pending.state;
  let io = pending.effects.find((x) => x.type === "list" || x.type === "watch" || x.type === "sleep");
  let rv = 1;
  for (let i = 0; i < 5_000; i++) {
    assert.ok(io, `no next I/O in state ${state.kind}`);
    let outcome: WatchInput;
    if (io.type === "sleep") outcome = { type: "backoffDone" };
    else if (io.type === "list") {
      outcome = rand() < 0.7
        ? { type: "listed", items: [], rv: String(rv++) }
        : { type: "listFailed", error: new Error("x") };
    } else {
      const pick = rand();
      const events: WatchInput[] = [{ type: "opened" }];
      const n = Math.floor(rand() * 4);
      for (let k = 0; k < n; k++) {
        events.push({ type: "event", event: { type: "ADDED", object: obj(`o${k}`, String(rv++)) } });
      }
      if (rand() < 0.3) {
        events.push({
          type: "event",
          event: {
            type: "BOOKMARK",
            object: { metadata: { resourceVersion: String(rv++), annotations: { [INITIAL_EVENTS_END]: "true" } } },
          },
        });
      }
      let midStream: typeof io | undefined;
      for (const ev of events) {
        const r = step(state, ev, e);
        state = r.state;
        midStream ??= r.effects.find((x) => x.type === "list" || x.type === "watch" || x.type === "sleep") as
          | typeof io
          | undefined;
      }
      if (midStream) {
        io = midStream;
        continue;
      }
      outcome = pick < 0.25
        ? { type: "streamEnded" }
        : pick < 0.5
        ? { type: "streamFailed", error: gone }
        : pick < 0.75
        ? { type: "idle" }
        : {
          type: "streamFailed",
          error: new ApiError(failureStatus(rand() < 0.5 ? 400 : 503, "X", "x"), { verb: "watch" }),
        };
    }
    e.t += 1_000;
    const r = step(state, outcome, e);
    state = r.state;
    io = r.effects.find((x) => x.type === "list" || x.type === "watch" || x.type === "sleep");
  }
});
