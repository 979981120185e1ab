/**
 * The CRDs: crds/*.yaml are exactly `kubeop crds` output, every sample (the tutorials' manifests and richer ones)
 * validates against its schema, and the schemas refuse what the tutorials' bonus points ask them to refuse.
 */

import assert from "node:assert/strict";
import YAML from "yaml";
import { allCrdsYaml, CRDS_KUSTOMIZATION, crdsKustomizationYaml, crdYaml } from "../cli/crds.ts";
import { crdManifests, WEBHOOK_VERSIONS } from "../controllers/crds.ts";
import { conversionPatchFiles } from "../cli/webhooks.ts";
import { MachineObjectSchema, SwitchObjectSchema } from "../controllers/machine/schema.ts";
import { AtObjectSchema } from "../controllers/at/schema.ts";
import { NetperfObjectSchema } from "../controllers/netperf/schema.ts";
import { MultiSecretObjectSchema } from "../controllers/multisecret/schema.ts";
import { validationErrors } from "../controllers/schema_util.ts";
import type { TSchema } from "@sinclair/typebox";
import type { OpenApiSchema } from "../testing/apiserver/resource_def.ts";
import { validateAndDefault } from "../testing/apiserver/schema.ts";
import type { KubeObject } from "../runtime/types.ts";

const root = new URL("../", import.meta.url);

const SCHEMAS: Record<string, TSchema> = {
  "useless.container.training/v1alpha1/Machine": MachineObjectSchema,
  "useless.container.training/v1alpha1/Switch": SwitchObjectSchema,
  "cnat.ishankhare.dev/v1alpha1/At": AtObjectSchema,
  "app.example.com/v1alpha1/Netperf": NetperfObjectSchema,
  "multi.ddnw.ml/v1alpha1/MultiSecret": MultiSecretObjectSchema,
};

function schemaFor(obj: KubeObject): TSchema {
  const schema = SCHEMAS[`${obj.apiVersion}/${obj.kind}`];
  assert.ok(schema, `no schema for ${obj.apiVersion} ${obj.kind}`);
  return schema;
}

/** Manifests exactly as printed in the seed tutorials (000 stage 1 and 002). */
const TUTORIAL_MANIFESTS = [
  `kind: Machine
apiVersion: useless.container.training/v1alpha1
metadata:
  labels: # ...
  name: machine-1
spec:
  # Our useless operator will change that to "down"
  switchPosition: up
`,
  `apiVersion: cnat.ishankhare.dev/v1alpha1
kind: At
metadata:
  name: at-sample
spec:
  schedule: "2020-11-16T10:12:00Z"
  command: "echo hello world!"
`,
];

Deno.test("crds/*.yaml and crds/kustomization.yaml are exactly what kubeop crds writes (regenerate: deno task crds)", async () => {
  const crds = crdManifests();
  const expected = new Set([...crds.map((c) => `${c.metadata.name}.yaml`), CRDS_KUSTOMIZATION]);
  const present = new Set<string>();
  for await (const entry of Deno.readDir(new URL("crds/", root))) {
    if (entry.name.endsWith(".yaml")) present.add(entry.name);
  }
  assert.deepEqual([...present].sort(), [...expected].sort());
  for (const crd of crds) {
    const onDisk = await Deno.readTextFile(new URL(`crds/${crd.metadata.name}.yaml`, root));
    assert.equal(
      onDisk,
      crdYaml(crd),
      `crds/${crd.metadata.name}.yaml drifted from the schema (regenerate: deno task crds)`,
    );
  }
  assert.equal(
    await Deno.readTextFile(new URL(`crds/${CRDS_KUSTOMIZATION}`, root)),
    crdsKustomizationYaml(crds.map((c) => `${c.metadata.name}.yaml`)),
    "crds/kustomization.yaml drifted (regenerate: deno task crds)",
  );
});

Deno.test("deploy/webhook/*.conversion.yaml are exactly what kubeop webhooks writes (regenerate: deno task webhooks)", async () => {
  const patches = conversionPatchFiles();
  assert.deepEqual(patches.map((p) => p.crd), Object.keys(WEBHOOK_VERSIONS), "every converting CRD has its patch");
  const present: string[] = [];
  for await (const entry of Deno.readDir(new URL("deploy/webhook/", root))) {
    if (entry.name.endsWith(".conversion.yaml")) present.push(entry.name);
  }
  assert.deepEqual(present.sort(), patches.map((p) => p.file).sort());
  for (const patch of patches) {
    assert.equal(await Deno.readTextFile(new URL(`deploy/webhook/${patch.file}`, root)), patch.text, patch.file);
  }
});

Deno.test("the CRDs as printed serve no version that needs a webhook; webhook versions are never stored", () => {
  for (const crd of crdManifests()) {
    assert.equal(crd.spec.conversion, undefined, crd.metadata.name);
    assert.equal(crd.spec.versions.filter((v) => v.storage).length, 1, crd.metadata.name);
  }
  for (const [name, versions] of Object.entries(WEBHOOK_VERSIONS)) {
    assert.ok(versions().every((v) => !v.storage && v.served), name);
  }
});

