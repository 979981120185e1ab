/**
 * The Swagger 2.0 document as gnostic's `openapi.v2.Document` protobuf
 * (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`), what client-go's `discovery.OpenAPISchema()`
 * asks for and unmarshals: kube-openapi parses its JSON with gnostic (`openapi_v2.ParseDocument`) and marshals that.
 * Field numbers are gnostic-models v0.7.0's OpenAPIv2.proto; proto3 rules (zero scalars omitted, fields in number
 * order). Values gnostic keeps as `Any` (vendor extensions, `default`, `enum`, `example`) carry YAML text as gnostic
 * writes it for plain maps, lists and scalars (block style, 4-space indent); strings that would need YAML's
 * more unusual quoting rules are written JSON-quoted, which YAML reads the same.
 * @module
 */
import { ProtobufWriter } from "./protobuf_writer.ts";

type Json = Record<string, unknown>;
const utf8 = new TextEncoder();

/** A message's encoder: fills a writer from a JSON value. */
type Encode = (w: ProtobufWriter, v: Json) => void;

function message(encode: Encode, v: Json): Uint8Array {
  const w = new ProtobufWriter();
  encode(w, v);
  return w.finish();
}

function str(w: ProtobufWriter, n: number, v: unknown): void {
  if (typeof v === "string" && v !== "") w.delimited(n, utf8.encode(v));
}

function strs(w: ProtobufWriter, n: number, v: unknown): void {
  if (Array.isArray(v)) { for (const s of v) w.delimited(n, utf8.encode(String(s))); }
}

function bool(w: ProtobufWriter, n: number, v: unknown): void {
  if (v === true) {
    w.tag(n, 0);
    w.varint(1);
  }
}

function int64(w: ProtobufWriter, n: number, v: unknown): void {
  if (typeof v === "number" && v !== 0) {
    w.tag(n, 0);
    w.varint(Math.trunc(v));
  }
}

function double(w: ProtobufWriter, n: number, v: unknown): void {
  if (typeof v === "number" && v !== 0) w.fixed(n, v, true);
}

function sub(w: ProtobufWriter, n: number, encode: Encode, v: unknown): void {
  if (v !== undefined && v !== null && typeof v === "object") w.delimited(n, message(encode, v as Json));
}

const YAML_PLAIN = /^[A-Za-z_/][A-Za-z0-9_./ -]*$/;
const YAML_RESERVED = /^(true|false|yes|no|on|off|y|n|null|~)$/i;

function yamlScalar(v: unknown): string {
  if (typeof v === "string") {
    return YAML_PLAIN.test(v) && !YAML_RESERVED.test(v) && !v.endsWith(" ") && !v.includes(" -")
      ? v
      : JSON.stringify(v);
  }
  return v === null ? "null" : String(v);
}

const isBlock = (v: unknown) => v !== null && typeof v === "object" && Object.keys(v).length > 0;
const inline = (v: unknown) => (Array.isArray(v) ? "[]" : v !== null && typeof v === "object" ? "{}" : yamlScalar(v));

/**
 * YAML text of a JSON value in go-yaml v3's block style (what gnostic stores in an Any): nested blocks 4 spaces in,
 * a list item's map continuing 2 spaces in after its `- `.
 *
 * @example
 * ```ts
 * import { toYaml } from "./openapi_v2_protobuf.ts";
 * console.assert(toYaml({ group: "", kind: "Pod" }) === 'group: ""\nkind: Pod\n');
 * ```
 */
export function toYaml(v: unknown, indent = ""): string {
  if (!isBlock(v)) return `${indent}${inline(v)}\n`;
  if (Array.isArray(v)) {
    return v.map((item) => {
      if (!isBlock(item)) return `${indent}- ${inline(item)}\n`;
      const block = toYaml(item, indent + "  ");
      return `${indent}- ${block.slice(indent.length + 2)}`;
    }).join("");
  }
  return Object.entries(v as Json).map(([k, item]) =>
    isBlock(item)
      ? `${indent}${yamlScalar(k)}:\n${toYaml(item, indent + "    ")}`
      : `${indent}${yamlScalar(k)}: ${inline(item)}\n`
  ).join("");
}

const anyValue: Encode = (w, v) => str(w, 2, toYaml((v as { value: unknown }).value));
const any = (w: ProtobufWriter, n: number, v: unknown) => {
  if (v !== undefined) sub(w, n, anyValue, { value: v });
};
const anys = (w: ProtobufWriter, n: number, v: unknown) => {
  if (Array.isArray(v)) { for (const item of v) sub(w, n, anyValue, { value: item }); }
};

