/**
 * Conformance cases: webhooks serving a self-signed certificate made the common way, by the openssl binary
 * (`openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1`): such a
 * certificate is its own CA (basicConstraints CA:TRUE) and is also the `caBundle`. kube-apiserver (Go's crypto/tls)
 * calls an admission webhook and a CRD conversion webhook serving it; so must the fake.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { jsonPatch, type ServeTls, startTestWebhook } from "./admission_webhook_server.ts";
import { configMap, configMaps, MWC, untilInEffect, webhook, withObjects } from "./admission_webhooks_support.ts";
import { convert, lengthCrd, startConversionWebhook } from "./crd_conversion.ts";
import { call, CRD_PATH } from "./crd_helpers.ts";
import { type ConformanceCase, POLL } from "./support.ts";

/**
 * A {@link ServeTls} whose certificate and key come from `openssl req -x509` for 127.0.0.1 (the hosts asked for are
 * not named: the common recipe names only the IP); the certificate is its own `caBundle`.
 */
export const serveWithOpensslCert: ServeTls = async (name, _hosts, handler) => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-openssl-" });
  try {
    const out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=127.0.0.1`,
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        `${dir}/tls.key`,
        "-out",
        `${dir}/tls.crt`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`openssl req -x509 for ${name}: ${new TextDecoder().decode(out.stderr)}`);
    const cert = await Deno.readTextFile(`${dir}/tls.crt`);
    const key = await Deno.readTextFile(`${dir}/tls.key`);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} }, handler);
    return { server, caBundle: btoa(cert) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
};

const GROUP = "conversion.conformance.kubeop.dev";

export const webhookSelfSignedCases: ConformanceCase[] = [
  {
    name: "an admission webhook serving an openssl `req -x509` certificate (CA:TRUE, its own caBundle) is called",
    run: async ({ client, ns }) => {
      const hook = await startTestWebhook(
        {
          "/label": () => ({
            allowed: true,
            ...jsonPatch([{ op: "add", path: "/metadata/labels/seen", value: "yes" }]),
          }),
        },
        [],
        serveWithOpensslCert,
      );
      try {
        const id = "openssl";
        const name = `openssl.${ns}.conformance.kubeop.dev`;
        const cfg = {
          metadata: { name: `${ns}-openssl` },
          webhooks: [webhook(name, ns, id, { url: hook.url("/label"), caBundle: hook.caBundle }, {
            failurePolicy: "Fail",
          })],
        };
        await withObjects(client, [[MWC, cfg]], async () => {
          await untilInEffect(client, ns, id, (got) => got.code === 201 && got.body.metadata?.labels?.seen === "yes");
          const got = await call(client, "POST", configMaps(ns), configMap("openssl", id));
          assert.equal(got.code, 201, JSON.stringify(got.body));
          assert.equal(got.body.metadata.labels?.seen, "yes");
        });
      } finally {
        await hook.stop();
      }
    },
  },
  {
    name: "a conversion webhook serving an openssl `req -x509` certificate converts reads in the other version",
    run: async ({ client, ns }) => {
      const conv = await startConversionWebhook(
        (req) => req.objects.map((o) => convert(o, req.desiredAPIVersion)),
        serveWithOpensslCert,
      );
      const crd = lengthCrd(conv.caBundle, conv.url);
      crd.metadata.name = `gauges.${GROUP}`;
      crd.spec.names = { plural: "gauges", singular: "gauge", kind: "Gauge", listKind: "GaugeList" };
      try {
        await withObjects(client, [[CRD_PATH, crd]], async () => {
          const v1 = `/apis/${GROUP}/v1/namespaces/${ns}/gauges`;
          const v2 = `/apis/${GROUP}/v2/namespaces/${ns}/gauges`;
          await eventually("v2 gauges served", async () => (await call(client, "GET", v2)).code === 200, POLL);
          const made = await call(client, "POST", v1, {
            apiVersion: `${GROUP}/v1`,
            kind: "Gauge",
            metadata: { name: "g" },
            spec: { size: 7 },
          });
          assert.equal(made.code, 201, JSON.stringify(made.body));
          const got = await call(client, "GET", `${v2}/g`);
          assert.equal(got.code, 200, JSON.stringify(got.body));
          assert.deepEqual(got.body.spec, { length: 7 });
        });
      } finally {
        await conv.stop();
      }
    },
  },
];
