/**
 * Conformance cases of custom resources validated by their CRD: CEL `x-kubernetes-validations` (rule, message,
 * messageExpression, reason, fieldPath, transition rules, runtime errors, quantity/URL functions), validation
 * ratcheting, list-type set/map duplicates, nulls, strict field validation, status updates. Each case asserts the code,
 * reason, message and causes kube-apiserver v1.37 answers; the first creates the Rulebook CRD the others use.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { call, crd, CRD_PATH, createCrd, expectOk, expectStatus, GROUP, POLL, RECORD } from "./crd_helpers.ts";
import { basePath, kindName, obj, PLURAL, RULES_SPEC } from "./crd_cel_rulebook.ts";
import type { ConformanceCase } from "./support.ts";

/** Custom resources validated by their CRD: CEL rules, ratcheting, list types, nulls, strict fields, status writes. */
export const crdCelCases: ConformanceCase[] = [
  {
    name: "a CRD with CEL rules (message, messageExpression, reason, fieldPath, transition rules) is served",
    async run({ client }) {
      assert.equal(await createCrd(client, crd("Rulebook", RULES_SPEC)), PLURAL);
    },
  },
  {
    name: "CEL rule with message: 422 on the rule's schema node",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r1", { min: 5, max: 1 }));
      expectStatus("min > max", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r1" is invalid: spec: Invalid value: min must not exceed max`,
        causes: [{
          reason: "FieldValueInvalid",
          message: "Invalid value: min must not exceed max",
          field: "spec",
        }],
      });
    },
  },
  {
    name: "CEL reason and fieldPath: Forbidden and Required on the named field",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r2", { mode: "off", team: "x" }));
      expectStatus("reason/fieldPath", got, {
        code: 422,
        reason: "Invalid",
        message:
          `${kindName} "r2" is invalid: [spec.mode: Forbidden: mode off is forbidden, spec.owner: Required value: owner is required with a team]`,
        causes: [
          { reason: "FieldValueForbidden", message: "Forbidden: mode off is forbidden", field: "spec.mode" },
          {
            reason: "FieldValueRequired",
            message: "Required value: owner is required with a team",
            field: "spec.owner",
          },
        ],
      });
    },
  },
  {
    name: "CEL messageExpression and the value of a scalar node",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r3", { name: "bob" }));
      expectStatus("messageExpression", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r3" is invalid: spec.name: Invalid value: "bob": name bob must start with a`,
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "bob": name bob must start with a',
          field: "spec.name",
        }],
      });
    },
  },
  {
    name: "CEL rule without message: failed rule; matches() with RE2 syntax",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r4", { code: "ab12" }));
      expectStatus("default message", got, {
        code: 422,
        reason: "Invalid",
        message:
          `${kindName} "r4" is invalid: spec.code: Invalid value: "ab12": failed rule: self.matches('^[a-z]+\\\\d?$')`,
        causes: [{
          reason: "FieldValueInvalid",
          message: `Invalid value: "ab12": failed rule: self.matches('^[a-z]+\\\\d?$')`,
          field: "spec.code",
        }],
      });
      expectOk("matching code", await call(client, "POST", base, obj("r4", { code: "ab1" })));
    },
  },
  {
    name: "CEL runtime error: no such key",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r5", { extra: { other: 1 } }));
      expectStatus("no such key", got, {
        code: 422,
        reason: "Invalid",
        message:
          `${kindName} "r5" is invalid: spec.extra: Invalid value: "object": no such key: deep evaluating rule: self.deep > 0`,
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "object": no such key: deep evaluating rule: self.deep > 0',
          field: "spec.extra",
        }],
      });
    },
  },
  {
    name: "CEL transition rule: oldSelf compared on update, skipped on create",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = expectOk("create with fixed", await call(client, "POST", base, obj("r6", { fixed: "one" })));
      created.spec.fixed = "two";
      const got = await call(client, "PUT", `${base}/r6`, created);
      expectStatus("fixed changed", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r6" is invalid: spec.fixed: Invalid value: "two": fixed is immutable`,
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "two": fixed is immutable',
          field: "spec.fixed",
        }],
      });
      const patched = await call(client, "PATCH", `${base}/r6`, { spec: { size: 4 } });
      expectOk("unrelated change", patched);
    },
  },
  {
    name: "list-type set: duplicate items rejected",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r7", { tags: ["a", "b", "a"] }));
      expectStatus("set duplicate", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r7" is invalid: spec.tags[2]: Duplicate value: "a"`,
        causes: [{ reason: "FieldValueDuplicate", message: 'Duplicate value: "a"', field: "spec.tags[2]" }],
      });
    },
  },
  {
    name: "list-type map: duplicate keys rejected",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(
        client,
        "POST",
        base,
        obj("r8", { ports: [{ name: "a", port: 1 }, { name: "a", port: 2 }] }),
      );
      expectStatus("map duplicate", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r8" is invalid: spec.ports[1]: Duplicate value: {"name":"a"}`,
        causes: [{
          reason: "FieldValueDuplicate",
          message: 'Duplicate value: {"name":"a"}',
          field: "spec.ports[1]",
        }],
      });
    },
  },
  {
    name: "null on a non-nullable field is dropped, then defaulted",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = expectOk("nulls", await call(client, "POST", base, obj("r9", { size: null, mode: null })));
      assert.equal(got.spec.size, 3);
      assert.ok(!("mode" in got.spec));
    },
  },
  {
    name: "fieldValidation Strict: duplicate and unknown fields answer 400",
    async run({ client, ns }) {
      const base = basePath(ns);
      const body = `{"apiVersion":"${GROUP}/v1","kind":"Rulebook","metadata":{"name":"r10"},` +
        `"spec":{"size":1,"size":2,"bogus":true}}`;
      const got = await call(client, "POST", base, body, "?fieldValidation=Strict");
      expectStatus("strict", got, {
        code: 400,
        reason: "BadRequest",
        message:
          'Rulebook in version "v1" cannot be handled as a Rulebook: strict decoding error: duplicate field "spec.size", unknown field "spec.bogus"',
      });
    },
  },
  {
    name: "fieldValidation Warn: duplicate and unknown fields as warnings",
    async run({ client, ns }) {
      const base = basePath(ns);
      const body = `{"apiVersion":"${GROUP}/v1","kind":"Rulebook","metadata":{"name":"r11"},` +
        `"spec":{"size":1,"size":2,"bogus":true}}`;
      const got = await call(client, "POST", base, body, "?fieldValidation=Warn");
      expectOk("warn", got);
      if (!RECORD) assert.deepEqual(got.warnings, ['duplicate field "spec.size"', 'unknown field "spec.bogus"']);
      if (!RECORD) assert.equal(got.body.spec.size, 2);
    },
  },
  {
    name: "PUT on /status ignores metadata changes",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = expectOk("create", await call(client, "POST", base, obj("r12", {}, { labels: { a: "1" } })));
      created.metadata.labels = { a: "2" };
      created.status = { phase: "Done" };
      const got = expectOk("status put", await call(client, "PUT", `${base}/r12/status`, created));
      assert.deepEqual(got.metadata.labels, { a: "1" });
      assert.equal(got.status.phase, "Done");
    },
  },
  {
    name: "validation ratcheting: unchanged invalid values stay, changed ones are checked",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = expectOk("create legacy", await call(client, "POST", base, obj("r13", { legacy: "toolong" })));
      const current = expectOk("get CRD", await call(client, "GET", `${CRD_PATH}/${PLURAL}.${GROUP}`));
      current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.legacy = {
        type: "string",
        "x-kubernetes-validations": [{ rule: "self.size() <= 3", message: "legacy too long" }],
      };
      expectOk("tighten CRD", await call(client, "PUT", `${CRD_PATH}/${PLURAL}.${GROUP}`, current));
      await eventually("rule in force", async () => {
        const r = await call(client, "POST", base, obj("probe13", { legacy: "long" }), "?dryRun=All");
        return r.code === 422;
      }, POLL);
      const unchanged = await call(client, "PATCH", `${base}/r13`, { spec: { size: 5 } });
      expectOk("unchanged legacy ratchets", unchanged);
      if (!RECORD) assert.deepEqual(unchanged.warnings, ['spec.legacy: Invalid value: "toolong": legacy too long']);
      const changed = await call(client, "PATCH", `${base}/r13`, { spec: { legacy: "longer" } });
      expectStatus("changed legacy", changed, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r13" is invalid: spec.legacy: Invalid value: "longer": legacy too long`,
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "longer": legacy too long',
          field: "spec.legacy",
        }],
      });
      assert.ok(created);
    },
  },
  {
    name: "transition rule on map-list items: correlated by key",
    async run({ client, ns }) {
      const base = basePath(ns);
      const slots = [{ name: "a", port: 1 }, { name: "b", port: 2 }];
      const created = expectOk("create slots", await call(client, "POST", base, obj("r14", { slots })));
      created.spec.slots = [{ name: "c", port: 9 }, { name: "b", port: 3 }];
      const got = await call(client, "PUT", `${base}/r14`, created);
      expectStatus("slot port changed", got, {
        code: 422,
        reason: "Invalid",
        message: `${kindName} "r14" is invalid: spec.slots[1]: Invalid value: port is immutable`,
        causes: [{ reason: "FieldValueInvalid", message: "Invalid value: port is immutable", field: "spec.slots[1]" }],
      });
    },
  },
  {
    name: "CEL rules on status are checked on /status writes",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = expectOk("create", await call(client, "POST", base, obj("r15", {})));
      created.status = { phase: "Bad" };
      const got = await call(client, "PUT", `${base}/r15/status`, created);
      expectStatus("status rule", got, {
        code: 422,
        reason: "Invalid",
        message: 'Rulebook.cel.conformance.kubeop.dev "r15" is invalid: status: Invalid value: phase Bad',
        causes: [{ "reason": "FieldValueInvalid", "message": "Invalid value: phase Bad", "field": "status" }],
      });
    },
  },
  {
    name: "PUT on /status ignores spec changes",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = expectOk("create", await call(client, "POST", base, obj("r16", { size: 1 })));
      created.spec.size = 2;
      created.status = { phase: "Done" };
      const got = expectOk("status put", await call(client, "PUT", `${base}/r16/status`, created));
      assert.equal(got.spec.size, 1);
    },
  },
  {
    name: "built-in kinds: fieldValidation Strict refuses duplicate fields",
    async run({ client, ns }) {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1","a":"2"}}`;
      const got = await call(client, "POST", `/api/v1/namespaces/${ns}/configmaps`, body, "?fieldValidation=Strict");
      expectStatus("configmap duplicate", got, {
        code: 400,
        reason: "BadRequest",
        message:
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
      });
    },
  },
  {
    name: "schema errors and CEL failures are reported together",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r17", { level: 0, min: 5, max: 1 }));
      expectStatus("level and min/max", got, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r17" is invalid: [spec.level: Invalid value: 0: spec.level in body should be greater than or equal to 1, spec: Invalid value: min must not exceed max]',
        causes: [{
          "reason": "FieldValueInvalid",
          "message": "Invalid value: 0: spec.level in body should be greater than or equal to 1",
          "field": "spec.level",
        }, { "reason": "FieldValueInvalid", "message": "Invalid value: min must not exceed max", "field": "spec" }],
      });
    },
  },
  {
    name: "a blocking schema error (Required, type, enum, too long) skips the CEL rules",
    async run({ client, ns }) {
      const base = basePath(ns);
      const got = await call(client, "POST", base, obj("r18", { ports: [{ port: 1 }], min: 5, max: 1 }));
      expectStatus("required + cel", got, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r18" is invalid: [spec.ports[0].name: Required value, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
        causes: [{ "reason": "FieldValueRequired", "message": "Required value", "field": "spec.ports[0].name" }, {
          "reason": "FieldValueInvalid",
          "message":
            "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
          "field": "<nil>",
        }],
      });
    },
  },
  {
    name: "OpenAPI ratcheting: an unchanged value that a tightened schema refuses stays",
    async run({ client, ns }) {
      const base = basePath(ns);
      expectOk("create team", await call(client, "POST", base, obj("r19", { team: "toolongteam", owner: "o" })));
      const current = expectOk("get CRD", await call(client, "GET", `${CRD_PATH}/${PLURAL}.${GROUP}`));
      current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.team = {
        type: "string",
        pattern: "^[a-z]{1,4}$",
      };
      expectOk("tighten team", await call(client, "PUT", `${CRD_PATH}/${PLURAL}.${GROUP}`, current));
      await eventually("pattern in force", async () => {
        const r = await call(client, "POST", base, obj("probe19", { team: "toolong", owner: "o" }), "?dryRun=All");
        return r.code === 422;
      }, POLL);
      const unchanged = await call(client, "PATCH", `${base}/r19`, { spec: { size: 7 } });
      expectOk("unchanged team ratchets", unchanged);
      if (!RECORD) assert.deepEqual(unchanged.warnings, []);
      const changed = await call(client, "PATCH", `${base}/r19`, { spec: { team: "stilltoolong" } });
      expectStatus("changed team", changed, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r19" is invalid: spec.team: Invalid value: "stilltoolong": spec.team in body should match \'^[a-z]{1,4}$\'',
        causes: [{
          "reason": "FieldValueInvalid",
          "message": "Invalid value: \"stilltoolong\": spec.team in body should match '^[a-z]{1,4}$'",
          "field": "spec.team",
        }],
      });
    },
  },
  {
    name: "CEL runtime overload error on an int-or-string value",
    async run({ client, ns }) {
      const base = basePath(ns);
      expectOk("string port", await call(client, "POST", base, obj("r20", { port: "y" })));
      const got = await call(client, "POST", base, obj("r21", { port: 1 }));
      expectStatus("int port", got, {
        code: 422,
        reason: "Invalid",
        message:
          "Rulebook.cel.conformance.kubeop.dev \"r21\" is invalid: spec.port: Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self + 'x' == 'yx'",
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            "Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self + 'x' == 'yx'",
          "field": "spec.port",
        }],
      });
    },
  },
  {
    name: "CEL quantity and URL library functions",
    async run({ client, ns }) {
      const base = basePath(ns);
      const good = { memory: "512Mi", cpu: "250m", endpoint: "https://api.example.com:8443/v1?x=1" };
      expectOk("good quantities and URL", await call(client, "POST", base, obj("r22", good)));
      // One failing node per request: kube visits an object's properties in Go map order.
      const bad = await call(client, "POST", base, obj("r23", { memory: "2Gi" }));
      expectStatus("bad quantity", bad, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r23" is invalid: spec.memory: Invalid value: "2Gi": memory must be a quantity below 1Gi',
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "2Gi": memory must be a quantity below 1Gi',
          field: "spec.memory",
        }],
      });
      const http = await call(client, "POST", base, obj("r25", { endpoint: "http://api.example.com" }));
      expectStatus("bad URL", http, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r25" is invalid: spec.endpoint: Invalid value: "http://api.example.com": https URL',
        causes: [{
          reason: "FieldValueInvalid",
          message: 'Invalid value: "http://api.example.com": https URL',
          field: "spec.endpoint",
        }],
      });
      const broken = await call(client, "POST", base, obj("r24", { cpu: "lots" }));
      expectStatus("not a quantity", broken, {
        code: 422,
        reason: "Invalid",
        message:
          "Rulebook.cel.conformance.kubeop.dev \"r24\" is invalid: spec.cpu: Invalid value: \"string\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self).isGreaterThan(quantity('0'))",
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            "Invalid value: \"string\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self).isGreaterThan(quantity('0'))",
          "field": "spec.cpu",
        }],
      });
    },
  },
  {
    name: "optionalOldSelf: the transition rule also runs on create, with oldSelf an empty optional",
    async run({ client, ns }) {
      const base = basePath(ns);
      const created = await call(client, "POST", base, obj("r26", { seed: "other" }));
      expectStatus("seed on create", created, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r26" is invalid: spec.seed: Invalid value: "other": seed must start as init',
        causes: [{
          "reason": "FieldValueInvalid",
          "message": 'Invalid value: "other": seed must start as init',
          "field": "spec.seed",
        }],
      });
      expectOk("good seed", await call(client, "POST", base, obj("r27", { seed: "init", counter: 5 })));
      const shrunk = await call(client, "PATCH", `${base}/r27`, { spec: { counter: 3 } });
      expectStatus("counter shrinks", shrunk, {
        code: 422,
        reason: "Invalid",
        message:
          'Rulebook.cel.conformance.kubeop.dev "r27" is invalid: spec.counter: Invalid value: 3: counter may only grow',
        causes: [{
          "reason": "FieldValueInvalid",
          "message": "Invalid value: 3: counter may only grow",
          "field": "spec.counter",
        }],
      });
      expectOk("seed changes later", await call(client, "PATCH", `${base}/r27`, { spec: { seed: "x", counter: 6 } }));
    },
  },
];
