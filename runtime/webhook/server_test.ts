import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { applyJsonPatch } from "../apimachinery/json_patch.ts";
import { VirtualClock } from "../clock.ts";
import { Metrics } from "../observe/metrics.ts";
import { type CertAuthority, createCA } from "../http/pki.ts";
import { startRunnable } from "../manager/runnable.ts";
import { AdmissionDenied, denied } from "./admission.ts";
import type { AdmissionRequest, AdmissionReview, ConversionReview } from "./review_types.ts";
import { WebhookServer, type WebhookServerOptions } from "./server.ts";
import { type RegisteredWebhook, Webhook, webhookRoutes } from "./webhook.ts";

type Widget = { apiVersion?: string; kind?: string; metadata: Record<string, unknown>; spec: Record<string, unknown> };
const WIDGETS = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };

interface Harness {
  server: WebhookServer;
  metrics: Metrics;
  post(
    path: string,
    body: unknown,
    init?: { contentType?: string; method?: string; query?: string },
  ): Promise<Response>;
  close(): Promise<void>;
}

let ca: CertAuthority | undefined;
async function serving() {
  ca ??= await createCA({ commonName: "webhook-test-ca" });
  return { ca, leaf: await ca.issue({ commonName: "webhook", hosts: ["127.0.0.1"], usage: "server" }) };
}

async function start(webhooks: RegisteredWebhook[], extra: Partial<WebhookServerOptions> = {}): Promise<Harness> {
  const { ca, leaf } = await serving();
  const metrics = new Metrics();
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: webhookRoutes(webhooks),
    metrics,
    ...extra,
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await run.ready;
  const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  return {
    server,
    metrics,
    post: (path, body, init = {}) =>
      fetch(`${server.url}${path}${init.query ?? ""}`, {
        method: init.method ?? "POST",
        headers: { "content-type": init.contentType ?? "application/json" },
        body: init.method === "GET" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        client,
      }),
    close: async () => {
      client.close();
      stop.abort();
      await run.done;
    },
  };
}

function admissionReview(request: Partial<AdmissionRequest>): AdmissionReview {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "uid-1",
      kind: { group: "example.com", version: "v1", kind: "Widget" },
      resource: { group: "example.com", version: "v1", resource: "widgets" },
      operation: "CREATE",
      userInfo: { username: "alice" },
      ...request,
    },
  };
}

function widget(spec: Record<string, unknown>): Widget {
  return { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "ns" }, spec };
}

async function response(res: Response) {
  assert.equal(res.status, 200, `HTTP ${res.status}`);
  return ((await res.json()) as AdmissionReview).response!;
}

Deno.test("validating webhook over HTTPS: allows, denies with the handler's message, echoes the uid, warns", async () => {
  const h = await start([
    new Webhook<Widget>(WIDGETS).validate(({ object, warn, dryRun }) => {
      if (dryRun) warn("dry run");
      return Number(object?.spec.size) > 10 ? denied("spec.size: must be at most 10") : undefined;
    }),
  ]);
  try {
    const ok = await response(
      await h.post("/validate-example-com-v1-widget", admissionReview({ object: widget({ size: 3 }), dryRun: true })),
    );
    assert.deepEqual(ok, { uid: "uid-1", allowed: true, warnings: ["dry run"] });
    const refused = await response(
      await h.post("/validate-example-com-v1-widget", admissionReview({ uid: "u2", object: widget({ size: 11 }) })),
    );
    assert.equal(refused.uid, "u2");
    assert.equal(refused.allowed, false);
    assert.equal(refused.status?.code, 403);
    assert.equal(refused.status?.message, "spec.size: must be at most 10");
    assert.equal(
      await h.metrics.value("controller_runtime_webhook_requests_total", {
        webhook: "/validate-example-com-v1-widget",
        code: "200",
      }),
      2,
    );
    assert.equal(
      await h.metrics.value("controller_runtime_webhook_latency_seconds", {
        webhook: "/validate-example-com-v1-widget",
      }),
      2,
    );
  } finally {
    await h.close();
  }
});

