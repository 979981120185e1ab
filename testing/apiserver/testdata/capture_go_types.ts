/**
 * Records the Go field types of every built-in kind the fake serves (and every struct they reach), as kube-apiserver
 * v1.37's `/openapi/v3` describes them, into testdata/openapi/go_types.json: the table ../go_json_types.ts checks
 * request bodies against, as kube's JSON decoder does (`json: cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.labels of type string`). One line per struct, `field:type` pairs; types are `string`, `int32`,
 * `int64`, `bool`, `float64`, `[]byte`, `quantity`, `intstr`, `any` (raw JSON), `[]<type>`, `map[string]<type>` or
 * `#<struct>` (an empty struct is an empty line: every field in it is unknown).
 *
 * OpenAPI loses Go's type names (`v1.SecretType` is a `string` there), so the capture also runs the Go program in
 * go_type_names/ (reflect over k8s.io/api v0.37.2's structs, from the Go module cache, offline) and records under
 * `names` one line per struct, `field:level,level...` pairs, for the fields whose Go type is or holds a named type:
 * level 0 is the field's Go type as encoding/json prints it in an UnmarshalTypeError, level i+1 the element (slice)
 * or value (map) type of level i (`add:[]v1.Capability,v1.Capability`, `limits:v1.ResourceList,resource.Quantity`).
 *
 *   deno run --allow-all testing/apiserver/testdata/capture_go_types.ts                   # starts a real control plane
 *   deno run --allow-all testing/apiserver/testdata/capture_go_types.ts <kubeconfig>      # a running kube-apiserver
 * @module
 */
import { startRealControlPlane } from "../../envtest/real_control_plane.ts";
import { BUILTIN_RESOURCES } from "../builtin_resources.ts";

// deno-lint-ignore no-explicit-any
type Schema = any;
/** Definitions whose Go types keep raw JSON (custom UnmarshalJSON): never checked field by field. */
const RAW_JSON = /\.(RawExtension|FieldsV1|JSON|JSONSchemaPropsOr\w+)$/;

const out = new URL("./openapi/go_types.json", import.meta.url).pathname;
const plane = Deno.args[0] ? undefined : await startRealControlPlane();
const kubeconfig = await Deno.readTextFile(Deno.args[0] ?? plane!.kubeconfigPath);
const server = plane?.url ?? kubeconfig.match(/server: (\S+)/)![1];
const token = kubeconfig.match(/token: (\S+)/)![1];
const ca = atob(kubeconfig.match(/certificate-authority-data: (\S+)/)![1]);
const client = Deno.createHttpClient({ caCerts: [ca] });
try {
  const kinds: Record<string, string> = {};
  const structs: Record<string, string> = {};
  const docs = new Map<string, Record<string, Schema>>();
  for (const def of BUILTIN_RESOURCES) {
    const path = def.group ? `apis/${def.group}/${def.version}` : `api/${def.version}`;
    if (!docs.has(path)) {
      const res = await fetch(`${server}/openapi/v3/${path}`, {
        headers: { authorization: `Bearer ${token}` },
        client,
      });
      if (!res.ok) {
        await res.body?.cancel();
        console.warn(`skipped ${path}: ${res.status}`);
        docs.set(path, {});
        continue;
      }
      docs.set(path, (await res.json()).components.schemas);
    }
    const schemas = docs.get(path)!;
    const name = Object.keys(schemas).find((n) =>
      (schemas[n]["x-kubernetes-group-version-kind"] ?? []).some((g: Schema) =>
        g.group === def.group && g.version === def.version && g.kind === def.kind
      )
    );
    if (!name) {
      console.warn(`no schema for ${def.group}/${def.version} ${def.kind}`);
      continue;
    }
    kinds[`${def.group}/${def.version}/${def.kind}`] = name;
    const pending = [name];
    while (pending.length > 0) {
      const n = pending.pop()!;
      if (n in structs) continue;
      const props = schemas[n]?.properties ?? {};
      structs[n] = Object.entries(props).map(([field, s]) => `${field}:${typeOf(s, schemas, pending)}`).join(" ");
    }
  }
  const sorted = Object.fromEntries(Object.keys(structs).sort().map((n) => [n, structs[n]]));
  const names = await goTypeNames(sorted);
  await Deno.writeTextFile(out, JSON.stringify({ kinds, structs: sorted, names }, null, 1) + "\n");
  console.log(`wrote ${Object.keys(kinds).length} kinds, ${Object.keys(structs).length} structs to ${out}`);
} finally {
  client.close();
  await plane?.stop();
}

/**
 * The Go type names of the recorded structs' fields, from `go run` of go_type_names/ (offline, from the module cache):
 * struct → `field:level,level...` pairs, only for fields the OpenAPI table records.
 */
async function goTypeNames(recorded: Record<string, string>): Promise<Record<string, string>> {
  const run = await new Deno.Command("go", {
    args: ["run", "."],
    cwd: new URL("./go_type_names/", import.meta.url).pathname,
    env: { GOFLAGS: "-mod=mod", GOPROXY: "off", GOSUMDB: "off" },
    stderr: "inherit",
  }).output();
  if (!run.success) throw new Error(`go run go_type_names failed (exit ${run.code})`);
  const captured: Record<string, Record<string, string[]>> = JSON.parse(new TextDecoder().decode(run.stdout));
  const names: Record<string, string> = {};
  for (const struct of Object.keys(recorded)) {
    const fields = new Set(recorded[struct].split(" ").map((p) => p.slice(0, p.indexOf(":"))));
    const line = Object.entries(captured[struct] ?? {}).filter(([field]) => fields.has(field))
      .sort(([a], [b]) => a < b ? -1 : 1).map(([field, levels]) => `${field}:${levels.join(",")}`).join(" ");
    if (line) names[struct] = line;
  }
  return names;
}

/** The compact Go type of schema `s`; struct references are queued on `pending`. */
function typeOf(s: Schema, schemas: Record<string, Schema>, pending: string[]): string {
  const ref: string | undefined = s.$ref ?? s.allOf?.[0]?.$ref;
  if (ref) {
    const name = ref.split("/").pop()!;
    const target = schemas[name] ?? {};
    if (name.endsWith(".resource.Quantity")) return "quantity";
    if (target.format === "int-or-string") return "intstr";
    // A struct; an object without properties is an empty struct (its fields are all unknown) unless it holds raw
    // JSON (RawExtension, FieldsV1, apiextensions' JSON and JSONSchemaPropsOr*): those are `any`.
    if (target.properties || (target.type === "object" && !RAW_JSON.test(name))) {
      pending.push(name);
      return `#${name}`;
    }
    if (target.type && target.type !== "object") return typeOf(target, schemas, pending);
    return "any";
  }
  switch (s.type) {
    case "string":
      return s.format === "byte" ? "[]byte" : "string";
    case "integer":
      return s.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "array":
      return s.items ? `[]${typeOf(s.items, schemas, pending)}` : "any";
    case "object":
      if (s.additionalProperties && typeof s.additionalProperties === "object") {
        return `map[string]${typeOf(s.additionalProperties, schemas, pending)}`;
      }
      return "any";
    default:
      return s.format === "int-or-string" ? "intstr" : "any";
  }
}
