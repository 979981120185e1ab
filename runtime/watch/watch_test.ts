import assert from "node:assert/strict";
import { seededRandom } from "../random.ts";
import { ApiError, failureStatus } from "../client/errors.ts";
import type { KubeObject } from "../types.ts";
import { backoffMs, idleDeadlineMs, initialState, step } from "./watch.ts";
import { INITIAL_EVENTS_END, type StepEnv, type WatchEffect, type WatchInput, type WatchState } from "./watch_state.ts";

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

/** The effect that starts the next I/O: a list, a watch, or the backoff timer. */
function isNextIo(e: WatchEffect): boolean {
  return e.type === "list" || e.type === "watch" || (e.type === "setTimer" && e.timer === "backoff");
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

const BACKOFF_FIRED: WatchInput = { type: "timer", timer: "backoff" };

function backoffDelay(effects: WatchEffect[]): number | undefined {
  const t = effects.find((x) => x.type === "setTimer" && x.timer === "backoff");
  return t?.type === "setTimer" ? t.ms : undefined;
}

const gone = new ApiError(failureStatus(410, "Expired", "too old resource version"), { verb: "watch" });

Deno.test("step: list then watch from the list's RV with bookmarks and a timeout in [15, 22], dead 5 s past it", () => {
  const e = env(0, 0.999);
  let r = step(initialState({ watchList: false }), { type: "start" }, e);
  assert.deepEqual(r.effects, [{ type: "list", cause: "initial" }]);
  r = step(r.state, { type: "listed", items: [obj("a", "3")], rv: "7" }, e);
  assert.equal(r.state.kind, "Watching");
  assert.deepEqual(types(r.effects), ["replace", "watch", "setTimer"]);
  const watch = r.effects[1] as Extract<WatchEffect, { type: "watch" }>;
  assert.equal(watch.resourceVersion, "7");
  assert.equal(watch.sendInitialEvents, false);
  assert.equal(watch.timeoutSeconds, 22);
  // The dead-connection deadline is armed with the request: ≤ 27 s whatever the dial, the head or the stream do.
  assert.deepEqual(r.effects[2], { type: "setTimer", timer: "overdue", ms: 27_000 });
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
  assert.equal(r.state.kind === "Watching" && r.state.stream.idleMs, 100_000);
  assert.deepEqual(r.effects, [{ type: "setTimer", timer: "idle", ms: 100_000 }]); // 2.5 × 40 s gap
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
  assert.deepEqual(types(r.effects), ["apply", "apply", "cancelTimer", "cancelTimer", "restart", "setTimer"]);
  assert.equal(r.state.kind, "Backoff");
  const after = step(r.state, BACKOFF_FIRED, e);
  const w = after.effects[0] as Extract<WatchEffect, { type: "watch" }>;
  assert.equal(w.type, "watch");
  assert.equal(w.resourceVersion, "12");
});

Deno.test("step: 410 as HTTP status → relist; relisted items replace the store", () => {
  const { state, e } = watching();
  let r = step(state, { type: "streamFailed", error: gone }, e);
  assert.equal(r.state.kind, "Listing");
  assert.deepEqual(types(r.effects), ["cancelTimer", "cancelTimer", "relist", "list"]);
  r = step(r.state, { type: "listed", items: [obj("c", "30")], rv: "30" }, e);
  assert.deepEqual(types(r.effects), ["replace", "watch", "setTimer"]);
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
  assert.deepEqual(types(r.effects), ["cancelTimer", "cancelTimer", "relist", "list"]);
});

Deno.test("step: 410 in-stream ERROR → close stream, relist", () => {
  const { state, e } = watching();
  const r = step(state, {
    type: "event",
    event: { type: "ERROR", object: failureStatus(410, "Expired", "too old") },
  }, e);
  assert.equal(r.state.kind, "Listing");
  assert.deepEqual(types(r.effects), ["closeStream", "cancelTimer", "cancelTimer", "relist", "list"]);
});

Deno.test("step: other in-stream ERROR → close stream and back off, then re-watch from the last RV", () => {
  const { state, e } = watching("20");
  const r = step(
    state,
    { type: "event", event: { type: "ERROR", object: failureStatus(500, "InternalError", "x") } },
    e,
  );
  assert.equal(r.state.kind, "Backoff");
  assert.deepEqual(types(r.effects), ["closeStream", "cancelTimer", "cancelTimer", "restart", "setTimer"]);
  const w = step(r.state, BACKOFF_FIRED, e).effects[0];
  assert.deepEqual(w.type === "watch" && w.resourceVersion, "20");
});

Deno.test("step: backoff doubles from 800 ms while the server does not answer, jitters and caps at 30 s", () => {
  assert.equal(backoffMs(1, 0), 800);
  assert.equal(backoffMs(2, 0), 1_600);
  assert.equal(backoffMs(3, 0.5), 4_800);
  assert.equal(backoffMs(20, 0.9), 30_000);
  const { state, e } = watching();
  let s = state;
  const delays: number[] = [];
  for (let i = 0; i < 8; i++) {
    const r = run(s, [{ type: "streamFailed", error: new Error("connection refused") }], e);
    delays.push(backoffDelay(r.effects)!);
    s = run(r.state, [BACKOFF_FIRED], e).state; // the re-watch fails before the server answers
  }
  assert.deepEqual(delays, [800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000]);
});

Deno.test("step: the backoff resets once the server answers — a later short outage starts from 800 ms, not the cap", () => {
  const { state, e } = watching();
  let s = state;
  for (let i = 0; i < 8; i++) {
    s = run(s, [{ type: "streamFailed", error: new Error("connection refused") }, BACKOFF_FIRED], e).state;
  }
  assert.equal(s.mem.failures, 8);
  e.t += 1_000;
  s = step(s, { type: "opened" }, e).state; // the server answers again
  assert.equal(s.mem.failures, 0);
  e.t += 10_000; // well under client-go's 2 min of health
  const r = step(s, { type: "streamEnded" }, e);
  assert.equal(backoffDelay(r.effects), 800);
  // A successful list resets it as well.
  const l = run(initialState({ watchList: false }), [
    { type: "start" },
    { type: "listFailed", error: new Error("x") },
    BACKOFF_FIRED,
    { type: "listFailed", error: new Error("x") },
    BACKOFF_FIRED,
    { type: "listed", items: [], rv: "3" },
  ], e);
  assert.equal(l.state.mem.failures, 0);
});

Deno.test("step: disconnectedSinceMs marks when the loop lost its stream and clears when one opens", () => {
  const { state, e } = watching();
  assert.equal(state.mem.disconnectedSinceMs, undefined);
  e.t = 5_000;
  let r = step(state, { type: "streamEnded" }, e);
  assert.equal(r.state.mem.disconnectedSinceMs, 5_000);
  e.t = 6_000;
  r = run(r.state, [BACKOFF_FIRED, { type: "streamFailed", error: new Error("refused") }], e);
  assert.equal(r.state.mem.disconnectedSinceMs, 5_000, "a failed reconnect does not restart the clock");
  r = run(r.state, [BACKOFF_FIRED, { type: "opened" }], e);
  assert.equal(r.state.mem.disconnectedSinceMs, undefined);
});

Deno.test("step: a watch refused with 404 (the CRD was deleted) relists and reports the list failure by code", () => {
  const { state, e } = watching();
  const notFound = new ApiError(failureStatus(404, "NotFound", "the server could not find the requested resource"), {
    verb: "watch",
    resource: "widgets.example.com",
  });
  let r = step(state, { type: "streamFailed", error: notFound }, e);
  assert.equal(r.state.kind === "Backoff" && r.state.then, "list");
  r = step(r.state, BACKOFF_FIRED, e);
  assert.equal(r.state.kind, "Listing");
  r = step(r.state, { type: "listFailed", error: notFound }, e);
  assert.deepEqual(r.effects[0], { type: "listError", code: "404", detail: notFound.message });
  assert.equal(r.state.kind, "Backoff");
  // Under WatchList a 404 is not a refusal of WatchList: it stays on.
  const w = run(initialState(), [{ type: "start" }, { type: "streamFailed", error: notFound }], e);
  assert.equal(w.state.kind, "Listing");
  assert.equal(w.state.mem.watchList, "try");
});

Deno.test("step: idle deadline → close the stream, back off, re-watch", () => {
  const { state, e } = watching();
  const armed = step(state, { type: "event", event: { type: "BOOKMARK", object: { metadata: {} } } }, e).state;
  e.t += 90_000;
  const r = step(armed, { type: "timer", timer: "idle" }, e);
  assert.equal(r.state.kind, "Backoff");
  assert.deepEqual(types(r.effects), ["closeStream", "cancelTimer", "cancelTimer", "restart", "setTimer"]);
  assert.equal((r.effects[3] as { reason: string }).reason, "idle-deadline");
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
  assert.deepEqual(step(lf.state, BACKOFF_FIRED, e).effects, [{ type: "list", cause: "initial" }]);
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
  assert.deepEqual(r.effects, []); // the overdue deadline was armed with the request
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
  assert.deepEqual(types(r.effects), ["cancelTimer", "cancelTimer", "relist", "list"]);
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

Deno.test("step: no state is terminal — 5 000 random outcomes always lead to a next list, watch or backoff timer", () => {
  const rand = seededRandom(42);
  const e = env();
  let state = initialState();
  const pending = step(state, { type: "start" }, e);
  state = pending.state;
  let io = pending.effects.find(isNextIo);
  let rv = 1;
  for (let i = 0; i < 5_000; i++) {
    assert.ok(io, `no next I/O in state ${state.kind}`);
    let outcome: WatchInput;
    if (io.type === "setTimer") outcome = BACKOFF_FIRED;
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
        midStream ??= r.effects.find(isNextIo) as
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
        ? { type: "timer", timer: "overdue" }
        : {
          type: "streamFailed",
          error: new ApiError(failureStatus(rand() < 0.5 ? 400 : 503, "X", "x"), { verb: "watch" }),
        };
    }
    e.t += 1_000;
    const r = step(state, outcome, e);
    state = r.state;
    io = r.effects.find(isNextIo);
  }
});

Deno.test("step: timer effects — a table of inputs and the timers they arm, cancel or answer", () => {
  const bookmark = (rv: string): WatchInput => ({
    type: "event",
    event: { type: "BOOKMARK", object: { metadata: { resourceVersion: rv } } },
  });
  const cases: {
    name: string;
    before: WatchInput[];
    atMs: number;
    input: WatchInput;
    effects: WatchEffect[] | string[];
    kind: WatchState["kind"];
  }[] = [
    {
      name: "a stream that opens arms nothing (its overdue deadline was armed with the request)",
      before: [],
      atMs: 0,
      input: { type: "opened" },
      effects: [],
      kind: "Watching",
    },
    {
      name: "a bookmark arms the read-idle deadline (2.5× the gap, 90 s floor)",
      before: [{ type: "opened" }],
      atMs: 10_000,
      input: bookmark("11"),
      effects: [{ type: "setTimer", timer: "idle", ms: 90_000 }],
      kind: "Watching",
    },
    {
      name: "the idle timer with data since re-arms for the remainder",
      before: [{ type: "opened" }, bookmark("11")],
      atMs: 60_000,
      input: { type: "timer", timer: "idle" },
      effects: [{ type: "setTimer", timer: "idle", ms: 30_000 }],
      kind: "Watching",
    },
    {
      name: "the idle timer after a quiet deadline closes the stream and backs off",
      before: [{ type: "opened" }, bookmark("11")],
      atMs: 90_000,
      input: { type: "timer", timer: "idle" },
      effects: ["closeStream", "cancelTimer", "cancelTimer", "restart", "setTimer"],
      kind: "Backoff",
    },
    {
      name: "the overdue timer closes the stream and backs off",
      before: [{ type: "opened" }],
      atMs: 20_000,
      input: { type: "timer", timer: "overdue" },
      effects: ["closeStream", "cancelTimer", "cancelTimer", "restart", "setTimer"],
      kind: "Backoff",
    },
    {
      name: "a stream the server ends takes its deadlines with it",
      before: [{ type: "opened" }, bookmark("11")],
      atMs: 1_000,
      input: { type: "streamEnded" },
      effects: [
        { type: "cancelTimer", timer: "idle" },
        { type: "cancelTimer", timer: "overdue" },
        { type: "restart", reason: "stream-ended", detail: undefined },
        { type: "setTimer", timer: "backoff", ms: 800 },
      ],
      kind: "Backoff",
    },
    {
      name: "the backoff timer re-watches from the last RV",
      before: [{ type: "opened" }, bookmark("11"), { type: "streamEnded" }],
      atMs: 1_000,
      input: BACKOFF_FIRED,
      effects: [
        { type: "watch", resourceVersion: "11", timeoutSeconds: 15, sendInitialEvents: false },
        { type: "setTimer", timer: "overdue", ms: 20_000 },
      ],
      kind: "Watching",
    },
    {
      name: "a stream the server ends at its timeout completed its window: re-watched at once from the last RV",
      before: [{ type: "opened" }, bookmark("11")],
      atMs: 14_000,
      input: { type: "streamEnded" },
      effects: [
        { type: "cancelTimer", timer: "idle" },
        { type: "cancelTimer", timer: "overdue" },
        { type: "restart", reason: "window-end" },
        { type: "watch", resourceVersion: "11", timeoutSeconds: 15, sendInitialEvents: false },
        { type: "setTimer", timer: "overdue", ms: 20_000 },
      ],
      kind: "Watching",
    },
    {
      name: "a stale idle timer in Backoff does nothing",
      before: [{ type: "opened" }, { type: "streamEnded" }],
      atMs: 1_000,
      input: { type: "timer", timer: "idle" },
      effects: [],
      kind: "Backoff",
    },
    {
      name: "a stale backoff timer while watching does nothing",
      before: [{ type: "opened" }],
      atMs: 1_000,
      input: BACKOFF_FIRED,
      effects: [],
      kind: "Watching",
    },
    {
      name: "an idle timer before any bookmark does nothing",
      before: [{ type: "opened" }],
      atMs: 200_000,
      input: { type: "timer", timer: "idle" },
      effects: [],
      kind: "Watching",
    },
  ];
  for (const c of cases) {
    const { state, e } = watching();
    const { state: before } = run(state, c.before, e);
    e.t = c.atMs;
    const r = step(before, c.input, e);
    const got = typeof c.effects[0] === "string" ? types(r.effects) : r.effects;
    assert.deepEqual(got, c.effects, c.name);
    assert.equal(r.state.kind, c.kind, c.name);
  }
});

Deno.test("step: the overdue timer during WatchList's initial events backs off and then lists", () => {
  const e = env();
  let r = run(initialState(), [{ type: "start" }, { type: "opened" }], e);
  assert.equal(r.state.kind, "InitialEvents");
  r = run(r.state, [{ type: "timer", timer: "overdue" }], e);
  assert.equal(r.state.kind === "Backoff" && r.state.then, "list");
  assert.equal(step(r.state, BACKOFF_FIRED, e).state.kind, "InitialEvents");
});
