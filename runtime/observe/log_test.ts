import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import {
  captureSink,
  configureLogging,
  ensureDefaultLogging,
  isDefaultLogging,
  kubeopLogger,
  reconcileLogger,
  REDACTED,
} from "./log.ts";

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

const reconcileFields = {
  controller: "machine",
  controllerGroup: "useless.container.training",
  controllerKind: "Machine",
  namespace: "ns",
  name: "a",
  reconcileID: "r1",
};

Deno.test("reconcile loggers carry controller-runtime's fields as flat zap JSON", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "json", write: (l) => lines.push(l) });
  try {
    const log = reconcileLogger(kubeopLogger("controller"), reconcileFields);
    log.info("reconciled");
    log.debug("below the level");
    assert.equal(lines.length, 1);
    const rec = JSON.parse(lines[0]);
    assert.deepEqual(Object.keys(rec).slice(0, 4), ["ts", "level", "logger", "msg"]);
    assert.equal(rec.level, "info");
    assert.equal(rec.logger, "kubeop.controller");
    assert.equal(rec.msg, "reconciled");
    for (const [k, v] of Object.entries(reconcileFields)) assert.equal(rec[k], v, k);
  } finally {
    await reset();
  }
});

Deno.test("cluster-scoped objects log no namespace field", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "json", write: (l) => lines.push(l) });
  try {
    reconcileLogger(kubeopLogger("c"), { ...reconcileFields, namespace: "" }).info("x");
    assert.equal("namespace" in JSON.parse(lines[0]), false);
  } finally {
    await reset();
  }
});

Deno.test("text format: message, then the fields as key=value; warning is WARN", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "text", write: (l) => lines.push(l) });
  try {
    kubeopLogger("x").warn("hello {who}", { who: "the world" });
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^\S+Z WARN kubeop\.x hello the world who="the world"\n$/);
  } finally {
    await reset();
  }
});

Deno.test("an Error in a message renders as its message, never {}", async () => {
  for (const format of ["json", "text"] as const) {
    const lines: string[] = [];
    await configureLogging({ format, write: (l) => lines.push(l) });
    try {
      kubeopLogger("x").error("failed: {error}", { error: new Error("connection refused") });
      assert.ok(lines[0].includes("failed: connection refused"), lines[0]);
      assert.ok(!lines[0].includes("{}"), lines[0]);
    } finally {
      await reset();
    }
  }
});

Deno.test("values interpolated into a message are redacted by their placeholder name", async () => {
  const lines: string[] = [];
  await configureLogging({ format: "text", write: (l) => lines.push(l) });
  try {
    const log = kubeopLogger("x");
    log.info("logging in with {token} as {user}", { token: "s3cr3t-token", user: "alice" });
    log.info("got {secret}", { secret });
    log.error("request failed: {error}", { error: new Error("401 for Bearer eyJhbGciOi.abc.def") });
    log.info("config {cfg.password}", { cfg: { password: "hunter2" } });
    const text = lines.join("");
    for (const leaked of ["s3cr3t-token", "aHVudGVyMg==", "hunter2", "eyJhbGciOi"]) {
      assert.ok(!text.includes(leaked), `leaked ${leaked}: ${text}`);
    }
    assert.ok(text.includes("logging in with [REDACTED] as alice"), text);
  } finally {
    await reset();
  }
});

Deno.test("default logging turns on only when nothing is configured and never replaces a configuration", async () => {
  await reset();
  try {
    assert.equal(ensureDefaultLogging(), true);
    assert.equal(isDefaultLogging(), true);
    assert.equal(ensureDefaultLogging(), false, "already configured");
    await reset();
    const capture = captureSink();
    await configureLogging({ sink: capture.sink });
    assert.equal(ensureDefaultLogging(), false);
    assert.equal(isDefaultLogging(), false);
    kubeopLogger("x").info("kept");
    assert.equal(capture.records.length, 1, "the application's sink still receives records");
  } finally {
    await reset();
  }
});
