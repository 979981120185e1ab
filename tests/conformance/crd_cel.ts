/**
 * Conformance cases of CustomResourceDefinitions and their objects: CEL `x-kubernetes-validations` (rule, message,
 * messageExpression, reason, fieldPath, transition rules, ratcheting, cost), list-type set/map duplicates, nulls,
 * strict field validation, selectableFields, status updates, CRD validation and defaults. Each case asserts the code,
 * reason, message and causes kube-apiserver v1.37 answers.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";

const GROUP = "cel.conformance.kubeop.dev";
const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const POLL = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true };

/** A CRD of `kind` (plural `<kind lower>s`) whose one version v1 has `spec` as its spec schema. */
function crd(kind: string, spec: Json, extra: Json = {}): Json {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, kind },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec,
              status: {
                type: "object",
                properties: { phase: { type: "string" } },
                "x-kubernetes-validations": [{ rule: "!has(self.phase) || self.phase != 'Bad'", message: "phase Bad" }],
              },
            },
          },
        },
        ...extra,
      }],
    },
  };
}

interface Answer {
  code: number;
  body: KubeObject;
  warnings: string[];
}

async function call(client: KubeClient, method: string, path: string, body?: unknown, query = ""): Promise<Answer> {
  const res = await client.request(method, path + query, {
    body,
    contentType: method === "PATCH" ? "application/merge-patch+json" : undefined,
  });
  const text = new TextDecoder().decode(res.body);
  const warnings = (res.headers.get("warning") ?? "").split(/,\s*(?=299 )/).filter((w) => w).map((w) =>
    w.replace(/^299 - "/, "").replace(/"$/, "").replaceAll('\\"', '"')
  );
  return { code: res.status, body: text ? JSON.parse(text) : {}, warnings };
}

const RECORD = Deno.env.get("KUBEOP_CONFORMANCE_RECORD") === "1";

/** Asserts a failure Status (code, reason, message, causes) or, in record mode, prints it. */
function expectStatus(
  what: string,
  got: Answer,
  want: { code: number; reason: string; message: string; causes?: unknown[] },
): void {
  if (RECORD) {
    console.log(`RECORD ${what}: ${JSON.stringify({ code: got.code, body: got.body, warnings: got.warnings })}`);
    return;
  }
  assert.equal(got.code, want.code, `${what}: ${JSON.stringify(got.body)}`);
  assert.equal(got.body.reason, want.reason, what);
  assert.equal(got.body.message, want.message, what);
  assert.deepEqual(got.body.details?.causes, want.causes, what);
}

function expectOk(what: string, got: Answer): Json {
  if (RECORD) console.log(`RECORD ${what}: ${JSON.stringify({ code: got.code, warnings: got.warnings })}`);
  assert.ok(got.code < 300, `${what}: ${got.code} ${JSON.stringify(got.body)}`);
  return got.body;
}

