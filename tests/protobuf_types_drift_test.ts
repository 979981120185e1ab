// The checked-in testing/apiserver/protobuf_types.json is what protobuf_gen.ts makes from kube's type registry (the
// k8s.io modules of the release the real tier runs, in the Go module cache once scripts/k8s-bin.sh has built it).
import assert from "node:assert/strict";
import { generateProtobufTypes, goModCache, PROTOBUF_MODULE_VERSION } from "../testing/apiserver/protobuf_gen.ts";

const root = goModCache();
const modulesThere = (() => {
  for (const mod of ["api", "apimachinery", "apiextensions-apiserver", "kube-aggregator"]) {
    try {
      Deno.statSync(`${root}/k8s.io/${mod}@${PROTOBUF_MODULE_VERSION}`);
    } catch {
      return false;
    }
  }
  return true;
})();

Deno.test({
  name: "protobuf_types.json is protobuf_gen.ts's output for kube's registry (no drift, nothing hand-kept)",
  ignore: !modulesThere,
  fn() {
    const checkedIn = Deno.readTextFileSync(new URL("../testing/apiserver/protobuf_types.json", import.meta.url));
    const generated = generateProtobufTypes(root);
    assert.equal(checkedIn, generated, "regenerate: deno run -A testing/apiserver/protobuf_gen.ts");
    const types = JSON.parse(generated);
    // The kinds kube-controller-manager writes in protobuf are there (they were not when the table was hand-kept).
    assert.ok(types.groups["apps/v1"].kinds.includes("ControllerRevision"));
    assert.ok(types.groups["discovery.k8s.io/v1"].kinds.includes("EndpointSlice"));
  },
});