Deno.test("a handler that throws is answered 200 with allowed:false and code 500; AdmissionDenied is a 403", async () => {
  const h = await start([
    new Webhook<Widget>(WIDGETS)
      .validate(({ object }) => {
        if (object?.spec.deny) throw new AdmissionDenied("refused by rule", { code: 422, reason: "Invalid" });
        throw new Error("lookup of node n1 failed");
      })
      .default(() => {
        throw new TypeError("defaulting exploded");
      }),
  ]);
  try {
    const errored = await response(
      await h.post("/validate-example-com-v1-widget", admissionReview({ object: widget({}) })),
    );
    assert.equal(errored.allowed, false);
    assert.equal(errored.status?.code, 500);
    assert.equal(errored.status?.message, "lookup of node n1 failed");
    const deniedByThrow = await response(
      await h.post("/validate-example-com-v1-widget", admissionReview({ object: widget({ deny: true }) })),
    );
    assert.deepEqual([deniedByThrow.allowed, deniedByThrow.status?.code, deniedByThrow.status?.reason], [
      false,
      422,
      "Invalid",
    ]);
    const mutateErrored = await response(
      await h.post("/mutate-example-com-v1-widget", admissionReview({ object: widget({}) })),
    );
    assert.equal(mutateErrored.status?.code, 500);
    assert.equal(mutateErrored.patch, undefined);
  } finally {
    await h.close();
  }
});

Deno.test("mutating webhook answers the JSON patch from the request's object to the handler's result", async () => {
  const h = await start([
    new Webhook<Widget>(WIDGETS).default(({ object }) => {
      const out = structuredClone(object!);
      out.spec.size ??= 1;
      delete out.spec.legacy;
      (out.metadata.labels as Record<string, string>)["app.kubernetes.io/name"] = "widget";
      return out;
    }),
  ]);
  try {
    const original = { ...widget({ legacy: "x", tags: ["a"] }), metadata: { name: "w", labels: { keep: "1" } } };
    const res = await response(await h.post("/mutate-example-com-v1-widget", admissionReview({ object: original })));
    assert.equal(res.allowed, true);
    assert.equal(res.patchType, "JSONPatch");
    const patch = JSON.parse(atob(res.patch!));
    assert.deepEqual(applyJsonPatch(original, patch), {
      ...original,
      metadata: { name: "w", labels: { keep: "1", "app.kubernetes.io/name": "widget" } },
      spec: { tags: ["a"], size: 1 },
    });
    const unchanged = {
      ...widget({ size: 2 }),
      metadata: { name: "w", labels: { "app.kubernetes.io/name": "widget" } },
    };
    const none = await response(await h.post("/mutate-example-com-v1-widget", admissionReview({ object: unchanged })));
    assert.deepEqual(none, { uid: "uid-1", allowed: true });
  } finally {
    await h.close();
  }
});

