/**
 * Conformance cases: List: label selectors, pagination and resourceVersion semantics.
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type ConformanceCase } from "./support.ts";

/** List: label selectors, pagination and resourceVersion semantics. */
export const listCases: ConformanceCase[] = [
  {
    name: "list: label selectors (=, !=, in, notin, exists) and limit + continue",
    async run({ client, ns }) {
      for (let i = 0; i < 5; i++) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, {
          metadata: { name: `sel-${i}`, namespace: ns, labels: { tier: i % 2 ? "odd" : "even", idx: `${i}` } },
        }, { namespace: ns });
      }
      const names = async (labelSelector: string) =>
        (await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector })).items.map((o) => o.metadata.name)
          .sort();
      assert.deepEqual(await names("tier=odd"), ["sel-1", "sel-3"]);
      assert.deepEqual(await names("tier!=odd,idx"), ["sel-0", "sel-2", "sel-4"]);
      assert.deepEqual(await names("idx in (1,2)"), ["sel-1", "sel-2"]);
      assert.deepEqual(await names("idx notin (0,1,2,3),tier"), ["sel-4"]);
      const seen: string[] = [];
      let cont: string | undefined;
      let pages = 0;
      do {
        const page = await client.list(CoreTypes.ConfigMap, {
          namespace: ns,
          labelSelector: "tier",
          limit: 2,
          continue: cont,
        });
        seen.push(...page.items.map((o) => o.metadata.name!));
        cont = page.metadata.continue || undefined;
        pages++;
      } while (cont);
      assert.equal(pages, 3);
      assert.deepEqual(seen.sort(), ["sel-0", "sel-1", "sel-2", "sel-3", "sel-4"]);
    },
  },
  {
    name: "continue pages and Exact lists serve the snapshot at the first page's resourceVersion",
    async run({ client, ns }) {
      for (const i of [1, 2, 3, 4]) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, {
          metadata: { name: `pg-${i}`, namespace: ns, labels: { pg: "1" } },
        }, { namespace: ns });
      }
      const first = await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "pg", limit: 2 });
      assert.deepEqual(first.items.map((o) => o.metadata.name), ["pg-1", "pg-2"]);
      const rv = first.metadata.resourceVersion!;
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "pg-5", namespace: ns, labels: { pg: "1" } },
      }, { namespace: ns });
      await client.delete(CoreTypes.ConfigMap, "pg-3", { namespace: ns });
      await client.patch(CoreTypes.ConfigMap, "pg-4", { data: { late: "yes" } }, { namespace: ns, type: "merge" });
      const rest = await client.list(CoreTypes.ConfigMap, {
        namespace: ns,
        labelSelector: "pg",
        limit: 10,
        continue: first.metadata.continue,
      });
      assert.deepEqual(rest.items.map((o) => o.metadata.name), ["pg-3", "pg-4"]);
      assert.equal(rest.items[1].data?.late, undefined, "pg-4 as it was at the first page");
      assert.equal(rest.metadata.resourceVersion, rv);
      const exact = await client.list(CoreTypes.ConfigMap, {
        namespace: ns,
        labelSelector: "pg",
        resourceVersion: rv,
        resourceVersionMatch: "Exact",
      });
      assert.deepEqual(exact.items.map((o) => o.metadata.name), ["pg-1", "pg-2", "pg-3", "pg-4"]);
      assert.equal(exact.metadata.resourceVersion, rv);
      const now = await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "pg" });
      assert.deepEqual(now.items.map((o) => o.metadata.name), ["pg-1", "pg-2", "pg-4", "pg-5"]);
    },
  },
];
