import assert from "node:assert/strict";
import fc from "fast-check";
import { answerConversion, convertObject } from "../../runtime/webhook/conversion.ts";
import type { ConversionReview } from "../../runtime/webhook/review_types.ts";
import {
  ARGV_ANNOTATION,
  AT_CONVERSION,
  AT_V1ALPHA1,
  AT_V1BETA1,
  atConversionWebhook,
  type AtV1beta1,
  splitCommand,
} from "./conversion.ts";

const VERSIONS = { hub: AT_V1BETA1, spokes: [AT_CONVERSION] };

function v1alpha1(command: string, annotations?: Record<string, string>) {
  return {
    apiVersion: AT_V1ALPHA1,
    kind: "At",
    metadata: {
      name: "a",
      namespace: "default",
      uid: "uid-a",
      resourceVersion: "7",
      ...(annotations ? { annotations } : {}),
    },
    spec: { schedule: "2020-11-16T10:12:00Z", command },
    status: { phase: "PENDING" as const },
  };
}

function v1beta1(command: string[], annotations?: Record<string, string>): AtV1beta1 {
  return { ...v1alpha1("", annotations), apiVersion: AT_V1BETA1, spec: { schedule: "2020-11-16T10:12:00Z", command } };
}

Deno.test("v1alpha1 → v1beta1 splits the command as the controller runs it; status and metadata unchanged", () => {
  const out = convertObject(v1alpha1("  echo hello\tworld "), AT_V1BETA1, VERSIONS);
  assert.deepEqual(out.spec, { schedule: "2020-11-16T10:12:00Z", command: ["echo", "hello", "world"] });
  assert.deepEqual(out.metadata, v1alpha1("").metadata);
  assert.deepEqual(out.status, { phase: "PENDING" });
  assert.deepEqual(splitCommand("  echo hello\tworld "), ["echo", "hello", "world"]);
});

Deno.test("an argv with spaces survives v1beta1 → v1alpha1 → v1beta1 through an annotation", () => {
  const original = v1beta1(["sh", "-c", "echo hello world"], { team: "a" });
  const old = convertObject(original, AT_V1ALPHA1, VERSIONS);
  assert.equal((old.spec as { command: string }).command, "sh -c echo hello world");
  assert.equal(
    (old.metadata as { annotations: Record<string, string> }).annotations[ARGV_ANNOTATION],
    '["sh","-c","echo hello world"]',
  );
  assert.deepEqual(convertObject(old, AT_V1BETA1, VERSIONS), original);
  // A v1alpha1 client that changes the command wins over the stale annotation.
  const edited = { ...old, spec: { ...(old.spec as object), command: "echo bye" } };
  const back = convertObject(edited, AT_V1BETA1, VERSIONS) as AtV1beta1;
  assert.deepEqual(back.spec.command, ["echo", "bye"]);
  assert.deepEqual(back.metadata.annotations, { team: "a" });
});

Deno.test("round trips are lossless both ways (property, fixed seed)", () => {
  const arg = fc.string({ maxLength: 6 });
  fc.assert(
    fc.property(fc.array(arg, { maxLength: 5 }), fc.boolean(), (argv, annotated) => {
      const hub = v1beta1(argv, annotated ? { keep: "me" } : undefined);
      assert.deepEqual(convertObject(convertObject(hub, AT_V1ALPHA1, VERSIONS), AT_V1BETA1, VERSIONS), hub);
    }),
    { seed: 16, numRuns: 300 },
  );
  const word = fc.stringMatching(/^[a-z]{1,5}$/);
  fc.assert(
    fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
      const spoke = v1alpha1(words.join(" "));
      assert.deepEqual(convertObject(convertObject(spoke, AT_V1BETA1, VERSIONS), AT_V1ALPHA1, VERSIONS), spoke);
    }),
    { seed: 16, numRuns: 300 },
  );
});

Deno.test("the At conversion webhook answers a ConversionReview in order with uids kept", () => {
  const webhook = atConversionWebhook();
  const review: ConversionReview = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: {
      uid: "r1",
      desiredAPIVersion: AT_V1BETA1,
      objects: [v1alpha1("echo a"), { ...v1alpha1("echo b"), metadata: { name: "b", uid: "uid-b" } }],
    },
  };
  const answer = answerConversion(
    review,
    (group, kind) => group === "cnat.ishankhare.dev" && kind === "At" ? webhook.conversion : undefined,
  );
  const response = (answer.body as ConversionReview).response!;
  assert.equal(response.result.status, "Success");
  assert.deepEqual(
    response.convertedObjects.map((o) => [(o.metadata as { uid: string }).uid, (o.spec as AtV1beta1["spec"]).command]),
    [
      ["uid-a", ["echo", "a"]],
      ["uid-b", ["echo", "b"]],
    ],
  );
});
