// The fake API server's admission webhooks where a real kube-apiserver cannot be made to show the behaviour (v1
// validation forbids sideEffects Some; a malformed answer; a write racing the webhook call) and the matching rules.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { type AdmissionAttributes, ruleMatches } from "../testing/apiserver/admission_match.ts";
import type { ResourceDef } from "../testing/apiserver/resource_def.ts";
import { startTestWebhook } from "./conformance/admission_webhook_server.ts";
import { convert, lengthCrd, startConversionWebhook } from "./conformance/crd_conversion.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const MWC = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

function webhook(name: string, clientConfig: unknown, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig,
    rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

Deno.test("rules: `*` is the resource only, `*/*` and `res/sub` reach subresources; scope Cluster covers Namespaces", () => {
  const def = (plural: string, namespaced = true) =>
    ({ group: "apps", version: "v1", plural, namespaced }) as ResourceDef;
  const attrs = (d: ResourceDef, subresource = "", namespace = "ns") =>
    ({ operation: "UPDATE", def: d, subresource, namespace, name: "x" }) as AdmissionAttributes;
  const rule = (resources: string[], scope?: string) => ({
    operations: ["*"],
    apiGroups: ["apps"],
    apiVersions: ["*"],
    resources,
    scope,
  });
  const deployments = def("deployments");
  assert.ok(ruleMatches(rule(["*"]), attrs(deployments), deployments));
  assert.ok(!ruleMatches(rule(["*"]), attrs(deployments, "status"), deployments));
  assert.ok(ruleMatches(rule(["*/*"]), attrs(deployments, "status"), deployments));
  assert.ok(ruleMatches(rule(["deployments/status"]), attrs(deployments, "status"), deployments));
  assert.ok(!ruleMatches(rule(["deployments/status"]), attrs(deployments), deployments));
  assert.ok(ruleMatches(rule(["deployments/*"]), attrs(deployments, "scale"), deployments));
  assert.ok(!ruleMatches(rule(["*"], "Cluster"), attrs(deployments), deployments));
  assert.ok(ruleMatches(rule(["*"], "Namespaced"), attrs(deployments), deployments));
  const namespaces = { ...def("namespaces", false), group: "" };
  const nsRule = { ...rule(["namespaces"], "Cluster"), apiGroups: [""] };
  assert.ok(ruleMatches(nsRule, attrs(namespaces, "", "x"), namespaces));
  assert.ok(!ruleMatches({ ...nsRule, scope: "Namespaced" }, attrs(namespaces, "", "x"), namespaces));
});

Deno.test("a webhook with side effects cannot be registered; a wrong response uid follows failurePolicy", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const hook = await startTestWebhook({
    "/ok": () => ({ allowed: true }),
    "/wrong-uid": () =>
      new Response(JSON.stringify({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        response: { uid: "not-the-request", allowed: true },
      })),
  });
  try {
    const cc = (path: string) => ({ url: hook.url(path), caBundle: hook.caBundle });
    // sideEffects Some/Unknown (which a dry run would refuse) cannot be stored: v1 validation refuses them.
    const sideEffects = webhook("some.example.com", cc("/ok"), { sideEffects: "Some" });
    assert.equal((await call(s.url, "POST", VWC, { metadata: { name: "side" }, webhooks: [sideEffects] })).status, 422);
    assert.equal((await call(s.url, "POST", `${CM}?dryRun=All`, { metadata: { name: "dry" } })).status, 201);

    const wrong = webhook("uid.example.com", cc("/wrong-uid"));
    assert.equal((await call(s.url, "POST", VWC, { metadata: { name: "uid" }, webhooks: [wrong] })).status, 201);
    const failed = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    assert.equal(failed.status, 500);
    assert.match(
      failed.body.message,
      /^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid=/,
    );
    const ignoring = { ...wrong, failurePolicy: "Ignore" };
    // Webhook configurations refuse unconditional updates (as kube's strategy does): the PUT names the version.
    const { resourceVersion } = (await call(s.url, "GET", `${VWC}/uid`)).body.metadata;
    assert.equal(
      (await call(s.url, "PUT", `${VWC}/uid`, { metadata: { name: "uid", resourceVersion }, webhooks: [ignoring] }))
        .status,
      200,
    );
    assert.equal((await call(s.url, "POST", CM, { metadata: { name: "b" } })).status, 201);
  } finally {
    await hook.stop();
    await s.stop();
  }
});