async function createCrd(client: KubeClient, body: Json): Promise<string> {
  expectOk(`create CRD ${body.metadata.name}`, await call(client, "POST", CRD_PATH, body));
  const plural = body.spec.names.plural;
  await eventually(`${plural} served`, async () => {
    await client.request("GET", `/apis/${GROUP}/v1/${plural}`, { throwOnError: true });
    return true;
  }, POLL);
  return plural;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const RULES_SPEC = {
  type: "object",
  "x-kubernetes-validations": [
    { rule: "self.min <= self.max", message: "min must not exceed max" },
    {
      rule: "!has(self.mode) || self.mode != 'off'",
      fieldPath: ".mode",
      reason: "FieldValueForbidden",
      message: "mode off is forbidden",
    },
    {
      rule: "has(self.owner) || !has(self.team)",
      reason: "FieldValueRequired",
      fieldPath: ".owner",
      message: "owner is required with a team",
    },
  ],
  properties: {
    min: { type: "integer", default: 0 },
    max: { type: "integer", default: 10 },
    mode: { type: "string" },
    owner: { type: "string" },
    team: { type: "string" },
    name: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{
        rule: "self.startsWith('a')",
        messageExpression: "'name ' + self + ' must start with a'",
      }],
    },
    code: { type: "string", maxLength: 20, "x-kubernetes-validations": [{ rule: "self.matches('^[a-z]+\\\\d?$')" }] },
    fixed: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "fixed is immutable" }] },
    extra: {
      type: "object",
      additionalProperties: { type: "integer" },
      "x-kubernetes-validations": [{ rule: "self.deep > 0" }],
    },
    tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, port: { type: "integer" } },
      },
    },
    size: { type: "integer", default: 3 },
    level: { type: "integer", minimum: 1 },
    memory: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{
        rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))",
        message: "memory must be a quantity below 1Gi",
      }],
    },
    cpu: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{ rule: "quantity(self).isGreaterThan(quantity('0'))" }],
    },
    endpoint: {
      type: "string",
      maxLength: 200,
      "x-kubernetes-validations": [{ rule: "isURL(self) && url(self).getScheme() == 'https'", message: "https URL" }],
    },
    port: { "x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{ rule: "self + 'x' == 'yx'" }] },
    slots: {
      type: "array",
      maxItems: 8,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        "x-kubernetes-validations": [{ rule: "self.port == oldSelf.port", message: "port is immutable" }],
        properties: { name: { type: "string", maxLength: 10 }, port: { type: "integer" } },
      },
    },
    legacy: { type: "string" },
  },
};

