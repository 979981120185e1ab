// Issue 5: SIGTERM to a leader-elected operator process drains the in-flight reconcile, starts no new one, and
// releases the Lease only after that reconcile's last write (tests/support/slow_operator.ts as the child).
import assert from "node:assert/strict";
import type { LeaseObject } from "../runtime/leader/lease_lock.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { spawnDeno, startFakeEnv } from "./support/fake_env.ts";
import { eventually } from "../testing/eventually.ts";
import { SLOW_OPERATOR_LEASE } from "./support/slow_operator.ts";

const OPERATOR = new URL("./support/slow_operator.ts", import.meta.url).pathname;
/** Child processes start slowly on a loaded machine. */
const SUBPROCESS_TIMEOUT_MS = 30_000;

Deno.test("SIGTERM drains the in-flight reconcile, starts no new one, then releases the Lease (subprocess)", async () => {
  const env = await startFakeEnv();
  const { server, kubeconfigPath: kubeconfig } = env;
  const operator = spawnDeno(OPERATOR, [kubeconfig]);
  const { child } = operator;
  const lease = () => {
    try {
      return server.store.get(CoreTypes.Lease, SLOW_OPERATOR_LEASE, { namespace: "default" }) as LeaseObject;
    } catch {
      return undefined;
    }
  };
  const configMap = (name: string) => server.store.get(CoreTypes.ConfigMap, name, { namespace: "default" });
  const slowConfigMap = (name: string): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default", labels: { slow: "yes" } },
    data: {},
  });
  try {
    await eventually("the operator to hold the Lease", () => lease()?.spec?.holderIdentity === `slow-${child.pid}`, {
      timeoutMs: SUBPROCESS_TIMEOUT_MS,
    });

    server.store.create(CoreTypes.ConfigMap, slowConfigMap("first"));
    await eventually("the first reconcile to start", () => !!configMap("first").metadata.annotations?.started, {
      timeoutMs: SUBPROCESS_TIMEOUT_MS,
    });
    assert.equal(configMap("first").metadata.annotations?.finished, undefined, "finished before SIGTERM was sent");

    child.kill("SIGTERM");
    server.store.create(CoreTypes.ConfigMap, slowConfigMap("second"));

    const status = await child.status;
    await operator.drained;
    assert.equal(status.code, 0, operator.stderr());

    const first = configMap("first");
    const { started, finished } = first.metadata.annotations ?? {};
    assert.ok(
      finished,
      `the in-flight reconcile did not finish: ${JSON.stringify(first.metadata)}\n${operator.stderr()}`,
    );
    assert.equal(finished, started, "finished by a different reconcile than the one in flight at SIGTERM");

    const released = lease()!;
    assert.equal(released.spec?.holderIdentity, "", "the Lease is still held after exit");
    // The fake server's resourceVersions grow with every write: the release must come after `finished`.
    assert.ok(
      Number(released.metadata.resourceVersion) > Number(first.metadata.resourceVersion),
      `lease released at RV ${released.metadata.resourceVersion}, finished written at RV ${first.metadata.resourceVersion}`,
    );

    assert.equal(
      configMap("second").metadata.annotations?.started,
      undefined,
      "a reconcile started after SIGTERM",
    );
  } finally {
    await operator.killAndReap();
    await env.close();
  }
});
