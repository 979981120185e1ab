/**
 * Conformance cases: CRD conversion webhooks (`spec.conversion.strategy: Webhook`). A CRD serves v1 (storage,
 * `spec.size`) and v2 (`spec.length`); the test's HTTPS webhook converts ConversionReview v1 requests between them.
 * Reads, lists, watch events and writes in v2 go through it on both servers.
 * @module
 */
import assert from "node:assert/strict";
import type { ConversionReview } from "../../runtime/webhook/review_types.ts";
import { eventually } from "../../testing/eventually.ts";
import { withObjects } from "./admission_webhooks_support.ts";
import { type ServeTls, serveWithOwnCA } from "./admission_webhook_server.ts";
import { call, CRD_PATH, type Json, twoVersionCrd } from "./crd_helpers.ts";
import { type ConformanceCase, POLL, readEvents } from "./support.ts";

const GROUP = "conversion.conformance.kubeop.dev";

/** v1 `spec.size` ⇄ v2 `spec.length`; everything else (metadata included) as sent. */
export function convert(obj: Json, desired: string): Json {
  const out = { ...obj, apiVersion: desired, spec: { ...obj.spec } };
  if (desired.endsWith("/v2") && "size" in out.spec) {
    out.spec.length = out.spec.size;
    delete out.spec.size;
  }
  if (desired.endsWith("/v1") && "length" in out.spec) {
    out.spec.size = out.spec.length;
    delete out.spec.length;
  }
  return out;
}

/** The Ruler CRD: v1 (storage, `spec.size`) and v2 (`spec.length`), converted by the webhook at `url`. */
export function lengthCrd(caBundle: string, url: string): Json {
  return twoVersionCrd(GROUP, "Ruler", { v1: "size", v2: "length" }, {
    strategy: "Webhook",
    webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ["v1"] },
  });
}

const Ruler = (version: string) => ({ group: GROUP, version, plural: "rulers", kind: "Ruler", namespaced: true });

