import assert from "node:assert/strict";
import { reviewAccess, reviewToken } from "./access_review.ts";
import type { KubeObject, ResourceType } from "../types.ts";

/** A client that records each review it is sent and answers with `status`. */
function recordingClient(status: Record<string, unknown> | undefined) {
  const sent: { rt: ResourceType; obj: KubeObject }[] = [];
  return {
    sent,
    create<T extends KubeObject>(rt: ResourceType, obj: T): Promise<T> {
      sent.push({ rt, obj });
      return Promise.resolve({ ...obj, status } as T);
    },
  };
}

const alice = { username: "alice", uid: "u1", groups: ["devs"], extra: { scopes: ["a"] } };

Deno.test("reviewAccess: a path asks NonResourceAttributes, anything else ResourceAttributes", async () => {
  const client = recordingClient({ allowed: true, reason: "rbac" });
  assert.deepEqual(await reviewAccess(client, alice, { verb: "get", path: "/metrics" }), {
    allowed: true,
    reason: "rbac",
  });
  await reviewAccess(client, alice, { verb: "list", group: "farm.example.com", resource: "farmpods", namespace: "n" });
  assert.equal(client.sent[0].rt.kind, "SubjectAccessReview");
  assert.deepEqual(client.sent[0].obj.spec, {
    user: "alice",
    uid: "u1",
    groups: ["devs"],
    extra: { scopes: ["a"] },
    nonResourceAttributes: { path: "/metrics", verb: "get" },
  });
  assert.deepEqual((client.sent[1].obj.spec as { resourceAttributes?: unknown } | undefined)?.resourceAttributes, {
    verb: "list",
    group: "farm.example.com",
    resource: "farmpods",
    namespace: "n",
  });
});

Deno.test("reviewAccess: no status or allowed other than true is a denial", async () => {
  assert.deepEqual(await reviewAccess(recordingClient(undefined), alice, { verb: "get" }), {
    allowed: false,
    reason: undefined,
  });
  assert.equal((await reviewAccess(recordingClient({ allowed: "yes" }), alice, { verb: "get" })).allowed, false);
});

Deno.test("reviewToken: the user of an authenticated token; undefined otherwise", async () => {
  const ok = recordingClient({ authenticated: true, user: { username: "bob" } });
  assert.deepEqual(await reviewToken(ok, "t"), { username: "bob", uid: undefined, groups: [], extra: undefined });
  assert.equal(ok.sent[0].rt.kind, "TokenReview");
  assert.deepEqual(ok.sent[0].obj.spec, { token: "t" });
  assert.equal(await reviewToken(recordingClient({ authenticated: false, user: { username: "bob" } }), "t"), undefined);
  assert.equal(await reviewToken(recordingClient({ authenticated: true, user: {} }), "t"), undefined);
});
