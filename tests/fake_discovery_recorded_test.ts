/**
 * The fake's discovery of built-in resources is kube-apiserver v1.37.2's own (testdata/real/discovery.json, recorded
 * by testdata/capture_discovery.ts): every recorded group-version and resource is served with the same legacy
 * APIResourceList entries and the same aggregated discovery v2 entries — verbs, short names, categories,
 * subresources (pods/exec, pods/eviction as policy/v1 Eviction, serviceaccounts/token as TokenRequest, ...) — except
 * the few the fake does not serve, each named with why (testing/README.md). The real tier checks the recording
 * against a live kube-apiserver (tests/real/discovery_drift_real_test.ts).
 */
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { captureDiscovery, DISCOVERY_RECORDING } from "../testing/apiserver/discovery_recorded.ts";

/** What kube serves and the fake does not, with why. */
const NOT_SERVED: Record<string, string> = {
  // The same HorizontalPodAutoscalers as autoscaling/v2, converted: the fake serves v2 only.
  "autoscaling/v1": "horizontalpodautoscalers is served as autoscaling/v2 only",
  // Create-only alias of pods/binding, and health computed by kube-apiserver from its own components.
  "v1/bindings": "served as pods/binding",
  "v1/componentstatuses": "kube-apiserver's own component health (deprecated since v1.19)",
};

type Entry = Record<string, unknown>;

Deno.test("discovery: the fake serves kube's recorded discovery for every built-in it serves", async () => {
  const server = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const get = async (path: string, accept = "application/json") => {
      const res = await fetch(`${server.url}${path}`, { headers: { accept } });
      assert.equal(res.status, 200, `GET ${path}`);
      return await res.json();
    };
    const fake = await captureDiscovery(get);
    for (const [gv, list] of Object.entries(DISCOVERY_RECORDING.legacy)) {
      if (NOT_SERVED[gv]) continue;
      const served = fake.legacy[gv];
      assert.ok(served, `group-version ${gv} is served`);
      const byName = new Map(served.resources.map((r) => [r.name, r]));
      for (const want of list.resources) {
        const main = String(want.name).split("/")[0];
        if (NOT_SERVED[`${gv}/${main}`]) continue;
        assert.deepEqual(byName.get(want.name), want, `${gv} ${want.name}`);
      }
    }
    for (const [which, doc] of Object.entries(DISCOVERY_RECORDING.v2)) {
      const fakeDoc = fake.v2[which as "api" | "apis"];
      for (const group of doc.items as { metadata: { name?: string }; versions: Entry[] }[]) {
        const name = group.metadata.name ?? "";
        for (const version of group.versions) {
          const gv = name ? `${name}/${version.version}` : String(version.version);
          if (NOT_SERVED[gv]) continue;
          const fakeGroup = (fakeDoc.items as typeof group[]).find((g) => (g.metadata.name ?? "") === name);
          const fakeVersion = fakeGroup?.versions.find((v) => v.version === version.version);
          assert.ok(fakeVersion, `v2 ${gv} is served`);
          const fakeResources = new Map((fakeVersion.resources as Entry[]).map((r) => [r.resource, r]));
          for (const want of version.resources as Entry[]) {
            if (NOT_SERVED[`${gv}/${want.resource}`]) continue;
            assert.deepEqual(fakeResources.get(want.resource), want, `v2 ${gv} ${want.resource}`);
          }
        }
      }
    }
  } finally {
    await server.stop();
  }
});
