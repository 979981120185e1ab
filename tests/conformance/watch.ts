/**
 * Conformance cases: Watch: resumption, selectors, bookmarks, errors and the legacy paths.
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type ConformanceCase, readEvents } from "./support.ts";

/** Watch: resumption, selectors, bookmarks, errors and the legacy paths. */
export const watchCases: ConformanceCase[] = [
  {
    name: "watch from a resourceVersion resumes exactly after it, in order",
    async run({ client, ns }) {
      const a = await client.create<KubeObject>(
        CoreTypes.ConfigMap,
        { metadata: { name: "wa", namespace: ns, labels: { w: "1" } } },
        {
          namespace: ns,
        },
      );
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "wb", namespace: ns, labels: { w: "1" } },
      }, {
        namespace: ns,
      });
      await client.patch(CoreTypes.ConfigMap, "wa", { data: { x: "y" } }, { namespace: ns, type: "merge" });
      await client.delete(CoreTypes.ConfigMap, "wb", { namespace: ns });
      const events = await readEvents(client, CoreTypes.ConfigMap, {
        namespace: ns,
        resourceVersion: a.metadata.resourceVersion!,
        labelSelector: "w=1",
      }, 3);
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), [
        "ADDED wb",
        "MODIFIED wa",
        "DELETED wb",
      ]);
    },
  },
];
