/**
 * Conformance cases: List: label selectors, pagination and resourceVersion semantics.
 * @module
 */
import assert from "node:assert/strict";
import type { ConfigMap } from "../../runtime/builtin_types.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type ConformanceCase, rawStatus } from "./support.ts";

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A raw LIST (no client-side paging), asserting 200. */
async function rawList(
  client: KubeClient,
  ns: string,
  query: Record<string, string | number | boolean>,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await client.request("GET", cmPath(ns), { query });
  const body = JSON.parse(new TextDecoder().decode(res.body));
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

const names = (list: { items: KubeObject[] }) => list.items.map((o) => o.metadata.name);

/** Asserts a 422 on ListOptions with exactly these causes (field, reason, message body). */
async function expectListOptionsInvalid(
  client: KubeClient,
  ns: string,
  query: Record<string, string | number | boolean>,
  causes: Array<{ reason: string; message: string; field: string }>,
): Promise<void> {
  const st = await rawStatus(client, "GET", cmPath(ns), query, 422);
  assert.equal(st.reason, "Invalid");
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const list = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  assert.equal(st.message, `ListOptions.meta.k8s.io "" is invalid: ${list}`);
  assert.equal(st.details.group, "meta.k8s.io");
  assert.equal(st.details.kind, "ListOptions");
  assert.deepEqual(st.details.causes, causes);
}

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
      const rest = await client.list<ConfigMap>(CoreTypes.ConfigMap, {
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
  {
    name: "resourceVersion=0 is served whole from the watch cache: limit is ignored",
    async run({ client, ns }) {
      for (const i of [1, 2, 3]) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, {
          metadata: { name: `rv0-${i}`, namespace: ns, labels: { rv0: "1" } },
        }, { namespace: ns });
      }
      const list = await rawList(client, ns, { labelSelector: "rv0=1", limit: 1, resourceVersion: "0" });
      assert.deepEqual(names(list).sort(), ["rv0-1", "rv0-2", "rv0-3"]);
      assert.equal(list.metadata.continue, undefined);
      const paged = await rawList(client, ns, { labelSelector: "rv0=1", limit: 1 });
      assert.equal(paged.items.length, 1, "without resourceVersion=0 the limit holds");
      assert.ok(paged.metadata.continue);
    },
  },
  {
    name: "a non-zero resourceVersion with a limit and no resourceVersionMatch is an exact read (legacy)",
    async run({ client, ns }) {
      const first = await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "exact-1", namespace: ns, labels: { legacyexact: "1" } },
        data: { v: "old" },
      }, { namespace: ns });
      const rv = first.metadata.resourceVersion!;
      await client.patch(CoreTypes.ConfigMap, "exact-1", { data: { v: "new" } }, { namespace: ns, type: "merge" });
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: "exact-2", namespace: ns, labels: { legacyexact: "1" } },
      }, { namespace: ns });
      const then = await rawList(client, ns, { labelSelector: "legacyexact=1", resourceVersion: rv, limit: 10 });
      assert.equal(then.metadata.resourceVersion, rv);
      assert.deepEqual(names(then), ["exact-1"]);
      assert.equal(then.items[0].data.v, "old");
      // Without a limit the same resourceVersion means "not older than": any state at or after rv is a valid answer
      // (v1.33 answered the latest; v1.37 may answer from a watch-cache snapshot at exactly rv).
      const notOlder = await rawList(client, ns, { labelSelector: "legacyexact=1", resourceVersion: rv });
      assert.ok(BigInt(notOlder.metadata.resourceVersion) >= BigInt(rv), "without a limit: not older than rv");
      assert.ok(names(notOlder).includes("exact-1"), "without a limit: not older than rv");
    },
  },
  {
    name: "label selectors compare integers with > and < (Gt/Lt); non-integer values never match",
    async run({ client, ns }) {
      for (const [name, n] of [["n-1", "1"], ["n-2", "2"], ["n-3", "3"], ["n-10", "10"], ["n-x", "x"]]) {
        await client.create<KubeObject>(CoreTypes.ConfigMap, {
          metadata: { name, namespace: ns, labels: { n } },
        }, { namespace: ns });
      }
      const sel = async (labelSelector: string) => names(await rawList(client, ns, { labelSelector })).sort();
      assert.deepEqual(await sel("n>2"), ["n-10", "n-3"], "numeric, not lexical");
      assert.deepEqual(await sel("n<3"), ["n-1", "n-2"]);
      assert.deepEqual(await sel("n>1,n<10"), ["n-2", "n-3"]);
    },
  },
  {
    name: "a future resourceVersion is 504 Timeout: Too large resource version (after the cache waits)",
    async run({ client, noRetry, ns }) {
      const current = Number((await rawList(client, ns, { limit: 1 })).metadata.resourceVersion);
      const requested = current + 1_000_000;
      const st = await rawStatus(noRetry, "GET", cmPath(ns), { resourceVersion: String(requested) }, 504);
      assert.equal(st.reason, "Timeout");
      assert.match(st.message, new RegExp(`^Timeout: Too large resource version: ${requested}, current: \\d+$`));
      assert.deepEqual(st.details.causes, [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }]);
      assert.equal(st.details.retryAfterSeconds, 1);
    },
  },
  {
    name: "resourceVersionMatch without resourceVersion is 422 Invalid on ListOptions",
    async run({ client, ns }) {
      await expectListOptionsInvalid(client, ns, { resourceVersionMatch: "NotOlderThan" }, [{
        reason: "FieldValueForbidden",
        message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: "resourceVersionMatch with continue is 422 Invalid",
    async run({ client, ns }) {
      await expectListOptionsInvalid(client, ns, {
        resourceVersion: "1",
        resourceVersionMatch: "NotOlderThan",
        continue: "not-checked-before-validation",
      }, [{
        reason: "FieldValueForbidden",
        message: "Forbidden: resourceVersionMatch is forbidden when continue is provided",
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: 'resourceVersionMatch=Exact with resourceVersion "0" is 422 Invalid',
    async run({ client, ns }) {
      await expectListOptionsInvalid(client, ns, { resourceVersion: "0", resourceVersionMatch: "Exact" }, [{
        reason: "FieldValueForbidden",
        message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: "an unknown resourceVersionMatch is 422 Unsupported value with the supported ones",
    async run({ client, ns }) {
      await expectListOptionsInvalid(client, ns, { resourceVersion: "1", resourceVersionMatch: "Newest" }, [{
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: "sendInitialEvents on a list is 422 Invalid; several violations are listed together",
    async run({ client, ns }) {
      await expectListOptionsInvalid(client, ns, { sendInitialEvents: true }, [{
        reason: "FieldValueForbidden",
        message: "Forbidden: sendInitialEvents is forbidden for list",
        field: "sendInitialEvents",
      }]);
      await expectListOptionsInvalid(client, ns, { resourceVersionMatch: "Exact", continue: "x" }, [{
        reason: "FieldValueForbidden",
        message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        field: "resourceVersionMatch",
      }, {
        reason: "FieldValueForbidden",
        message: "Forbidden: resourceVersionMatch is forbidden when continue is provided",
        field: "resourceVersionMatch",
      }]);
    },
  },
  {
    name: "continue with a resourceVersion is 400 BadRequest",
    async run({ client, ns }) {
      const first = await rawList(client, ns, { limit: 1 });
      assert.ok(first.metadata.continue);
      const st = await rawStatus(client, "GET", cmPath(ns), {
        limit: 1,
        continue: first.metadata.continue,
        resourceVersion: first.metadata.resourceVersion,
      }, 400);
      assert.equal(st.reason, "BadRequest");
      assert.equal(st.message, "specifying resource version is not allowed when using continue");
    },
  },
  {
    name: "a limit that is not an integer is 400 BadRequest with strconv's message",
    async run({ client, ns }) {
      const st = await rawStatus(client, "GET", cmPath(ns), { limit: "ten" }, 400);
      assert.equal(st.reason, "BadRequest");
      assert.equal(st.message, 'strconv.ParseInt: parsing "ten": invalid syntax');
    },
  },
];