export const crdConversionCases: ConformanceCase[] = [
  {
    name: "conversion webhook: get, list, watch and writes in v2 of objects stored in v1",
    run: async ({ client, ns }) => {
      const reviews: ConversionReview["request"][] = [];
      const conv = await startConversionWebhook((req) => {
        reviews.push(req);
        return req.objects.map((o) => convert(o, req.desiredAPIVersion));
      });
      try {
        await withObjects(client, [[CRD_PATH, lengthCrd(conv.caBundle, conv.url)]], async () => {
          const v1 = `/apis/${GROUP}/v1/namespaces/${ns}/rulers`;
          const v2 = `/apis/${GROUP}/v2/namespaces/${ns}/rulers`;
          await eventually("v2 rulers served", async () => (await call(client, "GET", v2)).code === 200, POLL);
          const made = await call(client, "POST", v1, {
            apiVersion: `${GROUP}/v1`,
            kind: "Ruler",
            metadata: { name: "one" },
            spec: { size: 3 },
          });
          assert.equal(made.code, 201, JSON.stringify(made.body));
          const got = await call(client, "GET", `${v2}/one`);
          assert.equal(got.body.apiVersion, `${GROUP}/v2`);
          assert.deepEqual(got.body.spec, { length: 3 });
          assert.equal(got.body.metadata.uid, made.body.metadata.uid);
          const two = await call(client, "POST", v2, {
            apiVersion: `${GROUP}/v2`,
            kind: "Ruler",
            metadata: { name: "two" },
            spec: { length: 5 },
          });
          assert.equal(two.code, 201, JSON.stringify(two.body));
          assert.deepEqual(two.body.spec, { length: 5 });
          assert.deepEqual((await call(client, "GET", `${v1}/two`)).body.spec, { size: 5 });
          const list = await call(client, "GET", v2);
          assert.deepEqual(list.body.items.map((i: Json) => [i.metadata.name, i.apiVersion, i.spec]), [
            ["one", `${GROUP}/v2`, { length: 3 }],
            ["two", `${GROUP}/v2`, { length: 5 }],
          ]);
          const events = readEvents(client, Ruler("v2"), {
            namespace: ns,
            resourceVersion: list.body.metadata.resourceVersion!,
          }, 1);
          await eventually("the watch sees the change", async () => {
            const r = await client.request("PATCH", `${v1}/one`, {
              body: { spec: { size: 4 } },
              contentType: "application/merge-patch+json",
            });
            return r.status === 200;
          }, POLL);
          const [ev] = await events;
          assert.equal(ev.type, "MODIFIED");
          assert.equal(ev.object.apiVersion, `${GROUP}/v2`);
          assert.deepEqual((ev.object as Json).spec, { length: 4 });
          assert.ok(
            reviews.some((r) => r?.desiredAPIVersion === `${GROUP}/v1`),
            "a v2 write converted to v1 for storage",
          );
        });
      } finally {
        await conv.stop();
      }
    },
  },
  {
    name:
      "conversion webhook unreachable: a read in the other version is 500 'conversion webhook for <stored gvk> failed'",
    run: async ({ client, ns }) => {
      const conv = await startConversionWebhook((req) => req.objects.map((o) => convert(o, req.desiredAPIVersion)));
      const url = conv.url;
      const crd = lengthCrd(conv.caBundle, url);
      crd.metadata.name = `meters.${GROUP}`;
      crd.spec.names = { plural: "meters", singular: "meter", kind: "Meter", listKind: "MeterList" };
      let stopped = false;
      try {
        await withObjects(client, [[CRD_PATH, crd]], async () => {
          const v1 = `/apis/${GROUP}/v1/namespaces/${ns}/meters`;
          const v2 = `/apis/${GROUP}/v2/namespaces/${ns}/meters`;
          await eventually("v2 meters served", async () => (await call(client, "GET", v2)).code === 200, POLL);
          const made = await call(client, "POST", v1, {
            apiVersion: `${GROUP}/v1`,
            kind: "Meter",
            metadata: { name: "m" },
            spec: { size: 1 },
          });
          assert.equal(made.code, 201, JSON.stringify(made.body));
          await conv.stop();
          stopped = true;
          const got = await call(client, "GET", `${v2}/m`);
          assert.equal(got.code, 500, JSON.stringify(got.body));
          assert.equal(got.body.reason, "InternalError");
          // kube reports it as its storage layer's decode error of the object read.
          const prefix =
            `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /${GROUP}/meters/${ns}/m, ` +
            `ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${made.body.metadata.resourceVersion}: ` +
            `conversion webhook for ${GROUP}/v1, Kind=Meter failed: Post "${url}?timeout=30s": `;
          assert.ok(String(got.body.message).startsWith(prefix), got.body.message);
          assert.equal((await call(client, "GET", `${v1}/m`)).code, 200, "the storage version needs no conversion");
        });
      } finally {
        if (!stopped) await conv.stop();
      }
    },
  },
];

/**
 * A test HTTPS conversion webhook answering ConversionReview v1 with `convert`'s objects; `serve` makes its
 * certificate (default: signed by its own CA).
 */
export async function startConversionWebhook(
  convert: (req: NonNullable<ConversionReview["request"]>) => Json[],
  serve: ServeTls = serveWithOwnCA,
): Promise<{ url: string; caBundle: string; stop(): Promise<void> }> {
  const { server, caBundle } = await serve("conformance-conversion", [], async (req) => {
    const review = await req.json() as ConversionReview;
    const request = review.request!;
    const body: ConversionReview = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
      response: { uid: request.uid, convertedObjects: convert(request), result: { status: "Success" } },
    };
    return Response.json(body);
  });
  return {
    url: `https://127.0.0.1:${server.addr.port}/convert`,
    caBundle,
    stop: () => server.shutdown(),
  };
}