Deno.test("an update racing the webhook call: admission runs again on the new stored object", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  let calls = 0;
  const hook = await startTestWebhook({
    "/mutate": (req) => {
      calls++;
      if (calls === 1) {
        // Another writer commits while the webhook is being called.
        const current = s.store.get({ group: "", version: "v1", plural: "configmaps" }, "raced", {
          namespace: "default",
        });
        current.data = { ...current.data, other: "writer" };
        s.store.update({ group: "", version: "v1", plural: "configmaps" }, current, { namespace: "default" });
      }
      const seen = (req.oldObject?.data ?? {}) as Record<string, string>;
      return { allowed: true, warnings: [`old had other=${seen.other ?? "-"}`] };
    },
  });
  try {
    assert.equal((await call(s.url, "POST", CM, { metadata: { name: "raced" }, data: { a: "1" } })).status, 201);
    const cfg = {
      metadata: { name: "race" },
      webhooks: [webhook("race.example.com", { url: hook.url("/mutate"), caBundle: hook.caBundle })],
    };
    assert.equal((await call(s.url, "POST", MWC, cfg)).status, 201);
    const put = await call(s.url, "PUT", `${CM}/raced`, { metadata: { name: "raced" }, data: { a: "2" } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(calls, 2, "the webhook is called again for the new old object");
    assert.equal(put.headers.get("warning"), '299 - "old had other=writer"');
  } finally {
    await hook.stop();
    await s.stop();
  }
});

Deno.test("matchPolicy Equivalent on a CRD with a conversion webhook: the webhook's version is converted by it", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const conversion = await startConversionWebhook((req) => req.objects.map((o) => convert(o, req.desiredAPIVersion)));
  const hook = await startTestWebhook({ "/v2": () => ({ allowed: true }) });
  try {
    const crd = lengthCrd(conversion.caBundle, conversion.url);
    assert.equal(
      (await call(s.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
      201,
    );
    const group = crd.spec.group;
    const v2Only = webhook("v2.example.com", { url: hook.url("/v2"), caBundle: hook.caBundle }, {
      rules: [{ operations: ["CREATE"], apiGroups: [group], apiVersions: ["v2"], resources: ["rulers"] }],
    });
    assert.equal((await call(s.url, "POST", VWC, { metadata: { name: "v2" }, webhooks: [v2Only] })).status, 201);
    const ruler = { apiVersion: `${group}/v1`, kind: "Ruler", metadata: { name: "r" }, spec: { size: 7 } };
    const made = await call(s.url, "POST", `/apis/${group}/v1/namespaces/default/rulers`, ruler);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const [req] = hook.received("/v2");
    assert.equal(req.kind.version, "v2");
    assert.equal(req.requestKind?.version, "v1");
    assert.deepEqual(req.object?.spec, { length: 7 }, "converted by the conversion webhook, not relabelled");
  } finally {
    await hook.stop();
    await conversion.stop();
    await s.stop();
  }
});

Deno.test("a server-side apply whose webhook takes seconds settles: managedFields' time is not part of the replayed input", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock });
  let calls = 0;
  const hook = await startTestWebhook({
    "/slow": async () => {
      calls++;
      await clock.advance(2_000); // the webhook takes two seconds: the next run stamps another time
      return { allowed: true };
    },
  });
  try {
    const cfg = {
      metadata: { name: "slow" },
      webhooks: [webhook("slow.example.com", { url: hook.url("/slow"), caBundle: hook.caBundle })],
    };
    assert.equal((await call(s.url, "POST", MWC, cfg)).status, 201);
    const applied = await call(
      s.url,
      "PATCH",
      `${CM}/applied?fieldManager=test`,
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { a: "1" } }),
      { "content-type": "application/apply-patch+yaml" },
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(calls, 1);
  } finally {
    await hook.stop();
    await s.stop();
  }
});

Deno.test("a policy validation the fake cannot evaluate (authorizer) is skipped with a warning, not a denial", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const policy = {
      metadata: { name: "authz" },
      spec: {
        matchConstraints: {
          resourceRules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
        },
        validations: [
          { expression: "authorizer.group('').resource('secrets').check('get').allowed()" },
          { expression: "object.metadata.name != 'forbidden'", message: "not this name" },
        ],
      },
    };
    const binding = { metadata: { name: "authz" }, spec: { policyName: "authz", validationActions: ["Deny"] } };
    const vap = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolic";
    assert.equal((await call(s.url, "POST", `${vap}ies`, policy)).status, 201);
    assert.equal((await call(s.url, "POST", `${vap}ybindings`, binding)).status, 201);
    const ok = await call(s.url, "POST", CM, { metadata: { name: "fine" } });
    assert.equal(ok.status, 201);
    assert.match(
      ok.headers.get("warning") ?? "",
      /did not evaluate expression .*authorizer.*unsupported CEL: the authorizer variable/,
    );
    const denied = await call(s.url, "POST", CM, { metadata: { name: "forbidden" } });
    assert.equal(denied.status, 422);
    assert.equal(
      denied.body.message,
      "configmaps \"forbidden\" is forbidden: ValidatingAdmissionPolicy 'authz' with binding 'authz' denied request: not this name",
    );
  } finally {
    await s.stop();
  }
});

Deno.test("validating webhooks are called at once: one that waits for the other's call is answered in time", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  let secondCalled!: () => void;
  const second = new Promise<void>((resolve) => secondCalled = resolve);
  const hook = await startTestWebhook({
    // Called first in configuration order; answers only once the second webhook was called too.
    "/a": async () => {
      await second;
      return { allowed: true };
    },
    "/b": () => {
      secondCalled();
      return { allowed: true, warnings: ["b"] };
    },
  });
  try {
    const cc = (path: string) => ({ url: hook.url(path), caBundle: hook.caBundle });
    const cfg = {
      metadata: { name: "parallel" },
      webhooks: [
        webhook("a.example.com", cc("/a"), { timeoutSeconds: 5 }),
        webhook("b.example.com", cc("/b")),
      ],
    };
    assert.equal((await call(s.url, "POST", VWC, cfg)).status, 201);
    const made = await call(s.url, "POST", CM, { metadata: { name: "p" } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.headers.get("warning"), '299 - "b"');
  } finally {
    secondCalled();
    await hook.stop();
    await s.stop();
  }
});

Deno.test("a pod behind a webhook settles: ServiceAccount admission's token volume name is the same on every replay", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  let calls = 0;
  const hook = await startTestWebhook({
    "/pods": () => {
      calls++;
      return { allowed: true };
    },
  });
  try {
    const pods = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
    const cfg = {
      metadata: { name: "pods" },
      webhooks: [webhook("pods.example.com", { url: hook.url("/pods"), caBundle: hook.caBundle }, { rules: [pods] })],
    };
    assert.equal((await call(s.url, "POST", MWC, cfg)).status, 201);
    const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const created = await call(s.url, "POST", "/api/v1/namespaces/default/pods", pod);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.spec.volumes[0].name, /^kube-api-access-/);
    assert.equal(calls, 1);
  } finally {
    await hook.stop();
    await s.stop();
  }
});
