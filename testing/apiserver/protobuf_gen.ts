/**
 * Generates protobuf_types.json — the kinds kube-apiserver serves in protobuf and the field tables
 * {@link decodeKubernetesProtobuf} uses — from kube's own type registry: every group-version package of the
 * k8s.io/api module (plus apiextensions.k8s.io/v1 and apiregistration.k8s.io/v1, which kube-apiserver also serves
 * in protobuf) that has a `register.go` and a `generated.proto`. A package's `GroupName`, its `SchemeGroupVersion`
 * version and the types its `addKnownTypes` registers name the kinds; `generated.proto` gives their messages and
 * field numbers; `generated.pb.go` says which fields are Go pointers (those keep zero values in JSON, the others are
 * `omitempty`); `types.go` says which are embedded with `json:",inline"` and gives the JSON names where they are not
 * the proto names (`$ref`, `x-kubernetes-preserve-unknown-fields`, `apiGroup` for `aPIGroup`).
 *
 * Run (the modules are in the Go module cache once scripts/k8s-bin.sh has built the control plane; else
 * `go mod download k8s.io/api@v0.37.2 k8s.io/apimachinery@v0.37.2 k8s.io/apiextensions-apiserver@v0.37.2
 * k8s.io/kube-aggregator@v0.37.2`):
 *   deno run --allow-read --allow-write --allow-run testing/apiserver/protobuf_gen.ts [GOMODCACHE]
 * tests/protobuf_types_drift_test.ts checks the checked-in file is what this prints.
 * @module
 */

/** The k8s.io staging module version the tables come from: kube v1.37.2's. */
export const PROTOBUF_MODULE_VERSION = "v0.37.2";

interface Field {
  number: number;
  name: string;
  type: string;
  repeated: boolean;
  pointer: boolean;
  /** Go embeds it with `json:",inline"`: its fields belong to the parent in JSON. */
  inline: boolean;
  /** The message is a Go slice type (`+protobuf.nullable=true`, e.g. ExtraValue): its JSON form is this field's. */
  alias?: boolean;
}

const SCALARS = new Set([
  "string",
  "bytes",
  "bool",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "double",
  "float",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
]);

/** Per `Struct#fieldNumber` (from types.go): the JSON name when it is not the proto name, and whether the field is
 * embedded with `json:",inline"` or `json:""` (its fields belong to the parent in JSON). */
interface JsonTag {
  name: string;
  inline: boolean;
}

function parseJsonTags(goTypes: string): Map<string, JsonTag> {
  const result = new Map<string, JsonTag>();
  let struct = "";
  for (const line of goTypes.split("\n")) {
    const t = /^type (\w+) struct \{/.exec(line);
    if (t) struct = t[1];
    if (/^\s*\/\//.test(line)) continue; // a comment may quote a field (meta/v1's Condition doc does)
    const f = /json:"([^",]*)(,inline)?[^"]*"(?: \w+:"[^"]*")* protobuf:"\w+,(\d+),/.exec(line);
    if (f && struct) result.set(`${struct}#${f[3]}`, { name: f[1], inline: f[1] === "" });
  }
  return result;
}

function parseProto(
  text: string,
  pointers: Map<string, Set<string>>,
  jsonTags: Map<string, JsonTag>,
  out: Map<string, Field[]>,
): string {
  const pkg = /^package ([\w.]+);/m.exec(text)?.[1];
  if (!pkg) throw new Error("generated.proto without a package line");
  let current: string | undefined;
  let sliceType = false;
  let commentSaysSlice = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    if (line === "") {
      commentSaysSlice ||= /\/\/ \+protobuf\.nullable=true/.test(raw);
      continue;
    }
    const m = /^message (\w+) \{/.exec(line);
    if (m) {
      current = `${pkg}.${m[1]}`;
      out.set(current, []);
      sliceType = commentSaysSlice;
      commentSaysSlice = false;
      continue;
    }
    commentSaysSlice = false;
    if (line === "}") {
      current = undefined;
      continue;
    }
    if (!current) continue;
    const qualify = (t: string) => SCALARS.has(t) ? t : t.startsWith(".") ? t.slice(1) : `${pkg}.${t}`;
    const ptr = (name: string) => pointers.get(current!.split(".").pop()!)?.has(name.toLowerCase()) ?? false;
    // The JSON name, where types.go's json tag differs from the proto name (`$ref`, `x-kubernetes-*`, `apiGroup`
    // for proto `aPIGroup`); not for `json:"-"` (RawExtension's and FieldsV1's raw bytes).
    const tag = (number: string) => jsonTags.get(`${current!.split(".").pop()}#${number}`);
    const jsonName = (protoName: string, number: string) => {
      const name = tag(number)?.name;
      return name && name !== "-" ? name : protoName;
    };
    const f = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);/.exec(line);
    if (f) {
      out.get(current)!.push({
        number: Number(f[4]),
        name: jsonName(f[3], f[4]),
        type: qualify(f[2]),
        repeated: f[1] === "repeated",
        pointer: ptr(f[3]),
        inline: tag(f[4])?.inline ?? false,
        alias: sliceType,
      });
      continue;
    }
    const mp = /^map<(\w+), ([\w.]+)> (\w+) = (\d+);/.exec(line);
    if (mp) {
      out.get(current)!.push({
        number: Number(mp[4]),
        name: jsonName(mp[3], mp[4]),
        type: `map:${qualify(mp[2])}`,
        repeated: false,
        pointer: false,
        inline: false,
      });
    }
  }
  return pkg;
}