/** The `x-` keys of an object as repeated NamedAny. */
function extensions(w: ProtobufWriter, n: number, v: Json): void {
  for (const [k, value] of Object.entries(v)) {
    if (k.startsWith("x-")) {
      sub(w, n, (nw) => {
        str(nw, 1, k);
        any(nw, 2, value);
      }, {});
    }
  }
}

/** A map as repeated Named<X> messages (name 1, value 2). */
function named(w: ProtobufWriter, n: number, encode: Encode, v: unknown, skipExtensions = false): void {
  if (!v || typeof v !== "object") return;
  for (const [k, value] of Object.entries(v as Json)) {
    if (skipExtensions && k.startsWith("x-")) continue;
    sub(w, n, (nw) => {
      str(nw, 1, k);
      sub(nw, 2, encode, value);
    }, {});
  }
}

const externalDocs: Encode = (w, v) => {
  str(w, 1, v.description);
  str(w, 2, v.url);
  extensions(w, 3, v);
};

const schema: Encode = (w, v) => {
  str(w, 1, v.$ref);
  str(w, 2, v.format);
  str(w, 3, v.title);
  str(w, 4, v.description);
  any(w, 5, v.default);
  double(w, 6, v.multipleOf);
  double(w, 7, v.maximum);
  bool(w, 8, v.exclusiveMaximum);
  double(w, 9, v.minimum);
  bool(w, 10, v.exclusiveMinimum);
  int64(w, 11, v.maxLength);
  int64(w, 12, v.minLength);
  str(w, 13, v.pattern);
  int64(w, 14, v.maxItems);
  int64(w, 15, v.minItems);
  bool(w, 16, v.uniqueItems);
  int64(w, 17, v.maxProperties);
  int64(w, 18, v.minProperties);
  strs(w, 19, v.required);
  anys(w, 20, v.enum);
  const additional = v.additionalProperties;
  if (typeof additional === "boolean") {
    sub(w, 21, (nw) => { // a oneof member is written even at its zero value
      nw.tag(2, 0);
      nw.varint(additional ? 1 : 0);
    }, {});
  } else sub(w, 21, (nw, a) => sub(nw, 1, schema, a), additional);
  if (v.type !== undefined) sub(w, 22, (nw) => strs(nw, 1, [v.type].flat()), {});
  if (v.items !== undefined) sub(w, 23, (nw) => [v.items].flat().forEach((s) => sub(nw, 1, schema, s)), {});
  if (Array.isArray(v.allOf)) { for (const s of v.allOf) sub(w, 24, schema, s); }
  if (v.properties !== undefined) sub(w, 25, (nw) => named(nw, 1, schema, v.properties), {});
  str(w, 26, v.discriminator);
  bool(w, 27, v.readOnly);
  sub(w, 29, externalDocs, v.externalDocs);
  any(w, 30, v.example);
  extensions(w, 31, v);
};

/** PrimitivesItems and the shared tail of the non-body parameter sub-schemas, from field number `at` on. */
function primitives(w: ProtobufWriter, at: number, v: Json): void {
  str(w, at, v.type);
  str(w, at + 1, v.format);
  sub(w, at + 2, (nw, i) => primitives(nw, 1, i), v.items);
  str(w, at + 3, v.collectionFormat);
  any(w, at + 4, v.default);
  double(w, at + 5, v.maximum);
  bool(w, at + 6, v.exclusiveMaximum);
  double(w, at + 7, v.minimum);
  bool(w, at + 8, v.exclusiveMinimum);
  int64(w, at + 9, v.maxLength);
  int64(w, at + 10, v.minLength);
  str(w, at + 11, v.pattern);
  int64(w, at + 12, v.maxItems);
  int64(w, at + 13, v.minItems);
  bool(w, at + 14, v.uniqueItems);
  anys(w, at + 15, v.enum);
  double(w, at + 16, v.multipleOf);
  extensions(w, at + 17, v);
}

const NON_BODY: Record<string, { field: number; allowEmpty: boolean }> = {
  header: { field: 1, allowEmpty: false },
  formData: { field: 2, allowEmpty: true },
  query: { field: 3, allowEmpty: true },
  path: { field: 4, allowEmpty: false },
};

