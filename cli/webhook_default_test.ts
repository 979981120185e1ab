import assert from "node:assert/strict";
import { parseRunFlags, type RunOptions } from "./run.ts";
import { runningInCluster, webhookServing } from "./webhook_default.ts";

Deno.test("webhooks by default: served in a pod on :9443, off from a workstation; an explicit flag wins", () => {
  const given = (args: string[]) => (parseRunFlags(args) as RunOptions).webhookBindAddress;
  assert.equal(given([]), undefined, "no flag: decided at start by where kubeop runs");
  assert.deepEqual(webhookServing(given([]), true), { serve: true, bindAddress: ":9443" });
  const outside = webhookServing(given([]), false);
  assert.equal(outside.serve, false, "a workstation run must not need the kubeop-system namespace and Secret");
  assert.match((outside as { reason: string }).reason, /--webhook-bind-address=:9443/);
  const explicit = given(["--webhook-bind-address", "127.0.0.1:9443"]);
  assert.deepEqual(webhookServing(explicit, false), { serve: true, bindAddress: "127.0.0.1:9443" });
  assert.deepEqual(webhookServing(explicit, true), { serve: true, bindAddress: "127.0.0.1:9443" });
  for (const inCluster of [true, false]) {
    assert.equal(webhookServing(given(["--webhook-bind-address=0"]), inCluster).serve, false);
  }
});

Deno.test("runningInCluster: KUBERNETES_SERVICE_HOST or the service account's namespace file", async () => {
  const none = () => Promise.resolve(undefined);
  assert.equal(await runningInCluster(() => undefined, none), false);
  assert.equal(await runningInCluster((n) => n === "KUBERNETES_SERVICE_HOST" ? "10.96.0.1" : undefined, none), true);
  assert.equal(await runningInCluster(() => undefined, () => Promise.resolve("kubeop-system")), true);
  const denied = () => {
    throw new Deno.errors.NotCapable("env");
  };
  assert.equal(await runningInCluster(denied, none), false, "no env permission is not an error");
});