/** Go field names (lower-cased) marshalled under `if m.X != nil`, per message. */
function parsePointers(goText: string): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>();
  const re = /^func \(m \*(\w+)\) MarshalToSizedBuffer\(/gm;
  const starts = [...goText.matchAll(re)];
  for (let i = 0; i < starts.length; i++) {
    const body = goText.slice(starts[i].index!, starts[i + 1]?.index ?? goText.length);
    const set = new Set<string>();
    for (const p of body.matchAll(/\tif m\.(\w+) != nil \{/g)) set.add(p[1].toLowerCase());
    result.set(starts[i][1], set);
  }
  return result;
}

/**
 * The group, version and kinds a `register.go` registers (`addKnownTypes`; meta/v1's `AddMetaToScheme`: Table and
 * PartialObjectMetadata(List) in meta.k8s.io/v1), or undefined for none.
 */
function parseRegister(text: string): { groupVersion: string; kinds: string[] } | undefined {
  const group = /const GroupName = "([^"]*)"/.exec(text)?.[1];
  const version = /SchemeGroupVersion = schema\.GroupVersion\{Group: GroupName, Version: "([^"]+)"\}/.exec(text)?.[1];
  const body = /func (?:addKnownTypes|AddMetaToScheme)\(scheme \*runtime\.Scheme\) error \{([\s\S]*?)\n\}/.exec(text)
    ?.[1];
  if (group === undefined || !version || !body) return undefined;
  const kinds = [...body.matchAll(/&(\w+)\{\}/g)].map((m) => m[1]);
  return { groupVersion: group ? `${group}/${version}` : version, kinds };
}

function readOrEmpty(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return "";
  }
}

/** The package directories (relative to the module cache) that register API kinds. */
function registeredPackages(root: string): string[] {
  const v = PROTOBUF_MODULE_VERSION;
  const api = `k8s.io/api@${v}`;
  const dirs: string[] = [];
  for (const group of Deno.readDirSync(`${root}/${api}`)) {
    if (!group.isDirectory) continue;
    for (const version of Deno.readDirSync(`${root}/${api}/${group.name}`)) {
      if (version.isDirectory) dirs.push(`${api}/${group.name}/${version.name}`);
    }
  }
  dirs.push(
    `k8s.io/apimachinery@${v}/pkg/apis/meta/v1`,
    `k8s.io/apiextensions-apiserver@${v}/pkg/apis/apiextensions/v1`,
    `k8s.io/kube-aggregator@${v}/pkg/apis/apiregistration/v1`,
  );
  return dirs.filter((d) => readOrEmpty(`${root}/${d}/register.go`) && readOrEmpty(`${root}/${d}/generated.proto`))
    .sort();
}

/** Packages whose messages the registered kinds refer to. */
const SUPPORT_PACKAGES = [
  "apis/meta/v1",
  "runtime",
  "util/intstr",
  "api/resource",
].map((p) => `k8s.io/apimachinery@${PROTOBUF_MODULE_VERSION}/pkg/${p}`);

const PREFIXES: [string, string][] = [
  ["k8s.io.apimachinery.pkg.apis.meta.v1.", "meta."],
  ["k8s.io.apimachinery.pkg.", "am."],
  ["k8s.io.api.", "api."],
  ["k8s.io.apiextensions_apiserver.pkg.apis.", "apiext."],
  ["k8s.io.kube_aggregator.pkg.apis.", "agg."],
];
const short = (t: string) => {
  for (const [long, s] of PREFIXES) if (t.startsWith(long)) return s + t.slice(long.length);
  return t;
};