const parameter: Encode = (w, v) => {
  if (v.in === "body") {
    sub(w, 1, (nw) => {
      str(nw, 1, v.description);
      str(nw, 2, v.name);
      str(nw, 3, v.in);
      bool(nw, 4, v.required);
      sub(nw, 5, schema, v.schema);
      extensions(nw, 6, v);
    }, {});
    return;
  }
  const kind = NON_BODY[String(v.in)] ?? NON_BODY.query;
  sub(w, 2, (nw) =>
    sub(nw, kind.field, (pw) => {
      bool(pw, 1, v.required);
      str(pw, 2, v.in);
      str(pw, 3, v.description);
      str(pw, 4, v.name);
      if (kind.allowEmpty) bool(pw, 5, v.allowEmptyValue);
      primitives(pw, kind.allowEmpty ? 6 : 5, v);
    }, {}), {});
};

const jsonReference: Encode = (w, v) => {
  str(w, 1, v.$ref);
  str(w, 2, v.description);
};

const parametersItem: Encode = (w, v) => {
  if (typeof v.$ref === "string") sub(w, 2, jsonReference, v);
  else sub(w, 1, parameter, v);
};

const response: Encode = (w, v) => {
  str(w, 1, v.description);
  sub(w, 2, (nw, s) => sub(nw, 1, schema, s), v.schema);
  extensions(w, 5, v);
};

const operation: Encode = (w, v) => {
  strs(w, 1, v.tags);
  str(w, 2, v.summary);
  str(w, 3, v.description);
  sub(w, 4, externalDocs, v.externalDocs);
  str(w, 5, v.operationId);
  strs(w, 6, v.produces);
  strs(w, 7, v.consumes);
  if (Array.isArray(v.parameters)) { for (const p of v.parameters) sub(w, 8, parametersItem, p); }
  sub(w, 9, (nw, responses) => {
    named(
      nw,
      1,
      (rw, r) => (typeof r.$ref === "string" ? sub(rw, 2, jsonReference, r) : sub(rw, 1, response, r)),
      responses,
      true,
    );
    extensions(nw, 2, responses);
  }, v.responses);
  strs(w, 10, v.schemes);
  bool(w, 11, v.deprecated);
  extensions(w, 13, v);
};

const pathItem: Encode = (w, v) => {
  str(w, 1, v.$ref);
  ["get", "put", "post", "delete", "options", "head", "patch"].forEach((op, i) => sub(w, 2 + i, operation, v[op]));
  if (Array.isArray(v.parameters)) { for (const p of v.parameters) sub(w, 9, parametersItem, p); }
  extensions(w, 10, v);
};

const securityItem: Encode = (w, v) => {
  const basic = v.type === "basic";
  sub(w, basic ? 1 : 2, (nw) => {
    str(nw, 1, v.type);
    if (basic) {
      str(nw, 2, v.description);
      extensions(nw, 3, v);
    } else {
      str(nw, 2, v.name);
      str(nw, 3, v.in);
      str(nw, 4, v.description);
      extensions(nw, 5, v);
    }
  }, {});
};

const document: Encode = (w, v) => {
  str(w, 1, v.swagger);
  sub(w, 2, (nw, info) => {
    str(nw, 1, info.title);
    str(nw, 2, info.version);
    str(nw, 3, info.description);
    extensions(nw, 7, info);
  }, v.info);
  str(w, 3, v.host);
  str(w, 4, v.basePath);
  strs(w, 5, v.schemes);
  strs(w, 6, v.consumes);
  strs(w, 7, v.produces);
  sub(w, 8, (nw, paths) => {
    extensions(nw, 1, paths);
    named(nw, 2, pathItem, paths, true);
  }, v.paths);
  sub(w, 9, (nw, defs) => named(nw, 1, schema, defs), v.definitions);
  sub(w, 10, (nw, params) => named(nw, 1, parameter, params), v.parameters);
  if (Array.isArray(v.security)) {
    for (const requirement of v.security) {
      sub(w, 12, (nw, r) => named(nw, 1, (sw, scopes) => strs(sw, 1, scopes), r), requirement);
    }
  }
  sub(w, 13, (nw, defs) => named(nw, 1, securityItem, defs), v.securityDefinitions);
  extensions(w, 16, v);
};

/**
 * Encodes a Swagger 2.0 document (JSON form) as gnostic's openapi.v2.Document.
 *
 * @example
 * ```ts
 * import { encodeOpenApiV2Protobuf } from "./openapi_v2_protobuf.ts";
 * const bytes = encodeOpenApiV2Protobuf({ swagger: "2.0", info: { title: "Kubernetes", version: "1.37" } });
 * console.assert(bytes[0] === 0x0a); // field 1 (swagger), length-delimited
 * ```
 */
export function encodeOpenApiV2Protobuf(doc: object): Uint8Array<ArrayBuffer> {
  return message(document, doc as Json) as Uint8Array<ArrayBuffer>;
}