/** The CRD and custom-resource cases (registered by tests/conformance/cases.ts). */
export async function crdCelCases(t: Deno.TestContext, client: KubeClient, ns: string): Promise<void> {
  const plural = await createCrd(client, crd("Rulebook", RULES_SPEC));
  const base = `/apis/${GROUP}/v1/namespaces/${ns}/${plural}`;
  const obj = (name: string, spec: Json, metadata: Json = {}) => ({
    apiVersion: `${GROUP}/v1`,
    kind: "Rulebook",
    metadata: { name, ...metadata },
    spec,
  });
  const kindName = `Rulebook.${GROUP}`;

  await t.step("CEL rule with message: 422 on the rule's schema node", async () => {
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
  });

  await t.step("CEL reason and fieldPath: Forbidden and Required on the named field", async () => {
    const got = await call(client, "POST", base, obj("r2", { mode: "off", team: "x" }));
    expectStatus("reason/fieldPath", got, {
      code: 422,
      reason: "Invalid",
      message:
        `${kindName} "r2" is invalid: [spec.mode: Forbidden: mode off is forbidden, spec.owner: Required value: owner is required with a team]`,
      causes: [
        { reason: "FieldValueForbidden", message: "Forbidden: mode off is forbidden", field: "spec.mode" },
        { reason: "FieldValueRequired", message: "Required value: owner is required with a team", field: "spec.owner" },
      ],
    });
  });

  await t.step("CEL messageExpression and the value of a scalar node", async () => {
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
  });

  await t.step("CEL rule without message: failed rule; matches() with RE2 syntax", async () => {
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
  });

  await t.step("CEL runtime error: no such key", async () => {
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
  });

  await t.step("CEL transition rule: oldSelf compared on update, skipped on create", async () => {
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
  });

  await t.step("list-type set: duplicate items rejected", async () => {
    const got = await call(client, "POST", base, obj("r7", { tags: ["a", "b", "a"] }));
    expectStatus("set duplicate", got, {
      code: 422,
      reason: "Invalid",
      message: `${kindName} "r7" is invalid: spec.tags[2]: Duplicate value: "a"`,
      causes: [{ reason: "FieldValueDuplicate", message: 'Duplicate value: "a"', field: "spec.tags[2]" }],
    });
  });

  await t.step("list-type map: duplicate keys rejected", async () => {
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
  });

  await t.step("null on a non-nullable field is dropped, then defaulted", async () => {
    const got = expectOk("nulls", await call(client, "POST", base, obj("r9", { size: null, mode: null })));
    assert.equal(got.spec.size, 3);
    assert.ok(!("mode" in got.spec));
  });

  await t.step("fieldValidation Strict: duplicate and unknown fields answer 400", async () => {
    const body = `{"apiVersion":"${GROUP}/v1","kind":"Rulebook","metadata":{"name":"r10"},` +
      `"spec":{"size":1,"size":2,"bogus":true}}`;
    const got = await call(client, "POST", base, body, "?fieldValidation=Strict");
    expectStatus("strict", got, {
      code: 400,
      reason: "BadRequest",
      message:
        'Rulebook in version "v1" cannot be handled as a Rulebook: strict decoding error: duplicate field "spec.size", unknown field "spec.bogus"',
    });
  });

  await t.step("fieldValidation Warn: duplicate and unknown fields as warnings", async () => {
    const body = `{"apiVersion":"${GROUP}/v1","kind":"Rulebook","metadata":{"name":"r11"},` +
      `"spec":{"size":1,"size":2,"bogus":true}}`;
    const got = await call(client, "POST", base, body, "?fieldValidation=Warn");
    expectOk("warn", got);
    if (!RECORD) assert.deepEqual(got.warnings, ['duplicate field "spec.size"', 'unknown field "spec.bogus"']);
    if (!RECORD) assert.equal(got.body.spec.size, 2);
  });

  await t.step("PUT on /status ignores metadata changes", async () => {
    const created = expectOk("create", await call(client, "POST", base, obj("r12", {}, { labels: { a: "1" } })));
    created.metadata.labels = { a: "2" };
    created.status = { phase: "Done" };
    const got = expectOk("status put", await call(client, "PUT", `${base}/r12/status`, created));
    assert.deepEqual(got.metadata.labels, { a: "1" });
    assert.equal(got.status.phase, "Done");
  });

  await t.step("validation ratcheting: unchanged invalid values stay, changed ones are checked", async () => {
    const created = expectOk("create legacy", await call(client, "POST", base, obj("r13", { legacy: "toolong" })));
    const current = expectOk("get CRD", await call(client, "GET", `${CRD_PATH}/${plural}.${GROUP}`));
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.legacy = {
      type: "string",
      "x-kubernetes-validations": [{ rule: "self.size() <= 3", message: "legacy too long" }],
    };
    expectOk("tighten CRD", await call(client, "PUT", `${CRD_PATH}/${plural}.${GROUP}`, current));
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
  });

  await t.step("transition rule on map-list items: correlated by key", async () => {
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
  });

  await t.step("CEL rules on status are checked on /status writes", async () => {
    const created = expectOk("create", await call(client, "POST", base, obj("r15", {})));
    created.status = { phase: "Bad" };
    const got = await call(client, "PUT", `${base}/r15/status`, created);
    expectStatus("status rule", got, {
      code: 422,
      reason: "Invalid",
      message: 'Rulebook.cel.conformance.kubeop.dev "r15" is invalid: status: Invalid value: phase Bad',
      causes: [{ "reason": "FieldValueInvalid", "message": "Invalid value: phase Bad", "field": "status" }],
    });
  });

  await t.step("PUT on /status ignores spec changes", async () => {
    const created = expectOk("create", await call(client, "POST", base, obj("r16", { size: 1 })));
    created.spec.size = 2;
    created.status = { phase: "Done" };
    const got = expectOk("status put", await call(client, "PUT", `${base}/r16/status`, created));
    assert.equal(got.spec.size, 1);
  });

  await t.step("built-in kinds: fieldValidation Strict refuses duplicate fields", async () => {
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1","a":"2"}}`;
    const got = await call(client, "POST", `/api/v1/namespaces/${ns}/configmaps`, body, "?fieldValidation=Strict");
    expectStatus("configmap duplicate", got, {
      code: 400,
      reason: "BadRequest",
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
    });
  });

  await t.step("schema errors and CEL failures are reported together", async () => {
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
  });

  await t.step("a blocking schema error (Required, type, enum, too long) skips the CEL rules", async () => {
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
  });

  await t.step("OpenAPI ratcheting: an unchanged value that a tightened schema refuses stays", async () => {
    expectOk("create team", await call(client, "POST", base, obj("r19", { team: "toolongteam", owner: "o" })));
    const current = expectOk("get CRD", await call(client, "GET", `${CRD_PATH}/${plural}.${GROUP}`));
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.team = {
      type: "string",
      pattern: "^[a-z]{1,4}$",
    };
    expectOk("tighten team", await call(client, "PUT", `${CRD_PATH}/${plural}.${GROUP}`, current));
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
  });

  await t.step("CEL runtime overload error on an int-or-string value", async () => {
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
  });

  await t.step("CEL quantity and URL library functions", async () => {
    const good = { memory: "512Mi", cpu: "250m", endpoint: "https://api.example.com:8443/v1?x=1" };
    expectOk("good quantities and URL", await call(client, "POST", base, obj("r22", good)));
    const bad = await call(client, "POST", base, obj("r23", { memory: "2Gi", endpoint: "http://api.example.com" }));
    expectStatus("bad quantity and URL", bad, {
      code: 422,
      reason: "Invalid",
      message:
        'Rulebook.cel.conformance.kubeop.dev "r23" is invalid: [spec.memory: Invalid value: "2Gi": memory must be a quantity below 1Gi, spec.endpoint: Invalid value: "http://api.example.com": https URL]',
      causes: [{
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "2Gi": memory must be a quantity below 1Gi',
        "field": "spec.memory",
      }, {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: "http://api.example.com": https URL',
        "field": "spec.endpoint",
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
  });

  const crdCase = async (what: string, body: Json, want: Parameters<typeof expectStatus>[2]) => {
    expectStatus(what, await call(client, "POST", CRD_PATH, body), want);
  };

  await t.step("CRD with a rule that does not compile is rejected", async () => {
    const body = crd("Badrule", { type: "object", "x-kubernetes-validations": [{ rule: "foo == 1" }] });
    await crdCase("undeclared reference", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "badrules.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"foo == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: undeclared reference to \'foo\' (in container \'\')\n | foo == 1\n | ^',
      causes: [{
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: {"Rule":"foo == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: undeclared reference to \'foo\' (in container \'\')\n | foo == 1\n | ^',
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
      }],
    });
  });

  await t.step("CRD with a rule over an unbounded list nested twice exceeds the cost budget", async () => {
    const body = crd("Costly", {
      type: "object",
      properties: { items: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [{ rule: "self.items.all(x, self.items.all(y, x == y))" }],
    });
    await crdCase("cost", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "costlys.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]',
      causes: [{
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
      }, {
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
      }, {
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        "field": "spec.validation.openAPIV3Schema",
      }],
    });
  });

  await t.step("CRD with a messageExpression that does not compile is rejected", async () => {
    const body = crd("Badmsg", {
      type: "object",
      "x-kubernetes-validations": [{ rule: "true", messageExpression: "bar + 'x'" }],
    });
    await crdCase("bad messageExpression", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "badmsgs.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"bar + \'x\'","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to \'bar\' (in container \'\')\n | bar + \'x\'\n | ^',
      causes: [{
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: {"Rule":"true","Message":"","MessageExpression":"bar + \'x\'","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to \'bar\' (in container \'\')\n | bar + \'x\'\n | ^',
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression",
      }],
    });
  });

  await t.step("CRD with a rule selecting an undefined field is rejected", async () => {
    const body = crd("Nofield", {
      type: "object",
      properties: { a: { type: "string" } },
      "x-kubernetes-validations": [{ rule: "self.b == 'x'" }],
    });
    await crdCase("undefined field", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "nofields.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.b == \'x\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field \'b\'\n | self.b == \'x\'\n | ....^',
      causes: [{
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: {"Rule":"self.b == \'x\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field \'b\'\n | self.b == \'x\'\n | ....^',
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
      }],
    });
  });

  await t.step("CRD with oldSelf on items of a list without keys is rejected", async () => {
    const body = crd("Uncorrelated", {
      type: "object",
      properties: {
        xs: {
          type: "array",
          items: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
        },
      },
    });
    await crdCase("uncorrelatable oldSelf", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "uncorrelateds.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[xs], spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]',
      causes: [{
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        "field":
          "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
      }, {
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[xs]',
        "field":
          "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
      }, {
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        "field":
          "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
      }, {
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        "field": "spec.validation.openAPIV3Schema",
      }],
    });
  });

  await t.step("CRD with a nested loop over bounded lists stays within the cost budget", async () => {
    const body = crd("Bounded", {
      type: "object",
      properties: { items: { type: "array", maxItems: 10, items: { type: "string", maxLength: 10 } } },
      "x-kubernetes-validations": [{ rule: "self.items.all(x, self.items.all(y, x == y))" }],
    });
    expectOk("bounded", await call(client, "POST", CRD_PATH, body));
  });

  await t.step("CRD with bad selectableFields is rejected", async () => {
    const body = crd("Badselect", {
      type: "object",
      properties: { color: { type: "string" }, sizes: { type: "object", properties: { a: { type: "integer" } } } },
    }, {
      selectableFields: [{ jsonPath: ".spec.nope" }, { jsonPath: ".spec.sizes" }, { jsonPath: ".spec.color" }, {
        jsonPath: ".spec.color",
      }],
    });
    await crdCase("bad selectableFields", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "badselects.cel.conformance.kubeop.dev" is invalid: [spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field, spec.selectableFields[1].jsonPath: Invalid value: ".spec.sizes": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed., spec.selectableFields[3].jsonPath: Duplicate value: ".spec.color"]',
      causes: [{
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
        "field": "spec.selectableFields[0].jsonPath",
      }, {
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: ".spec.sizes": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        "field": "spec.selectableFields[1].jsonPath",
      }, {
        "reason": "FieldValueDuplicate",
        "message": 'Duplicate value: ".spec.color"',
        "field": "spec.selectableFields[3].jsonPath",
      }],
    });
  });

  await t.step("CRD with two storage versions is rejected", async () => {
    const body = crd("Twostore", { type: "object" });
    body.spec.versions.push({ ...structuredClone(body.spec.versions[0]), name: "v2" });
    await crdCase("two storage", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "twostores.cel.conformance.kubeop.dev" is invalid: [spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version, status.storedVersions: Invalid value: ["v1"]: must have the storage version v2]',
      causes: [{
        "reason": "FieldValueInvalid",
        "message":
          'Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
        "field": "spec.versions",
      }, {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: ["v1"]: must have the storage version v2',
        "field": "status.storedVersions",
      }],
    });
  });

  await t.step("CRD whose schema constrains metadata beyond name is rejected", async () => {
    const body = crd("Metaschema", { type: "object" });
    body.spec.versions[0].schema.openAPIV3Schema.properties.metadata = {
      type: "object",
      properties: { labels: { type: "object" } },
    };
    await crdCase("metadata schema", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "metaschemas.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      causes: [{
        "reason": "FieldValueForbidden",
        "message":
          "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
        "field": "spec.validation.openAPIV3Schema.properties[metadata]",
      }],
    });
  });

  await t.step("CRD with a non-structural schema (no type) is rejected", async () => {
    const body = crd("Untyped", { properties: { a: { type: "string" } } });
    await crdCase("untyped", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "untypeds.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
      causes: [{
        "reason": "FieldValueRequired",
        "message": "Required value: must not be empty for specified object fields",
        "field": "spec.validation.openAPIV3Schema.properties[spec].type",
      }],
    });
  });

  await t.step("CRD with a bad fieldPath and a bad reason is rejected", async () => {
    const body = crd("Badpath", {
      type: "object",
      properties: { a: { type: "string" } },
      "x-kubernetes-validations": [{ rule: "true", fieldPath: ".nope", reason: "Sideways" }],
    });
    await crdCase("bad fieldPath", body, {
      code: 422,
      reason: "Invalid",
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "badpaths.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Sideways": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired", spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": must be a valid path]',
      causes: [{
        "reason": "FieldValueNotSupported",
        "message":
          'Unsupported value: "Sideways": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason",
      }, {
        "reason": "FieldValueInvalid",
        "message": 'Invalid value: ".nope": must be a valid path',
        "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath",
      }],
    });
  });

  await t.step("CRD defaults: singular, listKind, conversion None; not Established in the create answer", async () => {
    const body = crd("Defaulted", { type: "object" });
    const got = expectOk("create", await call(client, "POST", CRD_PATH, body));
    if (RECORD) console.log(`RECORD defaults: ${JSON.stringify(got)}`);
    assert.equal(got.spec.names.singular, "defaulted");
    assert.equal(got.spec.names.listKind, "DefaultedList");
    assert.deepEqual(got.spec.conversion, { strategy: "None" });
    assert.ok(!(got.status?.conditions ?? []).some((c: Json) => c.type === "Established" && c.status === "True"));
    await eventually("Established", async () => {
      const c = await client.get(CoreTypes.CustomResourceDefinition, body.metadata.name);
      return (c.status?.conditions ?? []).some((x: Json) => x.type === "Established" && x.status === "True");
    }, POLL);
  });

  await t.step("selectableFields: field selectors on a declared field; others refused", async () => {
    const body = crd("Selectable", { type: "object", properties: { color: { type: "string" } } }, {
      selectableFields: [{ jsonPath: ".spec.color" }],
    });
    const sp = await createCrd(client, body);
    const sbase = `/apis/${GROUP}/v1/namespaces/${ns}/${sp}`;
    for (const [name, color] of [["s1", "red"], ["s2", "blue"]]) {
      expectOk(
        "create",
        await call(client, "POST", sbase, {
          apiVersion: `${GROUP}/v1`,
          kind: "Selectable",
          metadata: { name },
          spec: { color },
        }),
      );
    }
    const list = expectOk("select", await call(client, "GET", sbase, undefined, "?fieldSelector=spec.color%3Dblue"));
    assert.deepEqual(list.items.map((i: Json) => i.metadata.name), ["s2"]);
    const bad = await call(client, "GET", sbase, undefined, "?fieldSelector=spec.size%3D1");
    expectStatus("unknown field label", bad, {
      code: 400,
      reason: "BadRequest",
      message: "field label not supported: spec.size",
    });
  });

  await t.step("deleting a CRD removes its objects and ends its watches", async () => {
    const body = crd("Doomed", { type: "object" });
    const dp = await createCrd(client, body);
    const doomed = { group: GROUP, version: "v1", plural: dp, kind: "Doomed", namespaced: true };
    const listed = await client.list(doomed, { namespace: ns });
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 20_000);
    const events: string[] = [];
    const watched = (async () => {
      const opts = { namespace: ns, resourceVersion: listed.metadata.resourceVersion, signal: ac.signal };
      for await (const ev of client.watch(doomed, opts)) {
        events.push(`${ev.type} ${(ev.object as KubeObject).metadata?.name ?? ""}`);
      }
    })();
    // The object is created once the watch is open (eventually sees it), so the watch exists before the delete.
    expectOk(
      "create",
      await call(client, "POST", `/apis/${GROUP}/v1/namespaces/${ns}/${dp}`, {
        apiVersion: `${GROUP}/v1`,
        kind: "Doomed",
        metadata: { name: "d1" },
      }),
    );
    await eventually("watch sees d1", () => events.includes("ADDED d1"), POLL);
    expectOk("delete CRD", await call(client, "DELETE", `${CRD_PATH}/${dp}.${GROUP}`));
    await watched.finally(() => clearTimeout(timer));
    assert.ok(!ac.signal.aborted, "the watch ends when its CRD goes");
    assert.deepEqual(events, ["ADDED d1", "DELETED d1"]);
    await eventually(
      "CRD gone",
      async () => (await call(client, "GET", `${CRD_PATH}/${dp}.${GROUP}`)).code === 404,
      POLL,
    );
    expectOk("recreate CRD", await call(client, "POST", CRD_PATH, crd("Doomed", { type: "object" })));
    await eventually("served again, empty", async () => {
      const r = await call(client, "GET", `/apis/${GROUP}/v1/namespaces/${ns}/${dp}`);
      return r.code === 200 && r.body.items.length === 0;
    }, POLL);
  });
}
