import assert from "node:assert/strict";
import { ApiError } from "../runtime/client/errors.ts";
import { decodeContinue, dryRunOf, encodeContinue, pageOf } from "./request_options.ts";

Deno.test("continue tokens: kube's JSON shape round-trips; garbage is a 400", () => {
  const token = encodeContinue({ rv: 42, after: "default/dolly" });
  const padded = token.replace(/-/g, "+").replace(/_/g, "/");
  const json = JSON.parse(atob(padded + "=".repeat((4 - padded.length % 4) % 4)));
  assert.deepEqual(json, { v: "meta.k8s.io/v1", rv: 42, start: "default/dolly\u0000" });
  assert.deepEqual(decodeContinue(token), { rv: 42, after: "default/dolly" });
  assert.throws(() => decodeContinue("%%%"), (err: unknown) => err instanceof ApiError && err.code === 400);
  assert.throws(() => decodeContinue(btoa('{"v":"x","rv":1,"start":"a"}')), /continue key is not valid/);
});

Deno.test("pageOf: limit, continue after the last key, remainingItemCount only when asked", () => {
  const items = ["a", "b", "c"];
  const first = pageOf(items, (i) => i, { limit: 2, rv: 7, countRemaining: true });
  assert.deepEqual(first.items, ["a", "b"]);
  assert.equal(first.remainingItemCount, 1);
  const next = pageOf(items, (i) => i, {
    limit: 2,
    rv: 7,
    after: decodeContinue(first.continue!).after,
    countRemaining: false,
  });
  assert.deepEqual(next, { items: ["c"] });
  assert.deepEqual(pageOf(items, (i) => i, { limit: 0, rv: 7, countRemaining: true }), { items });
});

Deno.test("dryRunOf: All or nothing; anything else is 422 on the options kind", () => {
  assert.equal(dryRunOf(["All"], "UpdateOptions"), true);
  assert.equal(dryRunOf([], "UpdateOptions"), false);
  assert.throws(
    () => dryRunOf(["All", "Nope"], "DeleteOptions"),
    (err: unknown) => err instanceof ApiError && err.code === 422 && err.status.details?.kind === "DeleteOptions",
  );
});
