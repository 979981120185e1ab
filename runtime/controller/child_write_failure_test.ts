import assert from "node:assert/strict";
import {
  CHILD_WRITE_REJECTED,
  childWriteRejection,
  isUnfixableWriteError,
  rejectChildWrite,
  stalledCondition,
} from "./child_write_failure.ts";
import type { EventInput } from "../observe/events.ts";
import { ApiError, failureStatus, TerminalError } from "../client/errors.ts";
import type { KubeObject } from "../types.ts";

const refused = (code: number, reason: string) =>
  new ApiError(failureStatus(code, reason, `${reason} answer`), { verb: "create", resource: "pods" });

Deno.test("400, 413 and 422 are unfixable; 401, 403, 404, 409, 429, 5xx and transport errors are not", () => {
  for (const [code, reason] of [[400, "BadRequest"], [413, "RequestEntityTooLarge"], [422, "Invalid"]] as const) {
    assert.ok(isUnfixableWriteError(refused(code, reason)), `${code}`);
  }
  for (
    const [code, reason] of [
      [401, "Unauthorized"],
      [403, "Forbidden"],
      [404, "NotFound"],
      [409, "AlreadyExists"],
      [409, "Conflict"],
      [429, "TooManyRequests"],
      [500, "InternalError"],
      [503, "ServiceUnavailable"],
    ] as const
  ) {
    assert.ok(!isUnfixableWriteError(refused(code, reason)), `${code} ${reason}`);
  }
  assert.ok(!isUnfixableWriteError(new TypeError("connection reset")));
  assert.equal(
    childWriteRejection(refused(503, "ServiceUnavailable"), { verb: "create", kind: "Pod", name: "p" }),
    undefined,
  );
});

Deno.test("the rejection names the write, the child and the server's answer; the path records, writes, returns terminal", async () => {
  const err = refused(422, "Invalid");
  const rejection = childWriteRejection(err, { verb: "create", kind: "Pod", namespace: "ns", name: "x-pod" })!;
  assert.equal(rejection.reason, CHILD_WRITE_REJECTED);
  assert.equal(rejection.message, "create Pod ns/x-pod refused: 422 Invalid: Invalid answer");
  const events: EventInput[] = [];
  const written: string[] = [];
  const owner: KubeObject = { metadata: { name: "x", namespace: "ns" } };
  const terminal = await rejectChildWrite(
    { key: "ns/x", recorder: { event: (_o, e) => events.push(e) } },
    owner,
    rejection,
    (r) => Promise.resolve(void written.push(r.reason)),
  );
  assert.ok(terminal instanceof TerminalError);
  assert.equal(terminal.cause, err);
  assert.match(terminal.message, /^ns\/x: create Pod ns\/x-pod refused/);
  assert.deepEqual(written, [CHILD_WRITE_REJECTED]);
  assert.deepEqual(events, [{
    type: "Warning",
    reason: CHILD_WRITE_REJECTED,
    action: "CreatePod",
    note: rejection.message,
  }]);
});

Deno.test("stalled only while Degraded=True with a listed reason was computed from the current generation", () => {
  const degraded = (status: string, reason: string, observedGeneration: number) => ({
    type: "Degraded",
    status,
    reason,
    message: "",
    lastTransitionTime: "2026-01-01T00:00:00Z",
    observedGeneration,
  });
  const owner = (generation: number, ...conditions: unknown[]): KubeObject => ({
    metadata: { name: "x", generation },
    status: { conditions },
  });
  const reasons = [CHILD_WRITE_REJECTED];
  assert.ok(stalledCondition(owner(3, degraded("True", CHILD_WRITE_REJECTED, 3)), reasons));
  assert.equal(stalledCondition(owner(4, degraded("True", CHILD_WRITE_REJECTED, 3)), reasons), undefined);
  assert.equal(stalledCondition(owner(3, degraded("False", CHILD_WRITE_REJECTED, 3)), reasons), undefined);
  assert.equal(stalledCondition(owner(3, degraded("True", "SomethingElse", 3)), reasons), undefined);
  assert.equal(stalledCondition(owner(3), reasons), undefined);
});