Deno.test("malformed reviews and bad requests get 4xx with a message and never reach a handler", async () => {
  let calls = 0;
  const h = await start([new Webhook<Widget>(WIDGETS).validate(() => void calls++)], { maxBodyBytes: 1024 });
  const path = "/validate-example-com-v1-widget";
  try {
    const cases: [string, Response, number, RegExp][] = [
      ["not JSON", await h.post(path, "{not json"), 400, /not JSON/],
      ["wrong kind", await h.post(path, { apiVersion: "v1", kind: "Pod" }), 400, /AdmissionReview/],
      [
        "no request",
        await h.post(path, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
        400,
        /request/,
      ],
      ["no uid", await h.post(path, admissionReview({ uid: "" })), 400, /uid/],
      ["bad operation", await h.post(path, admissionReview({ operation: "PATCH" as "CREATE" })), 400, /operation/],
      ["object not an object", await h.post(path, admissionReview({ object: [] as never })), 400, /object/],
      ["a JSON array", await h.post(path, "[]"), 400, /not a JSON object/],
      ["wrong content type", await h.post(path, "{}", { contentType: "text/plain" }), 400, /application\/json/],
      ["too large", await h.post(path, admissionReview({ object: widget({ x: "y".repeat(2048) }) })), 413, /larger/],
      ["unknown path", await h.post("/validate-nope", admissionReview({})), 404, /no webhook/],
      ["GET", await h.post(path, undefined, { method: "GET" }), 405, /POST/],
    ];
    for (const [what, res, status, message] of cases) {
      assert.equal(res.status, status, what);
      assert.match(await res.text(), message, what);
    }
    assert.equal(calls, 0);
    // Still serving after all that.
    assert.equal((await response(await h.post(path, admissionReview({ object: widget({}) })))).allowed, true);
    assert.equal(await h.metrics.value("controller_runtime_webhook_requests_total", { webhook: path, code: "400" }), 8);
  } finally {
    await h.close();
  }
});

Deno.test("a handler past the request's ?timeout= is answered 504 and its signal aborts", async () => {
  const clock = new VirtualClock();
  let aborted: unknown = undefined;
  const h = await start([
    new Webhook<Widget>(WIDGETS).validate(({ signal }) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => (aborted = signal.reason, resolve()), { once: true })
      )
    ),
  ], { clock });
  const path = "/validate-example-com-v1-widget";
  try {
    const pending = h.post(path, admissionReview({ object: widget({}) }), { query: "?timeout=5s" });
    await eventually(
      "the request in flight",
      async () => await h.metrics.value("controller_runtime_webhook_requests_in_flight", { webhook: path }) === 1,
    );
    await clock.advance(4_999);
    assert.equal(aborted, undefined);
    await clock.advance(1);
    const res = await pending;
    assert.equal(res.status, 504);
    assert.match(await res.text(), /within 5000 ms/);
    assert.ok((aborted as unknown) instanceof DOMException);
    assert.equal(await h.metrics.value("controller_runtime_webhook_requests_in_flight", { webhook: path }), 0);
  } finally {
    await h.close();
  }
});

Deno.test("conversion over HTTPS: hub and spoke round trip keeps order, uids and metadata", async () => {
  type V1 = Widget & { spec: { size: number } };
  type V2 = Widget & { spec: { sizes: number[] } };
  const h = await start([
    new Webhook<Widget>(WIDGETS).convert<V2>("example.com/v2", [{
      apiVersion: "example.com/v1",
      toHub: (o: V1) => ({ ...o, spec: { sizes: [o.spec.size] } }) as V2,
      fromHub: (o: V2) => ({ ...o, spec: { size: o.spec.sizes[0] } }) as V1,
    }]),
  ]);
  const objects = [1, 2, 3].map((i) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: `w${i}`, uid: `uid-${i}`, resourceVersion: `${i}`, labels: { i: `${i}` } },
    spec: { size: i },
  }));
  const convert = async (desiredAPIVersion: string, objs: unknown[]) => {
    const review: ConversionReview = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "c1", desiredAPIVersion, objects: objs as Record<string, unknown>[] },
    };
    const res = await h.post("/convert", review);
    assert.equal(res.status, 200);
    return ((await res.json()) as ConversionReview).response!;
  };
  try {
    const up = await convert("example.com/v2", objects);
    assert.equal(up.uid, "c1");
    assert.equal(up.result.status, "Success");
    assert.deepEqual(up.convertedObjects.map((o) => [o.apiVersion, (o.metadata as { uid: string }).uid, o.spec]), [
      ["example.com/v2", "uid-1", { sizes: [1] }],
      ["example.com/v2", "uid-2", { sizes: [2] }],
      ["example.com/v2", "uid-3", { sizes: [3] }],
    ]);
    const down = await convert("example.com/v1", up.convertedObjects);
    assert.deepEqual(down.convertedObjects, objects);
    const unknown = await convert("example.com/v9", objects);
    assert.equal(unknown.result.status, "Failure");
    assert.match(unknown.result.message!, /no converter to example.com\/v9/);
    const malformed = await h.post("/convert", { apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview" });
    assert.equal(malformed.status, 400);
  } finally {
    await h.close();
  }
});

