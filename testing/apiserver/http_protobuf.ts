/**
 * Protobuf answers: kube-apiserver encodes a built-in kind in `application/vnd.kubernetes.protobuf` when that is
 * what the client's `Accept` prefers (client-go typed clients with the protobuf content type, e.g.
 * kube-controller-manager: `Accept: application/vnd.kubernetes.protobuf, application/json`). The handlers write
 * JSON; {@link answerInNegotiatedEncoding} is the one place that re-encodes their answer — objects, lists, Status
 * errors, and watch streams frame by frame (`application/vnd.kubernetes.protobuf;stream=watch`); PartialObjectMetadata
 * and PartialObjectMetadataList (also of custom resources) when the preferred clause is
 * `application/vnd.kubernetes.protobuf;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1` (the garbage collector's
 * metadata informers). A custom resource itself is never protobuf, but its Status errors are (kube's CR handler
 * negotiates errors like any other). Status errors follow the plain clauses: with
 * `protobuf;as=PartialObjectMetadata, application/json` a 404 is JSON, as kube answers. Table answers and kinds
 * kube's registry does not list stay JSON.
 * @module
 */

import { encodeKubernetesProtobuf, encodeWatchEventFrame, isProtobufEncodable } from "./protobuf_encode.ts";

const PROTOBUF = "application/vnd.kubernetes.protobuf";

/** What the router knows about the request an answer is for. */
export interface AnswerContext {
  /** A watch: the JSON body is a stream of `{type, object}` lines. */
  watch?: boolean;
  /** An answer from elsewhere (an aggregated server): never re-encoded. */
  jsonOnly?: boolean;
  /** A custom resource: only its Status errors and PartialObjectMetadata conversions are encoded. */
  custom?: boolean;
}

const PARTIAL_KINDS = new Set(["PartialObjectMetadata", "PartialObjectMetadataList"]);

/**
 * Which protobuf answer `Accept` prefers: its most preferred clause (by q, then order, as kube's negotiation ranks
 * them) that names a representation the server has — `plain` for protobuf without a conversion, `partial` for protobuf
 * `as=PartialObjectMetadata[List]` in meta.k8s.io/v1, undefined for JSON, YAML, a wildcard or another conversion.
 *
 * @example
 * ```ts
 * import { protobufPreference } from "./http_protobuf.ts";
 * protobufPreference("application/vnd.kubernetes.protobuf, application/json"); // "plain"
 * protobufPreference("application/json, application/vnd.kubernetes.protobuf"); // undefined
 * protobufPreference("application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1, application/json"); // undefined
 * protobufPreference("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"); // "partial"
 * ```
 */
export function protobufPreference(accept: string | null): "plain" | "partial" | undefined {
  if (!accept) return undefined;
  const clauses = accept.split(",").map((clause, index) => {
    const [type, ...params] = clause.split(";").map((p) => p.trim());
    const named = new Map(params.map((p) => p.split("=", 2) as [string, string]).map(([k, v]) => [k.toLowerCase(), v]));
    const q = named.has("q") ? Number(named.get("q")) : 1;
    return { type: type.toLowerCase(), named, q: Number.isNaN(q) ? 0 : q, index };
  }).filter((c) => c.q > 0).sort((a, b) => b.q - a.q || a.index - b.index);
  for (const c of clauses) {
    const as = c.named.get("as");
    if (c.type === PROTOBUF) {
      if (as === undefined) return "plain";
      const metaV1 = c.named.get("g") === "meta.k8s.io" && c.named.get("v") === "v1";
      return PARTIAL_KINDS.has(as) && metaV1 ? "partial" : undefined;
    }
    if (["application/json", "application/yaml", "application/*", "*/*"].includes(c.type)) return undefined;
  }
  return undefined;
}

/** Whether an answer of `kind` goes out as protobuf for this preference (custom: a custom resource's route). */
function encodesAs(kind: unknown, preference: "plain" | "partial" | undefined, custom: boolean): boolean {
  if (PARTIAL_KINDS.has(String(kind))) return preference === "partial";
  // Errors are negotiated on the plain clauses (an `as=` clause does not apply to a Status).
  if (kind === "Status") return preference === "plain";
  return preference === "plain" && !custom;
}

/**
 * The handler's JSON `res` re-encoded as protobuf when the request prefers it and the answer is a built-in kind
 * (or a Status); otherwise `res` unchanged.
 */
export async function answerInNegotiatedEncoding(req: Request, res: Response, ctx: AnswerContext): Promise<Response> {
  const preference = ctx.jsonOnly ? undefined : protobufPreference(req.headers.get("accept"));
  if (!preference) return res;
  if (res.headers.get("content-type") !== "application/json" || !res.body) return res;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  if (ctx.watch && res.status === 200) {
    // A custom resource's watch is protobuf only as PartialObjectMetadata.
    if (preference === "plain" && ctx.custom) return res;
    headers.set("content-type", `${PROTOBUF};stream=watch`);
    return new Response(res.body.pipeThrough(watchFramesToProtobuf()), { status: res.status, headers });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (
    typeof body !== "object" || body === null || !isProtobufEncodable(body) ||
    !encodesAs((body as { kind?: unknown }).kind, preference, ctx.custom ?? false)
  ) {
    return new Response(text, { status: res.status, headers });
  }
  let encoded: Uint8Array<ArrayBuffer>;
  try {
    encoded = encodeKubernetesProtobuf(body as Record<string, unknown>);
  } catch {
    return new Response(text, { status: res.status, headers }); // the client accepts JSON too (or gets it anyway)
  }
  headers.set("content-type", PROTOBUF);
  return new Response(encoded, { status: res.status, headers });
}

/**
 * Chunk of JSON frames → the same frames in protobuf. watch_stream.ts hands every watch that got the same frames the
 * same bytes (its encode cache and shared batches), so a write fanned out to many protobuf watches is encoded once.
 */
const encodedChunks = new WeakMap<Uint8Array, Uint8Array>();

/** JSON watch lines (`{"type":…,"object":…}\n`) → length-delimited protobuf WatchEvent frames. */
function watchFramesToProtobuf(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  let clean = true; // everything so far ended with a whole line: nothing held in pending or the decoder
  // A chunk holds a batch of whole frames (watch_stream.ts flushes per macrotask): it goes out as one chunk again.
  const frames = (text: string): Uint8Array | undefined => {
    pending += text;
    const out: Uint8Array[] = [];
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
      out.push(encodeWatchEventFrame(event.type, event.object));
    }
    if (out.length <= 1) return out[0];
    const batch = new Uint8Array(out.reduce((n, b) => n + b.length, 0));
    out.reduce((at, b) => (batch.set(b, at), at + b.length), 0);
    return batch;
  };
  return new TransformStream({
    transform: (chunk, controller) => {
      // Whole lines only (what the fake writes) can share an encoding with other watches.
      const whole = clean && chunk[chunk.length - 1] === 0x0a;
      let out = whole ? encodedChunks.get(chunk) : undefined;
      if (!out) {
        out = frames(decoder.decode(chunk, { stream: true }));
        if (whole && out) encodedChunks.set(chunk, out);
      }
      clean = pending === "" && chunk[chunk.length - 1] === 0x0a;
      if (out) controller.enqueue(out);
    },
    flush: (controller) => {
      const out = frames(decoder.decode() + "\n");
      if (out) controller.enqueue(out);
    },
  });
}