/**
 * The JSON text of protobuf_types.json for the modules under `root` (a Go module cache directory).
 *
 * @example
 * ```ts ignore
 * import { generateProtobufTypes } from "./protobuf_gen.ts";
 * Deno.writeTextFileSync("protobuf_types.json", generateProtobufTypes(`${Deno.env.get("HOME")}/go/pkg/mod`));
 * ```
 */
export function generateProtobufTypes(root: string): string {
  const messages = new Map<string, Field[]>();
  const groups: Record<string, { package: string; kinds: string[] }> = {};
  const fullPackages = new Map<string, string>(); // group-version → proto package
  const load = (dir: string) => {
    const goTypes = [...Deno.readDirSync(`${root}/${dir}`)]
      .filter((e) => /^types.*\.go$/.test(e.name) && !e.name.endsWith("_test.go") && !e.name.includes("swagger"))
      .map((e) => readOrEmpty(`${root}/${dir}/${e.name}`)).join("\n");
    return parseProto(
      Deno.readTextFileSync(`${root}/${dir}/generated.proto`),
      parsePointers(readOrEmpty(`${root}/${dir}/generated.pb.go`)),
      parseJsonTags(goTypes),
      messages,
    );
  };
  SUPPORT_PACKAGES.forEach(load);
  for (const dir of registeredPackages(root)) {
    const pkg = load(dir);
    const registered = parseRegister(readOrEmpty(`${root}/${dir}/register.go`));
    if (!registered) continue;
    const kinds = registered.kinds.filter((k) => messages.has(`${pkg}.${k}`)).sort();
    if (!kinds.length) continue;
    // The short package is what prefixes the kinds' short message names (meta/v1: `meta`, apps/v1: `api.apps.v1`).
    groups[registered.groupVersion] = { package: short(`${pkg}.X`).slice(0, -2), kinds };
    fullPackages.set(registered.groupVersion, pkg);
  }
  const needed = new Set<string>();
  const visit = (name: string) => {
    if (needed.has(name) || !messages.has(name)) return;
    needed.add(name);
    for (const f of messages.get(name)!) visit(f.type.replace(/^map:/, ""));
  };
  for (const [gv, { kinds }] of Object.entries(groups)) {
    for (const kind of kinds) visit(`${fullPackages.get(gv)}.${kind}`);
  }
  // Request bodies (DeleteOptions, the Unknown envelope) and answers (Status errors, watch frames) of every group.
  [
    "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
    "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent",
    "k8s.io.apimachinery.pkg.runtime.Unknown",
  ].forEach(visit);
  const table: Record<string, string> = {};
  for (const name of [...needed].sort()) {
    table[short(name)] = messages.get(name)!.map((f) =>
      `${f.number}:${f.name}:${f.type.startsWith("map:") ? "map:" + short(f.type.slice(4)) : short(f.type)}${
        f.repeated || f.pointer || f.inline || f.alias ? ":" : ""
      }${f.repeated ? "r" : ""}${f.pointer ? "p" : ""}${f.inline ? "i" : ""}${f.alias ? "l" : ""}`
    ).join(" ");
  }
  const sortedGroups = Object.fromEntries(Object.entries(groups).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify(
    {
      comment: [
        `Generated by testing/apiserver/protobuf_gen.ts from kube's type registry (k8s.io modules ${PROTOBUF_MODULE_VERSION}). Do not edit.`,
        "groups: group/version → proto package and the kinds registered there (register.go addKnownTypes).",
        "messages: fields as `number:name:type[:flags]`; flags r = repeated, p = Go pointer (keeps zero values), i = inline, l = the message is a Go slice whose JSON form is this field.",
        "Type prefixes: meta. = k8s.io.apimachinery.pkg.apis.meta.v1., am. = k8s.io.apimachinery.pkg., api. = k8s.io.api., apiext. = k8s.io.apiextensions_apiserver.pkg.apis., agg. = k8s.io.kube_aggregator.pkg.apis.",
      ],
      groups: sortedGroups,
      messages: table,
    },
    null,
    2,
  ) + "\n";
}

/** The Go module cache (`go env GOMODCACHE`, else ~/go/pkg/mod). */
export function goModCache(): string {
  try {
    const out = new Deno.Command("go", { args: ["env", "GOMODCACHE"], stdout: "piped", stderr: "null" }).outputSync();
    const dir = new TextDecoder().decode(out.stdout).trim();
    if (out.success && dir) return dir;
  } catch { /* no go */ }
  return `${Deno.env.get("HOME")}/go/pkg/mod`;
}

if (import.meta.main) {
  const root = Deno.args[0] ?? goModCache();
  Deno.writeTextFileSync(new URL("./protobuf_types.json", import.meta.url), generateProtobufTypes(root));
}
