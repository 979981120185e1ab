import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import type { AdmissionResponse, AdmissionReview } from "../../runtime/webhook/review_types.ts";
import { webhookRoutes } from "../../runtime/webhook/webhook.ts";
import { reviewThroughRoute } from "../../testing/apiserver/admission_review.ts";
import { FakeCluster } from "../../testing/mod.ts";
import { multiSecretWebhook } from "./webhook.ts";
import { type MultiSecret, multiSecretCrds, MultiSecretType } from "./schema.ts";

function multiSecret(namespace: string, name: string, spec: MultiSecret["spec"]): MultiSecret {
  return { apiVersion: "multi.ddnw.ml/v1alpha1", kind: "MultiSecret", metadata: { name, namespace }, spec };
}

async function admit(cluster: FakeCluster, object: MultiSecret, oldObject?: MultiSecret): Promise<AdmissionResponse> {
  const [route] = webhookRoutes([multiSecretWebhook({ client: cluster.client })]);
  assert.equal(route.path, "/validate-multi-ddnw-ml-v1alpha1-multisecret");
  return await reviewThroughRoute(route, MultiSecretType, {
    operation: oldObject ? "UPDATE" : "CREATE",
    object,
    oldObject,
  });
}

async function cluster(): Promise<FakeCluster> {
  const c = new FakeCluster({ crds: multiSecretCrds() });
  for (const [name, team] of [["a", "red"], ["b", "red"], ["c", "blue"], ["d", "red"], ["e", "red"]]) {
    await c.client.create(CoreTypes.Namespace, { metadata: { name, labels: { team } } });
  }
  // Owns Secret "shared" in every red namespace.
  await c.client.create(
    MultiSecretType,
    multiSecret("a", "first", { secretName: "shared", namespaceSelector: { matchLabels: { team: "red" } } }),
  );
  return c;
}

Deno.test("multisecret webhook refuses a second MultiSecret wanting the same Secret in the same namespaces", async () => {
  const c = await cluster();
  const clash = await admit(c, multiSecret("b", "shared", {})); // name defaults to "shared", every namespace
  assert.equal(clash.allowed, false);
  assert.equal(clash.status?.code, 422);
  assert.equal(
    clash.status?.message,
    'spec.secretName: Secret "shared" in namespaces a, b, d and 1 more is already wanted by MultiSecret a/first; ' +
      "choose another spec.secretName or narrow spec.namespaceSelector",
  );
  // Same name, disjoint namespaces; or another name: fine.
  const blue = multiSecret("c", "second", {
    secretName: "shared",
    namespaceSelector: { matchLabels: { team: "blue" } },
  });
  assert.equal((await admit(c, blue)).allowed, true);
  assert.equal((await admit(c, multiSecret("a", "other", {}))).allowed, true);
});

Deno.test("multisecret webhook: an update keeping name and selector is not re-checked; the object itself never clashes", async () => {
  const c = await cluster();
  const first = multiSecret("a", "first", {
    secretName: "shared",
    namespaceSelector: { matchLabels: { team: "red" } },
  });
  assert.equal((await admit(c, { ...first, spec: { ...first.spec, stringData: { k: "v" } } }, first)).allowed, true);
  const widened = await admit(c, multiSecret("c", "x", { secretName: "shared" }), multiSecret("c", "x", {}));
  assert.equal(widened.allowed, false, "renaming its children into a clash is refused");
});

Deno.test("the mutating webhook defaults spec.secretName to the MultiSecret's name on CREATE (a JSON patch)", async () => {
  const route = webhookRoutes([multiSecretWebhook({ client: new FakeCluster().client })])
    .find((r) => r.path === "/mutate-multi-ddnw-ml-v1alpha1-multisecret");
  assert.ok(route, "served at controller-runtime's mutate path");
  const mutate = async (object: MultiSecret) => {
    const review: AdmissionReview = {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "m",
        kind: { group: "multi.ddnw.ml", version: "v1alpha1", kind: "MultiSecret" },
        resource: { group: "multi.ddnw.ml", version: "v1alpha1", resource: "multisecrets" },
        operation: "CREATE",
        userInfo: {},
        object,
      },
    };
    const response = ((await route.serve(review, new AbortController().signal)).body as AdmissionReview).response!;
    assert.equal(response.allowed, true);
    return response.patch ? JSON.parse(atob(response.patch)) : [];
  };
  assert.deepEqual(await mutate(multiSecret("a", "creds", { stringData: { k: "v" } })), [
    { op: "add", path: "/spec/secretName", value: "creds" },
  ]);
  assert.deepEqual(await mutate(multiSecret("a", "creds", { secretName: "other" })), [], "an explicit name is kept");
  const generated = { ...multiSecret("a", "", {}), metadata: { generateName: "ms-", namespace: "a" } };
  assert.deepEqual(await mutate(generated), [], "no name yet: left to the controller's fallback");
});
