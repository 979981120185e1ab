/**
 * Generates protobuf_types.ts — the field tables {@link decodeKubernetesProtobuf} uses — from the `generated.proto`
 * files of the k8s.io/api and k8s.io/apimachinery Go modules, plus which scalar/message fields are Go pointers
 * (read from `generated.pb.go`: those keep zero values in JSON, the others are `omitempty`).
 *
 * Run (needs Go for the module download):
 *   go mod download -json k8s.io/api@v0.33.0 k8s.io/apimachinery@v0.33.0
 *   deno run --allow-read testing/apiserver/protobuf_gen.ts <GOMODCACHE>/k8s.io > testing/apiserver/protobuf_types.ts
 *   deno fmt testing/apiserver/protobuf_types.ts
 * @module
 */

/** Root messages: the kinds kubectl's typed clients create with protobuf bodies, and a few more. */
const ROOTS = [
  "k8s.io.api.core.v1.Namespace",
  "k8s.io.api.core.v1.ConfigMap",
  "k8s.io.api.core.v1.Secret",
  "k8s.io.api.core.v1.ServiceAccount",
  "k8s.io.api.core.v1.Service",
  "k8s.io.api.core.v1.Pod",
  "k8s.io.api.core.v1.Endpoints",
  "k8s.io.api.core.v1.Event",
  "k8s.io.api.core.v1.ResourceQuota",
  "k8s.io.api.core.v1.Node",
  "k8s.io.api.apps.v1.Deployment",
  "k8s.io.api.rbac.v1.Role",
  "k8s.io.api.rbac.v1.RoleBinding",
  "k8s.io.api.rbac.v1.ClusterRole",
  "k8s.io.api.rbac.v1.ClusterRoleBinding",
  "k8s.io.api.batch.v1.Job",
  "k8s.io.api.batch.v1.CronJob",
  "k8s.io.api.coordination.v1.Lease",
  "k8s.io.api.policy.v1.PodDisruptionBudget",
  "k8s.io.api.networking.v1.Ingress",
  "k8s.io.api.core.v1.Binding",
  "k8s.io.api.core.v1.PersistentVolumeClaim",
  "k8s.io.api.apps.v1.StatefulSet",
  "k8s.io.api.apps.v1.DaemonSet",
  "k8s.io.api.apps.v1.ReplicaSet",
  "k8s.io.api.policy.v1.Eviction",
  "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
  "k8s.io.apimachinery.pkg.runtime.Unknown",
  "k8s.io.api.authorization.v1.SubjectAccessReview",
  "k8s.io.api.authorization.v1.LocalSubjectAccessReview",
  "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
  "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
  "k8s.io.api.authentication.v1.TokenReview",
  "k8s.io.api.authentication.v1.TokenRequest",
  "k8s.io.api.authentication.v1.SelfSubjectReview",
];

const FILES: [string, string][] = [
  ["api@v0.33.0/core/v1", "k8s.io.api.core.v1"],
  ["api@v0.33.0/apps/v1", "k8s.io.api.apps.v1"],
  ["api@v0.33.0/rbac/v1", "k8s.io.api.rbac.v1"],
  ["api@v0.33.0/batch/v1", "k8s.io.api.batch.v1"],
  ["api@v0.33.0/coordination/v1", "k8s.io.api.coordination.v1"],
  ["api@v0.33.0/policy/v1", "k8s.io.api.policy.v1"],
  ["api@v0.33.0/networking/v1", "k8s.io.api.networking.v1"],
  ["api@v0.33.0/authorization/v1", "k8s.io.api.authorization.v1"],
  ["api@v0.33.0/authentication/v1", "k8s.io.api.authentication.v1"],
  ["apimachinery@v0.33.0/pkg/apis/meta/v1", "k8s.io.apimachinery.pkg.apis.meta.v1"],
  ["apimachinery@v0.33.0/pkg/runtime", "k8s.io.apimachinery.pkg.runtime"],
  ["apimachinery@v0.33.0/pkg/util/intstr", "k8s.io.apimachinery.pkg.util.intstr"],
  ["apimachinery@v0.33.0/pkg/api/resource", "k8s.io.apimachinery.pkg.api.resource"],
];

