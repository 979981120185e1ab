/**
 * Issue 11's Secret check, extended from tests/controllers_multisecret_test.ts (happy path) and runtime/observe/log_test.ts
 * (one level): no Secret value reaches a log line or an Event at any log level — neither through structured
 * properties, nor through values interpolated into messages, nor on the failure paths (MultiSecret reconciles whose
 * child writes fail: injected 500s on create, 403s on update).
 */
import assert from "node:assert/strict";
import { type MultiSecret, MultiSecretType } from "../controllers/multisecret/schema.ts";
import { captureSink, configureLogging, kubeopLogger, type LogLevel } from "../runtime/observe/log.ts";
import { CoreTypes } from "../runtime/types.ts";
import { startEnv, waitFor } from "./controllers_env.ts";

const LEVELS: LogLevel[] = ["trace", "debug", "info", "warning", "error", "fatal"];
const VALUE = "correct-horse-battery-staple";
const VALUE_2 = "tr0ub4dor-and-3";
const LEAKS = [VALUE, btoa(VALUE), VALUE_2, btoa(VALUE_2), "eyJhbGciOi.payload.sig"];

function assertNoLeak(text: string, where: string): void {
  for (const leak of LEAKS) assert.ok(!text.includes(leak), `${where} leaked ${leak}:\n${text.slice(0, 4000)}`);
}

for (const level of LEVELS) {
  Deno.test(`log level ${level}: Secrets, tokens and headers interpolated into messages are redacted`, async () => {
    const capture = captureSink();
    await configureLogging({ sink: capture.sink, level });
    try {
      const log = kubeopLogger("secrets-test");
      const secret = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "db", namespace: "prod" },
        data: { password: btoa(VALUE) },
        stringData: { password: VALUE },
      };
      for (const method of ["trace", "debug", "info", "warn", "error", "fatal"] as const) {
        log[method]("writing {secret} for {owner}", { secret, owner: "prod/db" });
        log[method]("request {method} with {headers}", {
          method: "PUT",
          headers: { Authorization: "Bearer eyJhbGciOi.payload.sig" },
        });
        log[method]("failed: {error}", { error: "401 for Bearer eyJhbGciOi.payload.sig" });
        log[method]("listed {list}", { list: { kind: "SecretList", items: [{ data: { p: btoa(VALUE) } }] } });
        log[method]("kubeconfig user {user}", { user: { token: VALUE, password: VALUE_2 } });
      }
      const text = capture.lines().join("\n");
      const expected = 5 * (LEVELS.length - LEVELS.indexOf(level));
      assert.equal(capture.records.length, expected, `records at ${level}`);
      assertNoLeak(text, `level ${level}`);
      if (capture.records.length > 0) assert.match(text, /prod\/db/, "the rest of the message is kept");
    } finally {
      await configureLogging({ write: () => {} });
    }
  });
}

for (const level of ["trace", "warning", "error"] as const) {
  Deno.test(`log level ${level}: MultiSecret reconciles that fail on Secrets log the failure, never the values`, async () => {
    const capture = captureSink();
    await configureLogging({ sink: capture.sink, level });
    const env = await startEnv({ controllers: ["multisecret"] });
    try {
      for (const name of ["team-a", "team-b"]) {
        await env.client.create(CoreTypes.Namespace, { metadata: { name, labels: { copy: "yes" } } });
      }
      await env.client.create(MultiSecretType, {
        metadata: { name: "shared" },
        spec: { namespaceSelector: { matchLabels: { copy: "yes" } }, stringData: { password: VALUE } },
      }, { namespace: "default" });
      await waitFor(
        "children",
        async () => (await env.client.list(CoreTypes.Secret, { namespace: "team-b" })).items.length === 1,
      );

      // Creates of Secrets fail with 500 for a while: a new namespace's child cannot be created at first.
      env.server.faults.inject({ verb: "create", resource: "secrets", code: 500, times: 3 });
      await env.client.create(CoreTypes.Namespace, { metadata: { name: "late", labels: { copy: "yes" } } });
      await waitFor(
        "the late child despite the 500s",
        async () => (await env.client.list(CoreTypes.Secret, { namespace: "late" })).items.length === 1,
      );
      // Updates of Secrets are refused (403): the data change cannot reach the existing children.
      env.server.faults.inject({ verb: "update", resource: "secrets", code: 403, message: "secrets is forbidden" });
      await env.client.patch(MultiSecretType, "shared", { spec: { stringData: { password: VALUE_2 } } }, {
        namespace: "default",
        type: "merge",
      });
      await waitFor("the refused updates logged", () => capture.lines().some((l) => /forbidden/.test(l)));
      await waitFor(
        "the failures logged as errors or warnings",
        () => capture.records.filter((r) => r.level === "error" || r.level === "warning").length >= 2,
      );
      env.server.faults.clear();

      const ms = await env.client.get<MultiSecret>(MultiSecretType, "shared", { namespace: "default" });
      assert.ok(ms, "the MultiSecret exists");
      const events = JSON.stringify((await env.client.list(CoreTypes.Event)).items);
      assert.match(events, /forbidden|CreateFailed|InternalError/, "the failures reached Events");
      assertNoLeak(events, "Events");
      assertNoLeak(capture.lines().join("\n"), `logs at ${level}`);
    } finally {
      await env.close();
      await configureLogging({ write: () => {} });
    }
  });
}
