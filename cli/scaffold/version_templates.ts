/**
 * The files of a kind served at more than one version: `kubeop create api` on an existing kind writes
 * controllers/<kind>/schema_<version>.ts (that version's schema; the first version stays the storage version), and
 * `kubeop create webhook --convert` writes controllers/<kind>/conversion.ts (hub and spoke: the storage version is
 * the hub, each other version converts to and from it) with conversion_test.ts (a round trip of a sample, and the
 * dev environment reading at one version what was written at another, over HTTP).
 * @module
 */

import type { KindNames } from "./names.ts";

type SpokeNames = KindNames["spokes"][number];

/** The path of a served-only version's schema, relative to the project. */
export function versionSchemaPath(k: KindNames, spoke: SpokeNames): string {
  return `controllers/${k.lower}/schema_${spoke.version}.ts`;
}

/** controllers/<kind>/schema_<version>.ts. */
export function versionSchemaTs(k: KindNames, spoke: SpokeNames): string {
  const t = `${k.kind}${spoke.ident}`;
  return `/**
 * ${k.kind} at ${k.group}/${spoke.version}, served next to ${k.version} (./schema.ts), the storage version: objects
 * are stored as ${k.version} and converted by ./conversion.ts whenever a client reads or writes ${spoke.version}.
 * As an example ${spoke.version} calls spec.message spec.text: change this schema, then the conversion and its test.
 * controllers/mod.ts builds the CRD serving every version (\`deno task manifests\` writes it into crds/).
 * @module
 */
import { type Static, Type } from "@sinclair/typebox";
import { type CustomResourceSchema, customResourceType, type KubeObject, type ResourceType } from "@kubeop/kubeop";
import { ${k.kind}Resource, ${k.kind}SpecSchema, ${k.kind}StatusSchema } from "./schema.ts";

/** ${k.kind}.spec at ${spoke.version}: ${k.version}'s, with spec.message called spec.text. */
export const ${t}SpecSchema = Type.Composite([
  Type.Omit(${k.kind}SpecSchema, ["message"]),
  Type.Object({
    text: Type.String({ minLength: 1, maxLength: 1024, description: "Copied into the child ConfigMap's data.message." }),
  }),
]);

/** A ${k.kind} at ${spoke.version}. */
export interface ${t} extends KubeObject {
  /** Desired state. */
  spec: Static<typeof ${t}SpecSchema>;
  /** Observed state (the same in every version). */
  status?: Static<typeof ${k.kind}StatusSchema>;
}

/** ${k.kind} at ${spoke.version}: the same group, names and status as ${k.version}, its own spec. */
export const ${t}Resource: CustomResourceSchema = {
  ...${k.kind}Resource,
  version: "${spoke.version}",
  spec: ${t}SpecSchema,
  printerColumns: [{ name: "Text", type: "string", jsonPath: ".spec.text" }],
};

/** How clients address ${k.plural} at ${spoke.version}. */
export const ${t}Type: ResourceType = customResourceType(${t}Resource);
`;
}

/** The path of a kind's conversion module, relative to the project. */
export function conversionPath(k: KindNames): string {
  return `controllers/${k.lower}/conversion.ts`;
}

/** The names of a kind's conversion exports: the hub's apiVersion and the spokes. */
export function conversionNames(k: KindNames): { hub: string; spokes: string } {
  const upper = k.lower.toUpperCase();
  return { hub: `${upper}_HUB`, spokes: `${upper}_SPOKES` };
}

/** controllers/<kind>/conversion.ts. */
export function conversionTs(k: KindNames): string {
  const names = conversionNames(k);
  const imports = k.spokes.map((s) =>
    `import { type ${k.kind}${s.ident}, ${k.kind}${s.ident}Resource } from "./schema_${s.version}.ts";`
  );
  const spokes = k.spokes.map((s) => {
    const t = `${k.kind}${s.ident}`;
    return `
/** ${s.version} ⇄ ${k.version}: ${s.version} calls spec.message spec.text; nothing else differs, so nothing is lost. */
export const ${k.camel}${s.ident}Spoke: Spoke<Hub, ${t} & ConvertibleObject> = {
  apiVersion: \`\${${t}Resource.group}/\${${t}Resource.version}\`,
  toHub: ({ spec: { text, ...spec }, ...object }) => ({ ...object, spec: { ...spec, message: text } }),
  fromHub: ({ spec: { message, ...spec }, ...object }) => ({ ...object, spec: { ...spec, text: message } }),
};
`;
  });
  return `/**
 * ${k.kind}'s conversion between its versions, hub and spoke (controller-runtime's conversion.Hub and Convertible):
 * ${k.version}, the storage version, is the hub; every other version (a spoke) converts to it and back, so N versions
 * need 2(N-1) functions. kube-apiserver sends a ConversionReview to the operator's \`/convert\` whenever a client reads
 * or writes a version other than the stored one; controllers/mod.ts registers these with ${k.kind}'s webhook, the
 * runtime serves them, and \`deno task manifests\` points the CRD's spec.conversion at the webhook Service.
 *
 * A converter gets a copy and may change anything but metadata (labels and annotations excepted): keep every field
 * of one version somewhere in the other (an annotation, if need be), so a round trip loses nothing.
 * @module
 */
import type { ConvertibleObject, Spoke } from "@kubeop/kubeop";
import { type ${k.kind}, ${k.kind}Resource } from "./schema.ts";
${imports.join("\n")}

/** A ${k.kind} at the hub version. */
type Hub = ${k.kind} & ConvertibleObject;

/** The hub: the storage version's apiVersion. */
export const ${names.hub} = \`\${${k.kind}Resource.group}/\${${k.kind}Resource.version}\`;
${spokes.join("")}
/** Every spoke, as \`Webhook.convert\` takes them. */
export const ${names.spokes} = [${k.spokes.map((s) => `${k.camel}${s.ident}Spoke`).join(", ")}] as const;
`;
}