Deno.test("every CRD is v1, namespaced, has a status subresource, category kubeop and printer columns", () => {
  for (const crd of crdManifests()) {
    assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.deepEqual(crd.spec.names.categories, ["kubeop"]);
    const [version] = crd.spec.versions;
    assert.deepEqual(version.subresources, { status: {} });
    assert.ok((version.additionalPrinterColumns ?? []).length >= 2, crd.metadata.name);
    assert.equal(JSON.stringify(version.schema).includes('"const"'), false, "structural schemas have no const");
    assert.equal(JSON.stringify(version.schema).includes("anyOf"), false, "enums, not anyOf");
  }
});

Deno.test("short names do not clash with built-in kinds' short names or each other", () => {
  const builtin = new Set([
    "cm",
    "cs",
    "csr",
    "crd",
    "crds",
    "ds",
    "deploy",
    "ep",
    "ev",
    "hpa",
    "ing",
    "limits",
    "netpol",
    "no",
    "ns",
    "pdb",
    "po",
    "pc",
    "psp",
    "pv",
    "pvc",
    "quota",
    "rc",
    "rs",
    "sa",
    "sc",
    "sts",
    "svc",
    "ds",
    "secret",
    "pod",
    "at",
  ]);
  const seen = new Set<string>();
  for (const crd of crdManifests()) {
    for (const s of crd.spec.names.shortNames ?? []) {
      assert.ok(!builtin.has(s), `${s} clashes with a built-in short name`);
      assert.ok(!seen.has(s), `${s} used twice`);
      seen.add(s);
    }
  }
});

Deno.test("the tutorials' own manifests validate unchanged", () => {
  for (const text of TUTORIAL_MANIFESTS) {
    const obj = YAML.parse(text) as KubeObject;
    assert.deepEqual(validationErrors(schemaFor(obj), obj), []);
  }
});

Deno.test("every manifest in deploy/samples/ validates against its schema", async () => {
  let count = 0;
  for await (const entry of Deno.readDir(new URL("deploy/samples/", root))) {
    if (!entry.name.endsWith(".yaml")) continue;
    const text = await Deno.readTextFile(new URL(`deploy/samples/${entry.name}`, root));
    for (const doc of YAML.parseAllDocuments(text)) {
      const obj = doc.toJS() as KubeObject;
      assert.deepEqual(validationErrors(schemaFor(obj), obj), [], entry.name);
      count++;
    }
  }
  assert.ok(count >= 8, `only ${count} samples`);
});

Deno.test("schemas refuse what the CRD must refuse", () => {
  const bad: [TSchema, unknown, string][] = [
    [MachineObjectSchema, { spec: { switches: -1 } }, "/spec/switches"],
    [MachineObjectSchema, { spec: { switches: 1000 } }, "/spec/switches"],
    [MachineObjectSchema, { spec: { switches: 1.5 } }, "/spec/switches"],
    [MachineObjectSchema, { spec: { switchPosition: "sideways" } }, "/spec/switchPosition"],
    [SwitchObjectSchema, { spec: { position: "left" } }, "/spec/position"],
    [AtObjectSchema, { spec: { schedule: "tomorrow", command: "date" } }, "/spec/schedule"],
    [AtObjectSchema, { spec: { schedule: "2020-11-16T10:12:00+02:00", command: "date" } }, "/spec/schedule"],
    [AtObjectSchema, { spec: { schedule: "2020-11-16T10:12:00Z", command: "" } }, "/spec/command"],
    [NetperfObjectSchema, { spec: { duration: 0 } }, "/spec/duration"],
    [NetperfObjectSchema, { spec: {}, status: { status: "Running" } }, "/status/status"],
    [MultiSecretObjectSchema, { spec: { data: { k: "not base64!" } } }, "/spec/data/k"],
  ];
  for (const [schema, value, path] of bad) {
    const errors = validationErrors(schema, value);
    assert.ok(errors.some((e) => e.startsWith(path)), `${JSON.stringify(value)}: ${errors.join("; ")}`);
  }
});

function crdSchema(plural: string) {
  const crd = crdManifests().find((c) => c.spec.names.plural === plural)!;
  return crd.spec.versions[0].schema!.openAPIV3Schema as OpenApiSchema;
}

Deno.test("the CRD schema, as an API server applies it, refuses switches -1 and 1000 naming the field", () => {
  for (const switches of [-1, 1000]) {
    const { causes } = validateAndDefault({ spec: { switches } }, crdSchema("machines"));
    assert.equal(causes.length, 1);
    assert.equal(causes[0].field, "spec.switches");
    assert.match(causes[0].message ?? "", switches < 0 ? /greater than or equal to 0/ : /less than or equal to 100/);
  }
});