Deno.test("a converter that changes metadata other than labels and annotations is refused", async () => {
  const h = await start([
    new Webhook<Widget>(WIDGETS).convert("example.com/v2", [{
      apiVersion: "example.com/v1",
      toHub: (o: Widget) => ({ ...o, metadata: { ...o.metadata, name: "renamed", labels: { l: "ok" } } }),
      fromHub: (o: Widget) => o,
    }]),
  ]);
  try {
    const res = await h.post("/convert", {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      request: { uid: "c2", desiredAPIVersion: "example.com/v2", objects: [widget({})] },
    });
    const review = (await res.json()) as ConversionReview;
    assert.equal(review.response?.result.status, "Failure");
    assert.match(review.response!.result.message!, /changed metadata other than labels and annotations/);
  } finally {
    await h.close();
  }
});

Deno.test("the server speaks TLS 1.2 and 1.3 (kube-apiserver clients use either)", async () => {
  // Deno's TLS (rustls) implements nothing below 1.2 on either side, so older versions cannot even be offered here;
  // minVersion TLSv1.2 keeps it so should the engine change.
  const h = await start([new Webhook<Widget>(WIDGETS).validate(() => {})]);
  try {
    const tls = await import("node:tls");
    const port = Number(new URL(h.server.url!).port);
    const negotiate = (maxVersion: "TLSv1.2" | "TLSv1.3") =>
      new Promise<string>((resolve) => {
        const socket = tls.connect({ host: "127.0.0.1", port, maxVersion, ca: [ca!.certPEM] });
        socket.once("secureConnect", () => {
          resolve(String(socket.getProtocol()));
          socket.destroy();
        });
        socket.once("error", (err) => resolve(`refused: ${err.message}`));
      });
    assert.equal(await negotiate("TLSv1.2"), "TLSv1.2");
    assert.equal(await negotiate("TLSv1.3"), "TLSv1.3");
  } finally {
    await h.close();
  }
});

Deno.test("without a certificate the server is never ready and start rejects naming the cause", async () => {
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: {
      initial: () => Promise.reject(new Error("reading /certs/tls.crt: not found")),
      watch: () => Promise.resolve(),
    },
  });
  const run = startRunnable(server, new AbortController().signal);
  await assert.rejects(run.ready, /no serving certificate: reading \/certs\/tls.crt: not found/);
  await assert.rejects(run.done, /no serving certificate/);
  assert.equal(server.url, undefined);
});

Deno.test("a route that rejects is answered 500 and the server keeps serving", async () => {
  const { ca, leaf } = await serving();
  let fail = true;
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: [{
      path: "/flaky",
      serve: (body) => fail ? Promise.reject(new Error("boom")) : Promise.resolve({ status: 200, body }),
    }],
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await run.ready;
  const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  const post = () =>
    fetch(`${server.url}/flaky`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      client,
    });
  try {
    const failed = await post();
    assert.equal(failed.status, 500);
    await failed.body?.cancel();
    fail = false;
    const ok = await post();
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), {});
  } finally {
    client.close();
    stop.abort();
    await run.done;
  }
});

Deno.test("stopping lets a review in flight finish, then closes", async () => {
  const { ca, leaf } = await serving();
  const clock = new VirtualClock();
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  const metrics = new Metrics();
  const server = new WebhookServer({
    bindAddress: "127.0.0.1:0",
    certificates: { initial: () => Promise.resolve(leaf), watch: () => Promise.resolve() },
    routes: webhookRoutes([new Webhook<Widget>(WIDGETS).validate(() => released)]),
    metrics,
    clock,
  });
  const stop = new AbortController();
  const run = startRunnable(server, stop.signal);
  await run.ready;
  const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
  const path = "/validate-example-com-v1-widget";
  try {
    const pending = fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(admissionReview({ object: widget({}) })),
      client,
    });
    await eventually(
      "the review in flight",
      async () => await metrics.value("controller_runtime_webhook_requests_in_flight", { webhook: path }) === 1,
    );
    stop.abort(); // before the handler answers: its connection must survive the stop
    await eventually("the server to refuse new connections", async () => {
      try {
        const other = Deno.createHttpClient({ caCerts: [ca.certPEM] });
        try {
          await (await fetch(`${server.url}${path}`, { method: "GET", client: other })).body?.cancel();
        } finally {
          other.close();
        }
        return false;
      } catch {
        return true;
      }
    });
    release();
    assert.equal((await response(await pending)).allowed, true);
    await run.done;
  } finally {
    client.close();
    stop.abort();
    release();
  }
});
