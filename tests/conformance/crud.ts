/**
 * Conformance cases: Create, read, update: object identity and the common error Statuses.
 * @module
 */
import assert from "node:assert/strict";
import { isAlreadyExists, isConflict, isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type ConformanceCase, expectError } from "./support.ts";

/** Create, read, update: object identity and the common error Statuses. */
export const crudCases: ConformanceCase[] = [
  {
    name: "create fills uid, creationTimestamp and a decimal resourceVersion; generateName",
    async run({ client, ns }) {
      const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { generateName: "gen-", namespace: ns },
        data: { a: "1" },
      }, { namespace: ns });
      assert.match(cm.metadata.name!, /^gen-[a-z0-9]{5}$/);
      assert.match(cm.metadata.uid!, /^[0-9a-f-]{36}$/);
      assert.match(cm.metadata.resourceVersion!, /^\d+$/);
      assert.match(cm.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(cm.kind, "ConfigMap");
      assert.equal(cm.apiVersion, "v1");
    },
  },
  {
    name: "404 NotFound, 409 AlreadyExists and 409 Conflict on a stale resourceVersion",
    async run({ client, ns }) {
      const nf = await expectError(client.get(CoreTypes.ConfigMap, "missing", { namespace: ns }), isNotFound, "get");
      assert.equal(nf.status.reason, "NotFound");
      assert.equal(nf.status.details?.name, "missing");
      assert.equal(nf.status.details?.kind, "configmaps");
      assert.equal(nf.status.message, 'configmaps "missing" not found');
      const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "dup", namespace: ns } }, {
        namespace: ns,
      });
      const ae = await expectError(
        client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "dup", namespace: ns } }, { namespace: ns }),
        isAlreadyExists,
        "create twice",
      );
      assert.equal(ae.status.message, 'configmaps "dup" already exists');
      await client.update(CoreTypes.ConfigMap, { ...cm, data: { v: "2" } });
      const stale = await expectError(
        client.update(CoreTypes.ConfigMap, { ...cm, data: { v: "3" } }),
        isConflict,
        "stale update",
      );
      assert.match(stale.status.message!, /the object has been modified; please apply your changes/);
    },
  },
];
