import assert from "node:assert/strict";
import { randomInt, seededRandom } from "../../runtime/random.ts";
import { ObjectStore } from "./object_storage.ts";
import { selectRecords } from "./list.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import type { ResourceDef } from "./resource_def.ts";
import type { Unstructured } from "./unstructured.ts";
import { StoredRecord } from "./stored_record.ts";

const PODS = {
  group: "",
  version: "v1",
  plural: "pods",
  kind: "Pod",
  listKind: "PodList",
  namespaced: true,
  selectableFields: [],
} as unknown as ResourceDef;

function pods(count: number, seed: number): ObjectStore {
  const random = seededRandom(seed);
  const store = new ObjectStore();
  for (let i = 0; i < count; i++) {
    const pod: Unstructured = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: `p${i}`,
        namespace: `ns${randomInt(random, 3)}`,
        uid: `u${i}`,
        ...(randomInt(random, 4) ? { labels: { app: `a${randomInt(random, 3)}` } } : {}),
      },
      spec: { nodeName: randomInt(random, 5) ? `node-${randomInt(random, 4)}` : undefined, hostNetwork: i % 7 === 0 },
      status: { phase: ["Pending", "Running", "Succeeded"][randomInt(random, 3)] },
    };
    store.put("/pods", pod);
  }
  return store;
}

const SELECTORS: Array<[string | undefined, string | undefined]> = [
  ["spec.nodeName=node-1", undefined],
  ["spec.nodeName=", undefined],
  ["status.phase!=Succeeded,status.phase!=Pending", "app=a1"],
  ["metadata.namespace=ns2,spec.hostNetwork=true", undefined],
  ["metadata.name=p7", undefined],
  [undefined, "app in (a0,a2),!missing"],
  ["spec.nodeName=node-2,metadata.namespace!=ns0", "app"],
];

Deno.test("fake list: selectors decided on the records' index answer as the parsed objects do", () => {
  const store = pods(300, 11);
  const all = store.list("/pods");
  for (const [fieldSelector, labelSelector] of SELECTORS) {
    const fields = parseFieldSelector(fieldSelector, "/pods");
    const labels = parseLabelSelector(labelSelector);
    const expected = all.filter((o) => fields(o) && labels(o)).map((o) => o.metadata.name);
    const got = selectRecords(store, PODS, { fieldSelector, labelSelector }, { fieldSelector: (s) => s });
    assert.deepEqual(got.records.map((r) => r.name), expected, `${fieldSelector} / ${labelSelector}`);
    assert.ok(expected.length > 0 || fieldSelector === "metadata.name=p7", `${fieldSelector}: a case that selects`);
  }
});

Deno.test("fake list: a record without the kind's field values (read from an older file) is decided on its object", () => {
  const pod = { metadata: { name: "old", namespace: "ns" }, spec: { nodeName: "node-1" } };
  const record = new StoredRecord(JSON.stringify(pod), "ns", "old", undefined, undefined, undefined);
  const store = new ObjectStore({ snapshot: { rv: 5, buckets: { "/pods": [record] } } });
  const got = selectRecords(store, PODS, { fieldSelector: "spec.nodeName=node-1" }, { fieldSelector: (s) => s });
  assert.deepEqual(got.records.map((r) => r.name), ["old"]);
});

Deno.test("fake list: a node's pods come from the node index, in list order, through moves, deletes and pages", () => {
  const store = pods(300, 5);
  const first = store.list("/pods")[0];
  store.put("/pods", { ...first, spec: { ...first.spec, nodeName: "node-1" } });
  store.remove("/pods", store.list("/pods")[1].metadata.namespace!, store.list("/pods")[1].metadata.name!);
  const fields = parseFieldSelector("spec.nodeName=node-1", "/pods");
  const expected = store.list("/pods").filter(fields).map((o) => o.metadata.name);
  const all = selectRecords(store, PODS, { fieldSelector: "spec.nodeName=node-1" }, { fieldSelector: (s) => s });
  assert.deepEqual(all.records.map((r) => r.name), expected);
  const paged: string[] = [];
  let cont: string | undefined;
  do {
    const page = selectRecords(store, PODS, { fieldSelector: "spec.nodeName=node-1", limit: 7, continue: cont }, {
      fieldSelector: (s) => s,
    });
    paged.push(...page.records.map((r) => r.name));
    cont = page.metadata.continue;
  } while (cont);
  assert.deepEqual(paged, expected);
  const inNs = selectRecords(store, PODS, { namespace: "ns1", fieldSelector: "spec.nodeName=node-1" }, {
    fieldSelector: (s) => s,
  });
  assert.deepEqual(
    inNs.records.map((r) => r.name),
    store.list("/pods").filter((o) => fields(o) && o.metadata.namespace === "ns1").map((o) => o.metadata.name),
  );
});