interface Field {
  number: number;
  name: string;
  type: string;
  repeated: boolean;
  pointer: boolean;
  /** Go embeds it with `json:",inline"`: its fields belong to the parent in JSON. */
  inline: boolean;
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

/** `Struct#fieldNumber` of fields embedded with `json:",inline"` (from types.go). */
function parseInline(goTypes: string): Set<string> {
  const result = new Set<string>();
  let struct = "";
  for (const line of goTypes.split("\n")) {
    const t = /^type (\w+) struct \{/.exec(line);
    if (t) struct = t[1];
    const f = /json:",inline" protobuf:"\w+,(\d+),/.exec(line);
    if (f && struct) result.add(`${struct}#${f[1]}`);
  }
  return result;
}

function parseProto(
  text: string,
  pkg: string,
  pointers: Map<string, Set<string>>,
  inline: Set<string>,
  out: Map<string, Field[]>,
) {
  const lines = text.split("\n").map((l) => l.replace(/\/\/.*$/, "").trim());
  let current: string | undefined;
  for (const line of lines) {
    const m = /^message (\w+) \{/.exec(line);
    if (m) {
      current = `${pkg}.${m[1]}`;
      out.set(current, []);
      continue;
    }
    if (line === "}") {
      current = undefined;
      continue;
    }
    if (!current) continue;
    const qualify = (t: string) => SCALARS.has(t) ? t : t.startsWith(".") ? t.slice(1) : `${pkg}.${t}`;
    const ptr = (name: string) => pointers.get(current!.split(".").pop()!)?.has(name.toLowerCase()) ?? false;
    const f = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);/.exec(line);
    if (f) {
      out.get(current)!.push({
        number: Number(f[4]),
        name: f[3],
        type: qualify(f[2]),
        repeated: f[1] === "repeated",
        pointer: ptr(f[3]),
        inline: inline.has(`${current.split(".").pop()}#${f[4]}`),
      });
      continue;
    }
    const mp = /^map<(\w+), ([\w.]+)> (\w+) = (\d+);/.exec(line);
    if (mp) {
      out.get(current)!.push({
        number: Number(mp[4]),
        name: mp[3],
        type: `map:${qualify(mp[2])}`,
        repeated: false,
        pointer: false,
        inline: false,
      });
    }
  }
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

const root = Deno.args[0];
const messages = new Map<string, Field[]>();
for (const [dir, pkg] of FILES) {
  const proto = Deno.readTextFileSync(`${root}/${dir}/generated.proto`);
  let goText = "";
  try {
    goText = Deno.readTextFileSync(`${root}/${dir}/generated.pb.go`);
  } catch { /* no Go code: no pointer information */ }
  let goTypes = "";
  try {
    goTypes = Deno.readTextFileSync(`${root}/${dir}/types.go`);
  } catch { /* no types.go: nothing inline */ }
  parseProto(proto, pkg, parsePointers(goText), parseInline(goTypes), messages);
}
const needed = new Set<string>();
const visit = (name: string) => {
  if (needed.has(name) || !messages.has(name)) return;
  needed.add(name);
  for (const f of messages.get(name)!) visit(f.type.replace(/^map:/, ""));
};
ROOTS.forEach(visit);
const prefixes: [string, string][] = [
  ["k8s.io.apimachinery.pkg.apis.meta.v1.", "meta."],
  ["k8s.io.apimachinery.pkg.", "am."],
  ["k8s.io.api.", "api."],
];
const short = (t: string) => {
  for (const [long, s] of prefixes) if (t.startsWith(long)) return s + t.slice(long.length);
  return t;
};
const out: string[] = [
  "// Generated by testing/apiserver/protobuf_gen.ts from k8s.io/api and k8s.io/apimachinery v0.33.0 generated.proto. Do not edit.",
  "// Each message: fields as `number:name:type[:flags]`; flags r = repeated, p = Go pointer (keeps zero values), i = inline.",
  "// Type prefixes: meta. = k8s.io.apimachinery.pkg.apis.meta.v1., am. = k8s.io.apimachinery.pkg., api. = k8s.io.api.",
  "",
  "/** Field tables by short message name. */",
  "export const MESSAGES: Record<string, string> = {",
];
for (const name of [...needed].sort()) {
  const fields = messages.get(name)!.map((f) =>
    `${f.number}:${f.name}:${f.type.startsWith("map:") ? "map:" + short(f.type.slice(4)) : short(f.type)}${
      f.repeated || f.pointer || f.inline ? ":" : ""
    }${f.repeated ? "r" : ""}${f.pointer ? "p" : ""}${f.inline ? "i" : ""}`
  );
  out.push(`  ${JSON.stringify(short(name))}: ${JSON.stringify(fields.join(" "))},`);
}
out.push("};", "");
console.log(out.join("\n"));