Deno.test("the CRD schemas accept the tutorials' manifests without pruning and apply defaults", () => {
  for (const text of TUTORIAL_MANIFESTS) {
    const obj = YAML.parse(text) as KubeObject;
    const { causes, pruned } = validateAndDefault(obj, crdSchema(obj.kind === "At" ? "ats" : "machines"));
    assert.deepEqual(causes, []);
    assert.deepEqual(pruned, []);
  }
  const { object } = validateAndDefault({ spec: {} }, crdSchema("netperfs")) as { object: KubeObject };
  assert.deepEqual(object.spec, { image: "tailoredcloud/netperf:v2.7", duration: 10 });
});

Deno.test("kubeop crds prints every CRD as one multi-document YAML stream", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL("main.ts", root).pathname, "crds"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(text, allCrdsYaml());
  const docs = YAML.parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
  assert.deepEqual(docs.map((d) => d.metadata.name), crdManifests().map((c) => c.metadata.name));
});

/** Paths of schema nodes without a description (`kubectl explain` would print `<empty>` for them). */
function undescribed(schema: Record<string, unknown>, path: string): string[] {
  const out: string[] = [];
  if (path && typeof schema.description !== "string") out.push(path);
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [k, v] of Object.entries(props ?? {})) out.push(...undescribed(v, `${path}.${k}`));
  const items = schema.items as Record<string, unknown> | undefined;
  if (items?.properties) out.push(...undescribed({ ...items, description: "" }, `${path}[]`));
  const additional = schema.additionalProperties as Record<string, unknown> | undefined;
  if (additional?.properties) out.push(...undescribed({ ...additional, description: "" }, `${path}{}`));
  return out;
}

Deno.test("every field of every CRD schema has a description, so kubectl explain shows one", () => {
  // The root metadata is the one exception: kube-apiserver refuses a CRD whose schema says anything but `type` there
  // ("must not specify anything other than name and generateName"); kubectl explain describes it from ObjectMeta.
  const missing = crdManifests().flatMap((crd) =>
    undescribed(crd.spec.versions[0].schema!.openAPIV3Schema!, "").map((p) => `${crd.spec.names.kind}${p}`)
  ).filter((path) => !path.endsWith(".metadata") || path.split(".").length !== 2);
  assert.deepEqual(missing, []);
  for (const crd of crdManifests()) {
    assert.deepEqual(
      (crd.spec.versions[0].schema!.openAPIV3Schema!.properties as Record<string, unknown>).metadata,
      { type: "object" },
      crd.metadata.name,
    );
  }
});

Deno.test("every kind has a Ready printer column reading the Ready condition", () => {
  for (const crd of crdManifests()) {
    const columns = crd.spec.versions[0].additionalPrinterColumns as { name: string; jsonPath: string }[];
    const ready = columns.find((c) => c.name === "Ready");
    assert.equal(ready?.jsonPath, '.status.conditions[?(@.type=="Ready")].status', crd.metadata.name);
  }
});

Deno.test("status.conditions carries metav1.Condition's validations, and the API server refuses what they refuse", () => {
  const valid = {
    type: "Ready",
    status: "True",
    reason: "AllSwitchesDown",
    message: "",
    lastTransitionTime: "2026-01-02T03:04:05Z",
    observedGeneration: 1,
  };
  const withCondition = (c: Record<string, unknown>) => ({ spec: {}, status: { conditions: [c] } });
  for (const plural of ["machines", "ats", "netperfs", "multisecrets"]) {
    const conditions = crdSchema(plural).properties.status.properties.conditions;
    assert.equal(conditions["x-kubernetes-list-type"], "map", plural);
    assert.deepEqual(conditions["x-kubernetes-list-map-keys"], ["type"], plural);
    assert.deepEqual([...conditions.items.required].sort(), [
      "lastTransitionTime",
      "message",
      "reason",
      "status",
      "type",
    ]);
    const conditionCauses = (c: Record<string, unknown>) =>
      validateAndDefault(withCondition(c), crdSchema(plural)).causes.filter((x) =>
        x.field?.startsWith("status.conditions")
      );
    assert.deepEqual(conditionCauses(valid), [], plural);
    const refused: [Record<string, unknown>, string][] = [
      [{ ...valid, reason: "" }, "reason"],
      [{ ...valid, reason: "not a reason" }, "reason"],
      [{ ...valid, reason: "x".repeat(1025) }, "reason"],
      [{ ...valid, type: "Ready!" }, "type"],
      [{ ...valid, type: "R".repeat(317) }, "type"],
      [{ ...valid, status: "Maybe" }, "status"],
      [{ ...valid, message: "m".repeat(32769) }, "message"],
      [{ ...valid, lastTransitionTime: "yesterday" }, "lastTransitionTime"],
      [{ ...valid, observedGeneration: -1 }, "observedGeneration"],
      [{ type: "Ready", status: "True", lastTransitionTime: valid.lastTransitionTime }, "reason"],
    ];
    for (const [condition, field] of refused) {
      assert.ok(
        conditionCauses(condition).some((c) => c.field?.endsWith(field)),
        `${plural}: ${JSON.stringify(condition).slice(0, 80)}`,
      );
    }
  }
});