/** controllers/<kind>/conversion_test.ts. */
export function conversionTestTs(k: KindNames): string {
  const names = conversionNames(k);
  const nsMeta = k.clusterScoped ? "" : `, namespace: "default"`;
  const target = k.clusterScoped ? `, targetNamespace: "default"` : "";
  const nsOpt = k.clusterScoped ? "" : `, { namespace: "default" }`;
  const first = k.spokes[0];
  const t = `${k.kind}${first.ident}`;
  const perSpoke = k.spokes.map((s) => `
Deno.test("${k.lower} conversion: ${s.version} holds ${k.version}'s spec.message as spec.text", () => {
  const there = convertObject(sample(), "${k.group}/${s.version}", VERSIONS) as unknown as ${k.kind}${s.ident};
  assert.equal(there.spec.text, "hello");
  assert.equal("message" in there.spec, false);
});
`);
  return `import assert from "node:assert/strict";
import { convertObject, type ConvertibleObject, type HubAndSpokes, KubeClient, parseKubeconfig } from "@kubeop/kubeop";
import { startDevProject } from "@kubeop/kubeop/testing";
import { controllers, crds, webhooks } from "../mod.ts";
import { ${names.hub}, ${names.spokes} } from "./conversion.ts";
import { type ${k.kind}, ${k.kind}Type } from "./schema.ts";
${
    k.spokes.map((s) =>
      `import { ${s === first ? `type ${t}, ${t}Type` : `type ${k.kind}${s.ident}`} } from "./schema_${s.version}.ts";`
    ).join("\n")
  }

const VERSIONS: HubAndSpokes = { hub: ${names.hub}, spokes: ${names.spokes} };

function sample(name = "${k.lower}-sample"): ${k.kind} & ConvertibleObject {
  return {
    apiVersion: ${names.hub},
    kind: "${k.kind}",
    metadata: { name${nsMeta}, labels: { app: "demo" } },
    spec: { message: "hello"${target} },
  };
}

Deno.test("${k.lower} conversion: a sample goes to every version and back unchanged", () => {
  for (const spoke of ${names.spokes}) {
    const there = convertObject(sample(), spoke.apiVersion, VERSIONS);
    assert.equal(there.apiVersion, spoke.apiVersion);
    assert.deepEqual(convertObject(there, ${names.hub}, VERSIONS), sample());
  }
});
${perSpoke.join("")}
Deno.test("${k.lower} conversion: in the dev environment, what is written at one version reads at the other", async () => {
  const dir = await Deno.makeTempDir();
  const dev = await startDevProject({ crds, controllers, webhooks }, { kubeconfigOut: \`\${dir}/dev.kubeconfig\` });
  const client = new KubeClient({ config: await parseKubeconfig(dev.server.kubeconfig) });
  try {
    await client.create(${k.kind}Type, sample()${nsOpt});
    const there = await client.get<${t}>(${t}Type, "${k.lower}-sample"${nsOpt});
    assert.equal(there.apiVersion, "${k.group}/${first.version}");
    assert.equal(there.spec.text, "hello");
    const written: ${t} = {
      apiVersion: "${k.group}/${first.version}",
      kind: "${k.kind}",
      metadata: { name: "${k.lower}-${first.version}"${nsMeta} },
      spec: { text: "hi"${target} },
    };
    await client.create(${t}Type, written${nsOpt});
    const back = await client.get<${k.kind}>(${k.kind}Type, "${k.lower}-${first.version}"${nsOpt});
    assert.equal(back.spec.message, "hi");
  } finally {
    client.close();
    await dev.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
`;
}
