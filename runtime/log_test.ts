import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { captureSink, configureLogging, kubeopLogger, reconcileLogger, REDACTED } from "./log.ts";

const secret = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: {
    name: "db",
    namespace: "prod",
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": '{"stringData":{"password":"hunter2"}}' },
  },
  data: { password: "aHVudGVyMg==" },
  stringData: { password: "hunter2" },
};

Deno.test("Secret data, stringData, tokens and bearer headers never reach a sink", async () => {
  const capture = captureSink();
  await configureLogging({ sink: capture.sink, level: "debug" });
  try {
    const log = kubeopLogger("test");
    log.info("created {secret}", { secret });
    log.debug("calling with {headers}", { headers: { Authorization: "Bearer eyJhbGciOi.abc.def" } });
    log.warn("config {config}", { config: { token: "s3cr3t-token", server: "https://x" } });
    log.error("request failed: {detail}", { detail: "401 for Bearer eyJhbGciOi.abc.def" });
    log.info("listed {list}", {
      list: { kind: "SecretList", items: [{ metadata: { name: "x" }, data: { k: "aHVudGVyMg==" } }] },
    });
    log.info("kubeconfig {user}", { user: { "client-key-data": "LS0tLS1CRUdJTi", clientKeyData: "LS0tLS1CRUdJTi" } });
    const text = capture.lines().join("\n");
    for (const leaked of ["hunter2", "aHVudGVyMg==", "eyJhbGciOi", "s3cr3t-token", "LS0tLS1CRUdJTi"]) {
      assert.ok(!text.includes(leaked), `leaked ${leaked}: ${text}`);
    }
    assert.ok(text.includes("https://x"), "non-secret fields are kept");
    const logged = capture.records[0].properties.secret as typeof secret;
    assert.deepEqual(logged.data, { password: REDACTED }, "key names kept, values redacted");
    assert.equal(logged.metadata.name, "db");
  } finally {
    await reset();
  }
});

Deno.test("reconcile loggers carry controller, key and reconcileID; json lines are parseable", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "json", write: (l) => lines.push(l) });
  try {
    const log = reconcileLogger(kubeopLogger("controller"), { controller: "machine", key: "ns/a", reconcileID: "r1" });
    log.info("reconciled");
    log.debug("below the level");
    assert.equal(lines.length, 1);
    const rec = JSON.parse(lines[0]);
    assert.equal(rec.properties.controller, "machine");
    assert.equal(rec.properties.key, "ns/a");
    assert.equal(rec.properties.reconcileID, "r1");
    assert.equal(rec.message, "reconciled");
  } finally {
    await reset();
  }
});

Deno.test("text format writes one human-readable line", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "text", write: (l) => lines.push(l) });
  try {
    kubeopLogger("x").warn("hello {who}", { who: "world" });
    assert.equal(lines.length, 1);
    assert.match(lines[0], /WRN.*hello "world"|hello.*world/);
  } finally {
    await reset();
  }
});
